"""Building a conductor: from a config tree, or from the ledger of a run cut short.

:meth:`Conductor.from_config <workbench.engine.conductor.Conductor.from_config>` and
:meth:`Conductor.resume <workbench.engine.conductor.Conductor.resume>` are thin delegates to
:func:`from_config` and :func:`resume` here. This is where a run is wired up before its
first tick: the ledger file is claimed (a second writer fails before any server starts),
``openai`` agents get their cassette and endpoint, the scenario's registry is built (its
MCP servers started), and the calls and intent logs are opened beside the ledger. What is
opened here is closed again if building fails.

Example:
    >>> from workbench.engine.conductor import Conductor
    >>> conductor = Conductor.from_config("config", "oracle-grove")  # doctest: +SKIP
    >>> conductor.run(ticks=2).reason  # doctest: +SKIP
    'ticks'
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.agents.models import Model
from workbench.contracts.config import ConfigTree
from workbench.contracts.events import RUN_FINISHED
from workbench.engine.intents import IntentLog, intents_path
from workbench.engine.ledger import JsonlLedgerStore, ledger_key
from workbench.engine.resuming import check_started
from workbench.engine.telemetry import CallsLog, calls_log_path
from workbench.errors import LedgerError
from workbench.tools.registry import ToolRegistry

if TYPE_CHECKING:  # pragma: no cover - the conductor imports this module
    from workbench.engine.conductor import Conductor, Progress

__all__ = ["close_resolver", "from_config", "resume"]


def close_resolver(registry: ToolRegistry) -> None:
    """Close the registry's resolver (stopping the MCP servers it started), if it can."""
    close = getattr(registry.resolver, "close", None)
    if close is not None:
        close()


def from_config(cls: type[Conductor], config: ConfigTree | str | Path, scenario: str, *,
                registry: ToolRegistry | None, seed: int | None,
                ledger_path: str | Path | None, progress: Progress | None,
                models: dict[str, Model] | None, approver: Any, overwrite: bool,
                cassette: Any, cassette_mode: str, model_url: str | None,
                model_name: str | None) -> Conductor:
    """Build a ``cls`` for ``scenario``; the arguments are :meth:`Conductor.from_config`'s."""
    tree = config if isinstance(config, ConfigTree) else ConfigTree.load(config)
    spec = tree.scenario(scenario)
    cast = tree.cast_of(spec)
    # The ledger first: a second writer fails at once, before any server is started.
    store = JsonlLedgerStore(ledger_path, overwrite=overwrite) if ledger_path else None
    tape = None
    owned = registry is None
    try:
        if cassette is not None or model_url or model_name:
            from workbench.agents.openai_model import models_with_cassette

            # Inside the try: a refused cassette (locked, not a file) lets go of the ledger.
            models, tape = models_with_cassette(cast, models, cassette, cassette_mode,
                                                model_url, model_name)
        if registry is None:
            from workbench.engine.tooling import scenario_registry

            registry = scenario_registry(tree.root, spec, approver=approver)
        conductor = cls(spec, cast, registry, seed=seed, store=store,
                        progress=progress, models=models, key=ledger_key())
    except BaseException:
        if owned and registry is not None:
            close_resolver(registry)
        if store is not None:
            store.discard()
        if tape is not None:
            tape.close()
        raise
    conductor._owns_registry = owned
    conductor.model_book.cassette = tape
    if ledger_path:
        conductor.calls_log = CallsLog(calls_log_path(ledger_path))
        conductor.intents = IntentLog(intents_path(ledger_path))
    return conductor


def resume(cls: type[Conductor], config: ConfigTree | str | Path, ledger_path: str | Path, *,
           registry: ToolRegistry | None, progress: Progress | None,
           models: dict[str, Model] | None, approver: Any,
           retry_interrupted: bool) -> Conductor:
    """Build a ``cls`` that continues a cut run; the arguments are :meth:`Conductor.resume`'s.

    Raises:
        LedgerError: as documented on :meth:`Conductor.resume`.
    """
    key = ledger_key()
    found, store = JsonlLedgerStore.resume(ledger_path, key=key)
    try:
        first = check_started(ledger_path, found.events)
        if found.events[-1].kind == RUN_FINISHED:
            raise LedgerError(f"{ledger_path}: the run already finished "
                              f"({found.events[-1].payload.get('reason')}); start a new "
                              f"one")
        in_flight = IntentLog.pending(intents_path(ledger_path), len(found.events),
                                      ledger_path)
        # Through cls.from_config, so a subclass that overrides it is built its own way.
        conductor = cls.from_config(config, first.payload["scenario"], registry=registry,
                                    seed=first.payload["seed"], progress=progress,
                                    models=models, approver=approver)
    except BaseException:
        store.close()
        raise
    conductor.calls_log = CallsLog(calls_log_path(ledger_path),
                                   keep_below=len(found.events))
    conductor.intents = IntentLog(intents_path(ledger_path), fresh=False)
    conductor._replay = deque(found.events)
    conductor._resume_ticks = first.payload["ticks"]
    conductor._live_store = store
    conductor._in_flight = in_flight
    conductor.retry_interrupted = retry_interrupted
    return conductor
