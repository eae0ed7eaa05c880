"""The conductor's one factory: from a config tree, or from the ledger of a run cut short.

:meth:`Conductor.from_config <workbench.engine.conductor.Conductor.from_config>` and
:meth:`Conductor.resume <workbench.engine.conductor.Conductor.resume>` hand their
:class:`RunOptions` to :func:`build` and :func:`resume` here, which wire a run up before
its first tick and give the conductor everything through its constructor: the ledger
file is claimed first (a second writer fails before any server starts), ``openai``
agents get their cassette and endpoint, the scenario's registry is built (its MCP servers
started), the calls and intent logs are opened beside the ledger (:class:`RunLogs`), and a
resumed run gets its :class:`ResumeRecord`. What is opened here is closed again if
building fails. The dependency runs one way: the conductor calls this module, never the
reverse (the conductor's class is passed in).

Example:
    >>> from workbench.engine.conductor import Conductor
    >>> conductor = Conductor.from_config("config", "oracle-grove")  # doctest: +SKIP
    >>> conductor.run(ticks=2).reason  # doctest: +SKIP
    'ticks'
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.agents.models import Model
from workbench.contracts.config import ConfigTree
from workbench.contracts.events import RUN_FINISHED, Event
from workbench.engine.calls_log import CallsLog, calls_log_path
from workbench.engine.intents import Intent, IntentLog, intents_path
from workbench.engine.ledger import JsonlLedgerStore, ledger_key
from workbench.engine.replay import check_started
from workbench.errors import LedgerError
from workbench.tools.registry import ToolRegistry

if TYPE_CHECKING:  # pragma: no cover - a type only: the conductor's class is passed in
    from workbench.engine.conductor import Conductor

__all__ = ["ResumeRecord", "RunLogs", "RunOptions", "build", "close_resolver", "resume"]

#: ``progress(tick, total_ticks)`` after every tick.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class RunOptions:
    """How a run is wired: every keyword of ``Conductor.from_config``, said once.

    Attributes:
        registry: The registry to use. When None, the scenario's own: its MCP ``servers``
            (started now, stopped when the run ends) behind its ``surface``, else
            ``default_tool_registry()``; see
            :func:`~workbench.engine.scenario_registry.scenario_registry`.
        seed: The seed (the scenario's default when None).
        ledger_path: Write the ledger to this JSONL file as it grows.
        progress: Called as ``progress(tick, total_ticks)`` after each tick.
        models: Models by agent name, overriding the manifests.
        approver: Confirms calls to tools that may change things when the registry is the
            scenario's own (None refuses them).
        overwrite: Replace an existing ``ledger_path`` (by default that is an error: the
            file may hold a run to keep or to resume).
        cassette: For ``openai`` agents: a cassette (path) to replay, or to record.
        cassette_mode: ``auto`` (replay if the file exists), ``record`` or ``replay``.
        model_url: The API every ``openai`` agent calls instead of its manifest's.
        model_name: The model every ``openai`` agent uses instead of its manifest's.
    """

    registry: ToolRegistry | None = None
    seed: int | None = None
    ledger_path: str | Path | None = None
    progress: Progress | None = None
    models: dict[str, Model] | None = None
    approver: Any = None
    overwrite: bool = False
    cassette: Any = None
    cassette_mode: str = "auto"
    model_url: str | None = None
    model_name: str | None = None


@dataclass
class RunLogs:
    """What is written beside a ledger file, never hashed: telemetry and call intents."""

    calls: CallsLog | None = None
    intents: IntentLog | None = None

    @classmethod
    def beside(cls, ledger_path: str | Path | None) -> RunLogs:
        """Fresh logs beside ``ledger_path`` (none without a ledger file)."""
        if not ledger_path:
            return cls()
        return cls(CallsLog(calls_log_path(ledger_path)), IntentLog(intents_path(ledger_path)))

    def close(self) -> None:
        """Close both logs (safe to call twice)."""
        for log in (self.calls, self.intents):
            if log is not None:
                log.close()


@dataclass
class ResumeRecord:
    """What a resumed run re-derives before it calls anything, and what takes over after.

    Attributes:
        events: The recorded events to re-derive, in order.
        ticks: The ticks the cut run was asked for.
        store: The ledger file's store, which takes over once every event is re-derived.
        in_flight: The call the intent log shows in flight at the kill, if any.
        retry_interrupted: Send that call again (``resume --retry-interrupted``).
    """

    events: deque[Event] = field(default_factory=deque)
    ticks: int | None = None
    store: JsonlLedgerStore | None = None
    in_flight: Intent | None = None
    retry_interrupted: bool = False


def close_resolver(registry: ToolRegistry) -> None:
    """Close the registry's resolver (stopping the MCP servers it started), if it can."""
    close = getattr(registry.resolver, "close", None)
    if close is not None:
        close()


def build(cls: type[Conductor], config: ConfigTree | str | Path, scenario: str,
          options: RunOptions, *, logs: RunLogs | None = None,
          replaying: ResumeRecord | None = None) -> Conductor:
    """Build a ``cls`` for ``scenario`` as ``options`` say.

    Args:
        cls: The conductor class.
        config: A loaded tree or its directory.
        scenario: The scenario's name.
        options: How to wire the run.
        logs: The logs to write (default: fresh ones beside ``options.ledger_path``).
        replaying: Resuming: the record to re-derive (see :func:`resume`).
    """
    tree = config if isinstance(config, ConfigTree) else ConfigTree.load(config)
    spec = tree.scenario(scenario)
    cast = tree.cast_of(spec)
    # The ledger first: a second writer fails at once, before any server is started.
    store = (JsonlLedgerStore(options.ledger_path, overwrite=options.overwrite)
             if options.ledger_path else None)
    registry, models, tape = options.registry, options.models, None
    owned = registry is None
    try:
        if options.cassette is not None or options.model_url or options.model_name:
            from workbench.agents.openai_model import models_with_cassette

            # Inside the try: a refused cassette (locked, not a file) lets go of the ledger.
            models, tape = models_with_cassette(cast, models, options.cassette,
                                                options.cassette_mode, options.model_url,
                                                options.model_name)
        if registry is None:
            from workbench.engine.scenario_registry import scenario_registry

            registry = scenario_registry(tree.root, spec, approver=options.approver)
        return cls(spec, cast, registry, seed=options.seed, store=store,
                   progress=options.progress, models=models, key=ledger_key(),
                   logs=logs if logs is not None else RunLogs.beside(options.ledger_path),
                   replaying=replaying, owns_registry=owned, cassette=tape)
    except BaseException:
        if owned and registry is not None:
            close_resolver(registry)
        if store is not None:
            store.discard()
        if tape is not None:
            tape.close()
        raise


def resume(cls: type[Conductor], config: ConfigTree | str | Path, ledger_path: str | Path,
           options: RunOptions, *, retry_interrupted: bool) -> Conductor:
    """Build a ``cls`` that continues a cut run; see :meth:`Conductor.resume`.

    ``options`` gives the registry, progress, models and approver; the seed and the
    scenario come from the ledger.

    Raises:
        LedgerError: as documented on :meth:`Conductor.resume`.
    """
    key = ledger_key()
    found, store = JsonlLedgerStore.resume(ledger_path, key=key)
    logs = None
    try:
        first = check_started(ledger_path, found.events)
        if found.events[-1].kind == RUN_FINISHED:
            raise LedgerError(f"{ledger_path}: the run already finished "
                              f"({found.events[-1].payload.get('reason')}); start a new "
                              f"one")
        in_flight = IntentLog.pending(intents_path(ledger_path), len(found.events),
                                      ledger_path)
        logs = RunLogs(CallsLog(calls_log_path(ledger_path), keep_below=len(found.events)),
                       IntentLog(intents_path(ledger_path), fresh=False))
        record = ResumeRecord(deque(found.events), first.payload["ticks"], store, in_flight,
                              retry_interrupted)
        return build(cls, config, first.payload["scenario"], RunOptions(
            registry=options.registry, seed=first.payload["seed"], progress=options.progress,
            models=options.models, approver=options.approver), logs=logs, replaying=record)
    except BaseException:
        if logs is not None:
            logs.close()
        store.close()
        raise
