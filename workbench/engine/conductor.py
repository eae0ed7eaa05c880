"""The conductor: runs a scenario tick by tick and writes everything to the ledger.

One tick:

1. ``tick += 1``; the governor checks the run's budgets.
2. Phase 1 drains the subscription queue: every appended event wakes each agent subscribed
   to its kind (except its author). Cascades resolve within the tick, bounded by
   ``max_calls_per_tick``; wake-ups past the bound are dropped and recorded as
   ``governor.throttled``.
3. Phase 2 runs the tick-scheduled agents in cast order. What they emit wakes subscribers
   in the next tick's phase 1.

An agent that raises is recorded as ``agent.failed`` (its message, never an operator
hint such as a server's log path) and the rest of the cast acts. A budget that runs out
ends the run with ``run.finished`` and reason ``budget``.

With a ledger file, the genesis is fsynced before the first call, and a call that may
change things is written ahead (:mod:`workbench.engine.intents`): a resume never re-sends
a recorded call, and records one in flight at the kill as ``interrupted``.

Around it: :mod:`~workbench.engine.factory` wires a conductor up (:meth:`Conductor.from_config`,
:meth:`Conductor.resume`), :mod:`~workbench.engine.turn` is what an agent acts through, and
:mod:`~workbench.engine.result` holds the :class:`RunResult` a run returns (re-exported here).

Example:
    >>> from workbench.engine.conductor import Conductor
    >>> result = Conductor.from_config("config", "oracle-grove").run(ticks=2)  # doctest: +SKIP
    >>> result.reason  # doctest: +SKIP
    'ticks'
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workbench.agents.base import ManifestAgent
from workbench.agents.handlers import build_agent
from workbench.agents.models import Model
from workbench.contracts.config import ConfigTree
from workbench.contracts.events import (
    AGENT_FAILED,
    GOVERNOR_THROTTLED,
    RUN_FINISHED,
    RUN_STARTED,
    TOOL_CALLED,
    TOOL_DENIED,
    TOOL_LIST_CHANGED,
    WORLD_OBSERVED,
    Event,
    called_payload,
    denied_payload,
    memory_line,
)
from workbench.contracts.manifest import AgentManifest
from workbench.contracts.scenario import ScenarioConfig
from workbench.engine import factory
from workbench.engine.calls_log import CallsLog
from workbench.engine.factory import Progress, ResumeRecord, RunLogs, RunOptions
from workbench.engine.intents import Intent, IntentLog, may_change_things, params_digest
from workbench.engine.ledger import JsonlLedgerStore, Ledger
from workbench.engine.model_calls import ModelCallBook
from workbench.engine.replay import (
    INTERRUPTED,
    Diverged,
    Interrupted,
    Replayed,
    diverged,
    diverged_in_flight,
    failure_payload,
    replayed_outcome,
)
from workbench.engine.result import RunResult
from workbench.engine.scenario_registry import may_retry
from workbench.engine.turn import ConductorTurn
from workbench.errors import CassetteMiss, LedgerError, ToolCallError, ToolDenied, WorkbenchError
from workbench.tools.registry import ToolRegistry

__all__ = ["Conductor", "RunResult"]



class _BudgetSpent(Exception):
    """Internal: a run-wide budget is used up; the run ends with reason ``budget``."""

    def __init__(self, which: str):
        self.which = which


class Conductor:
    """Runs one scenario with one cast over one registry.

    Args:
        scenario: The scenario.
        manifests: The cast's manifests, in acting order.
        registry: Where every tool call goes (the capability boundary).
        seed: The run's seed (the scenario's default when None).
        store: Where to write the ledger as it grows (optional).
        progress: Called as ``progress(tick, total_ticks)`` after each tick.
        models: Models by agent name, overriding what the manifests ask for.
        key: Key of a keyed (HMAC) chain; :meth:`from_config` and :meth:`resume` take it
            from ``WORKBENCH_LEDGER_KEY``.
        logs: The calls and intent logs beside the ledger file (none by default).
        replaying: Resuming: the recorded events to re-derive first, and what takes over.
        owns_registry: Close the registry's resolver (its MCP servers) when the run ends.
        cassette: The open cassette of the run's ``openai`` agents (closed at the end).

    :meth:`from_config` and :meth:`resume` build one through
    :mod:`~workbench.engine.factory`; the constructor is the whole wiring.
    """

    def __init__(self, scenario: ScenarioConfig, manifests: Iterable[AgentManifest],
                 registry: ToolRegistry, *, seed: int | None = None,
                 store: JsonlLedgerStore | None = None, progress: Progress | None = None,
                 models: dict[str, Model] | None = None, key: bytes | None = None,
                 logs: RunLogs | None = None, replaying: ResumeRecord | None = None,
                 owns_registry: bool = False, cassette: Any = None):
        self.scenario = scenario
        self.registry = registry
        self.seed = scenario.default_seed if seed is None else seed
        self.progress = progress
        models = models or {}
        self.agents = [build_agent(m, registry, models.get(m.name)) for m in manifests]
        self.ledger = Ledger(f"{scenario.name}:{self.seed}", store, key=key)
        self.telemetry: dict[int, dict[str, Any]] = {}
        self.model_book = ModelCallBook(scenario.governor.max_model_calls,
                                        lambda: _BudgetSpent("max_model_calls"))
        self.model_book.cassette = cassette
        logs = logs or RunLogs()
        #: Where telemetry is also written, beside a ledger file.
        self.calls_log: CallsLog | None = logs.calls
        #: Where intents are written ahead of calls, beside a ledger file.
        self.intents: IntentLog | None = logs.intents
        replaying = replaying or ResumeRecord()
        #: Resend a call recorded as interrupted (``resume --retry-interrupted``).
        self.retry_interrupted = replaying.retry_interrupted
        self.scene = scenario.genesis(self.seed)
        self.tick = 0
        self._subscribers: dict[str, list[ManifestAgent]] = {}
        for agent in self.agents:
            for kind in agent.manifest.subscribes_to:
                self._subscribers.setdefault(kind, []).append(agent)
        self._queue: deque[Event] = deque()
        # Each event rendered once for prompts, not once per prompt that remembers it.
        self._memory: list[str] = []
        self._activations = 0
        self._tool_calls = 0
        self._stop = False
        self._owns_registry = owns_registry
        # Resuming: the recorded events to re-derive, in order, and the store that takes
        # over once they are all re-derived (see resume()).
        self._replay: deque[Event] = replaying.events
        self._live_store: JsonlLedgerStore | None = replaying.store
        self._resume_ticks: int | None = replaying.ticks
        self._in_flight: Intent | None = replaying.in_flight  # the call cut by the kill

    @classmethod
    def from_config(cls, config: ConfigTree | str | Path, scenario: str,
                    options: RunOptions | None = None, **overrides: Any) -> Conductor:
        """Build a conductor for ``scenario`` from a config tree or directory.

        Args:
            config: A loaded :class:`ConfigTree` or its directory.
            scenario: The scenario's name.
            options: How to wire the run (:class:`~workbench.engine.factory.RunOptions`:
                registry, seed, ledger_path, progress, models, approver, overwrite,
                cassette, cassette_mode, model_url, model_name).
            **overrides: Any of those fields by name, over ``options``.

        Raises:
            TypeError: an override that is not a field of ``RunOptions``.
        """
        options = replace(options or RunOptions(), **overrides)
        return factory.build(cls, config, scenario, options)

    def close(self) -> None:
        """Close the calls log and stop the MCP servers this conductor started.

        A run does this itself when it ends.
        """
        RunLogs(self.calls_log, self.intents).close()
        self.model_book.close()
        if self._owns_registry:
            factory.close_resolver(self.registry)

    @property
    def in_flight(self) -> Intent | None:
        """Resuming: the call that was in flight at the kill (recorded as interrupted)."""
        return self._in_flight

    @property
    def replaying(self) -> bool:
        """Whether the run is still re-deriving recorded events (resuming: nothing is sent)."""
        return bool(self._replay)

    def memory(self, window: int) -> list[str]:
        """The last ``window`` events as the lines prompts read (each rendered once)."""
        return self._memory[-window:]

    @property
    def pending_replay(self) -> int:
        """Recorded events a resumed run has still to re-derive before it calls anything."""
        return len(self._replay)

    @classmethod
    def resume(cls, config: ConfigTree | str | Path, ledger_path: str | Path,
               options: RunOptions | None = None, *, retry_interrupted: bool = False,
               **overrides: Any) -> Conductor:
        """Continue a run that was cut short (killed, crashed) from its ledger file.

        The file is locked and verified, and a torn last line is cut. The run is then
        re-derived up to its last complete event without calling any tool: every tool
        outcome is taken from the ledger, and every re-derived event must hash exactly as
        recorded, which proves the config still describes the same run. :meth:`run` then
        continues, appending to the same file, so the finished ledger is byte-identical
        to one from an uninterrupted run. No call whose outcome is recorded is sent again;
        a call the intent log shows in flight at the kill is recorded as ``interrupted``.

        Args:
            config: The config tree (or directory) the run was started from.
            ledger_path: The ledger file written with ``ledger_path=``/``--ledger``.
            options: As for :meth:`from_config`; only ``registry``, ``progress``,
                ``models`` and ``approver`` count (the seed and scenario are the ledger's).
            retry_interrupted: Send an interrupted call again (after recording it as
                interrupted); the retry is recorded with ``retry_of``.
            **overrides: Fields of ``options`` by name.

        Raises:
            LedgerError: the file is not the start of a run, the run already finished, its
                ``run.started`` is malformed, or (when running) the config no longer
                re-derives the recorded events.
        """
        options = replace(options or RunOptions(), **overrides)
        return factory.resume(cls, config, ledger_path, options,
                              retry_interrupted=retry_interrupted)

    # -- running ----------------------------------------------------------------------
    def stop(self) -> None:
        """Ask the run to end after the current tick (reason ``stop``)."""
        self._stop = True

    def run(self, ticks: int | None = None) -> RunResult:
        """Run ``ticks`` ticks (the governor's ``max_ticks`` when None).

        A keyboard interrupt ends the run cleanly with reason ``stop``.
        """
        if ticks is None:
            ticks = self._resume_ticks or self.scenario.governor.max_ticks
        total = ticks
        if total < 0:
            raise ValueError(f"ticks must be >= 0, got {total}")
        reason = "ticks"
        extra: dict[str, Any] = {}
        try:
            if not self.ledger.events:
                self._genesis(total)
                if self.ledger.store is not None:
                    self.ledger.store.sync()  # a kill in tick 1 leaves a resumable ledger
            while self.tick < total:
                if self._stop:
                    reason = "stop"
                    break
                self.tick += 1
                self._run_tick(self.tick)
                if self.ledger.store is not None:
                    self.ledger.store.flush()
                if self.calls_log is not None:
                    self.calls_log.flush()
                if self.progress is not None:
                    self.progress(self.tick, total)
        except _BudgetSpent as spent:
            reason = "budget"
            extra["budget"] = spent.which
        except KeyboardInterrupt:
            reason = "stop"
        except BaseException:
            # Diverged, a full disk, a bug: keep what is whole on disk, let go of the lock.
            for closing in (self.ledger.store, self._live_store, self):
                if closing is not None:
                    with contextlib.suppress(OSError):
                        closing.close()
            raise
        payload: dict[str, Any] = {"reason": reason, "ticks": self.tick,
                                   "events": len(self.ledger) + 1}
        payload.update(extra)
        self.append(self.tick, RUN_FINISHED, "conductor", payload, None)
        if self.ledger.store is not None:
            self.ledger.store.close()
        self.close()
        return RunResult(self.ledger, reason, self.tick, self.telemetry,
                         self.model_book.records, self.model_book.transcripts)

    def _genesis(self, total: int) -> None:
        self.append(0, RUN_STARTED, "conductor", {
            "scenario": self.scenario.name, "seed": self.seed, "ticks": total,
            "cast": [a.name for a in self.agents],
        }, None)
        self.append(0, WORLD_OBSERVED, "world", {"text": self.scene}, None)

    def _run_tick(self, tick: int) -> None:
        limits = self.scenario.governor
        self._check_budgets()
        self._record_list_changes(tick)
        # Phase 1: the subscription queue, cascades included, within this tick.
        woken = 0
        queue = self._queue
        while queue:
            event = queue.popleft()
            for agent in self._subscribers.get(event.kind, ()):
                if agent.name == event.actor:
                    continue
                if woken >= limits.max_calls_per_tick:
                    dropped = 1 + len(queue)
                    queue.clear()
                    self.append(tick, GOVERNOR_THROTTLED, "conductor", {
                        "limit": "max_calls_per_tick", "value": limits.max_calls_per_tick,
                        "dropped_events": dropped,
                    }, event.seq)
                    break
                woken += 1
                self._activate(agent, tick, event)
        # Phase 2: scheduled agents, in cast order.
        for agent in self.agents:
            every = agent.manifest.schedule.tick_every
            if every is not None and (every == 0 or tick % every == 0):
                self._activate(agent, tick, None)

    def _activate(self, agent: ManifestAgent, tick: int, trigger: Event | None) -> None:
        self._check_budgets()
        self._activations += 1
        turn = ConductorTurn(self, tick, trigger)
        try:
            agent.take_turn(turn)
        except (_BudgetSpent, Diverged, CassetteMiss):
            raise
        except Exception as exc:  # an agent's failure is recorded; the cast goes on
            cause = turn.denied_seq if turn.denied_seq is not None else turn.cause
            if isinstance(exc, Replayed) and self._replay:
                # A re-derived failure: the recorded words of the original exception.
                payload = self._replay[0].payload
            else:
                payload = failure_payload(exc, agent)
            self.append(tick, AGENT_FAILED, agent.name, payload, cause)

    def _check_budgets(self) -> None:
        limits = self.scenario.governor
        if limits.max_total_calls is not None and self._activations >= limits.max_total_calls:
            raise _BudgetSpent("max_total_calls")
        if limits.max_tool_calls is not None and self._tool_calls >= limits.max_tool_calls:
            raise _BudgetSpent("max_tool_calls")

    def _record_list_changes(self, tick: int) -> None:
        """Put tool-list changes a resolver saw since the last tick on the ledger."""
        if self._replay:
            # Resuming: the changes seen then are on the ledger; what the servers say now
            # is news for after the cut.
            while self._replay and self._replay[0].kind == TOOL_LIST_CHANGED:
                self.append(tick, TOOL_LIST_CHANGED, "conductor", self._replay[0].payload,
                             None)
            return
        drain = getattr(self.registry.resolver, "drain_changes", None)
        if drain is None:
            return
        for change in drain():
            self.append(tick, TOOL_LIST_CHANGED, "conductor", change, None)

    # -- the recording API: what a turn acts through -------------------------------------
    def append(self, tick: int, kind: str, actor: str, payload: dict[str, Any],
               caused_by: int | None) -> Event:
        """Append an event to the ledger (re-derived and checked, when resuming).

        Every event of a run goes through here: it wakes subscribers, updates the scene
        and the memory lines prompts read.
        """
        if self._in_flight is not None and self._in_flight.seq == len(self.ledger):
            raise self._cut_in_flight(f"{kind} by {actor}")
        event = self.ledger.append(tick, kind, actor, payload, caused_by)
        if self._replay:
            self._check_replayed(event)
        self._memory.append(memory_line(event))
        if kind == WORLD_OBSERVED and isinstance(payload.get("text"), str):
            self.scene = payload["text"]
        if kind in self._subscribers:
            self._queue.append(event)
        return event

    def record_call(self, turn: ConductorTurn, agent: ManifestAgent, tool: str,
                    params: dict[str, Any]) -> dict[str, Any]:
        """Call ``tool`` for ``agent`` through the registry and record the outcome.

        The governor's ``max_tool_calls`` first, then (live) the intent written ahead and
        the call, or (resuming) the recorded outcome; a refusal is ``tool.denied``, a
        failure and a result are ``tool.called``, and a trusted idempotent call lost in
        transport is sent once more with ``retry_of``.

        Raises:
            ToolDenied: refused (recorded).
            ToolCallError: failed (recorded).
        """
        limits = self.scenario.governor
        if limits.max_tool_calls is not None and self._tool_calls >= limits.max_tool_calls:
            event = self.append(turn.tick, TOOL_DENIED, agent.name,
                                 denied_payload(tool, params, reason="budget exhausted"),
                                 turn.cause)
            turn.denied_seq = event.seq
            raise _BudgetSpent("max_tool_calls")
        self._tool_calls += 1
        retry_of: int | None = None
        while True:
            started = time.perf_counter()
            written_ahead = False
            try:
                if self._replay:
                    result = replayed_outcome(self._replay[0], agent, tool, diverged)
                else:
                    written_ahead = self._write_ahead(turn, agent, tool, params)
                    result = self._send(agent, tool, params)
            except Interrupted:
                event = self.append(turn.tick, TOOL_CALLED, agent.name, called_payload(
                    tool, params, error=INTERRUPTED, retry_of=retry_of), turn.cause)
                if self._retries(event, agent, tool):
                    retry_of = event.seq
                    continue
                raise ToolCallError("interrupted", INTERRUPTED["message"], tool) from None
            except ToolDenied as denied:
                event = self.append(turn.tick, TOOL_DENIED, agent.name, denied_payload(
                    tool, params, **denied.to_payload(), retry_of=retry_of), turn.cause)
                turn.denied_seq = event.seq
                self._telemetry(event.seq, tool, started, "none")
                self._flush_outcome(written_ahead)
                raise
            except ToolCallError as failed:
                event = self.append(turn.tick, TOOL_CALLED, agent.name, called_payload(
                    tool, params, error=failed.to_payload(), retry_of=retry_of), turn.cause)
                self._telemetry(event.seq, tool, started, self.registry.transport_of(tool))
                self._flush_outcome(written_ahead)
                if retry_of is None and may_retry(self.registry, failed, event, self._replay):
                    retry_of = event.seq  # sent once more, recorded
                    continue
                raise
            event = self.append(turn.tick, TOOL_CALLED, agent.name, called_payload(
                tool, params, result=result, retry_of=retry_of), turn.cause)
            self._telemetry(event.seq, tool, started, self.registry.transport_of(tool))
            self._flush_outcome(written_ahead)
            return result

    def _send(self, agent: ManifestAgent, tool: str, params: dict[str, Any]) -> dict[str, Any]:
        """Call through the registry; a non-WorkbenchError is a recorded transport_error."""
        try:
            return self.registry.call(agent.name, agent.manifest, tool, params)
        except WorkbenchError:
            raise
        except Exception as exc:
            raise ToolCallError("transport_error", f"{type(exc).__name__}: {exc}",
                                tool) from exc

    def _write_ahead(self, turn: ConductorTurn, agent: ManifestAgent, tool: str,
                     params: dict[str, Any]) -> bool:
        """Before a live call: settle an interrupted one, or put the intent on disk.

        Returns:
            Whether an intent was written (the outcome is then flushed at once).

        Raises:
            Interrupted: this is the call the intent log shows in flight at the kill.
        """
        seq = len(self.ledger)
        in_flight = self._in_flight
        if in_flight is not None and in_flight.seq == seq:
            if not in_flight.matches(agent.name, tool, params):
                raise self._cut_in_flight(f"a call of {tool!r} by {agent.name}")
            self._in_flight = None
            raise Interrupted
        store = self.ledger.store
        if (self.intents is None or store is None or tool not in agent.manifest.tools
                or not may_change_things(self.registry, tool)):
            return False  # nothing to repeat: refused before dispatch, or no side effect
        store.flush()  # every event before the call is on disk before its intent
        self.intents.write(Intent(seq, turn.tick, agent.name, tool, params_digest(params)))
        return True

    def _flush_outcome(self, written_ahead: bool) -> None:
        if written_ahead and self.ledger.store is not None:
            self.ledger.store.flush()

    def _cut_in_flight(self, found: str) -> LedgerError:
        intent, self._in_flight = self._in_flight, None
        assert intent is not None
        return diverged_in_flight(intent, found)

    def _retries(self, interrupted: Event, agent: ManifestAgent, tool: str) -> bool:
        """Whether the interrupted call is sent again (recorded, or asked for)."""
        if self._replay:
            nxt = self._replay[0]
            return (nxt.kind == TOOL_CALLED and nxt.actor == agent.name
                    and isinstance(nxt.payload, dict)
                    and nxt.payload.get("retry_of") == interrupted.seq)
        return self.retry_interrupted

    def _check_replayed(self, event: Event) -> None:
        recorded = self._replay.popleft()
        if event.hash != recorded.hash:
            raise diverged(recorded, f"{event.kind} by {event.actor}")
        if not self._replay:  # re-derived up to the cut: from here on, write
            self.ledger.store, self._live_store = self._live_store, None

    def _telemetry(self, seq: int, tool: str, started: float, transport: str) -> None:
        if self._replay:
            return  # nothing was called
        record = {
            "tool": tool, "transport": transport,
            "latency_ms": (time.perf_counter() - started) * 1000.0,
        }
        self.telemetry[seq] = record
        if self.calls_log is not None:
            at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            self.calls_log.write(seq, {**record, "at": at})
