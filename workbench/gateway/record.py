"""The gateway's record: every call, refusal, approval answer and list change, hash-chained.

A gateway writes one ledger in the format a run writes (:mod:`workbench.engine.ledger`:
canonical JSON lines, each hash chaining the last; ``workbench verify`` checks it), through
one :class:`~workbench.engine.ledger.JsonlLedgerStore` (created exclusively and locked: one
writer), with the calls log beside it (:mod:`workbench.engine.calls_log`: transport,
latency and time, never hashed). Calls are recorded with the payload constructors a run uses
(:func:`~workbench.contracts.events.called_payload`,
:func:`~workbench.contracts.events.denied_payload`), as calls by hand are
(:mod:`workbench.engine.hand_calls`), and each call's event is handed to the OS before its
result goes back to the host: a ``kill -9`` loses no call the host saw answered.

The events, in order: ``gateway.started`` (scenario, agent, the tools shown, the servers),
then per call an ``approval.answered`` when someone was asked and answered (``by``:
``--approve`` or ``elicitation``) followed by ``tool.called`` or ``tool.denied`` (its
``caused_by`` the answer), or ``agent.failed`` for a granted tool that nothing offers;
``tool.list_changed`` when a server's list changes (with the audit's findings on what was
added or changed, and what is held back); ``gateway.stopped`` when it ends cleanly.

A call's events share its *tick*, the call's number, given when its first event is
recorded (so ticks rise in the order calls are first recorded; calls in flight together can
finish out of that order). The content is deterministic: the same calls with the same
answers give the same ledger.
"""

from __future__ import annotations

import collections
import os
import threading
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workbench.contracts.events import AGENT_FAILED, TOOL_LIST_CHANGED, Event
from workbench.engine.calls_log import CallsLog, calls_log_path
from workbench.engine.ledger import JsonlLedgerStore, Ledger, ledger_key

__all__ = [
    "APPROVAL_ANSWERED",
    "GATEWAY_STARTED",
    "GATEWAY_STOPPED",
    "KEPT_EVENTS",
    "GatewayRecord",
    "Ticket",
    "default_ledger_path",
]

#: The gateway's own event kinds (the call events are the engine's).
GATEWAY_STARTED = "gateway.started"
GATEWAY_STOPPED = "gateway.stopped"
APPROVAL_ANSWERED = "approval.answered"

#: Who the gateway's own events are by.
ACTOR = "gateway"

#: Events a gateway keeps in memory (the file keeps them all). A gateway lives as long as
#: its host, days perhaps, and an event holds a call's result (up to the result cap), so
#: memory holds only the latest events, enough to look at from a notebook.
KEPT_EVENTS = 256


def default_ledger_path(scenario: str, agent: str, env: Mapping[str, str] | None = None
                        ) -> Path:
    """Where a gateway writes when not told: one new file per gateway process.

    ``$WORKBENCH_GATEWAY_LEDGER_DIR``, else ``$XDG_STATE_HOME/workbench/gateway``, else
    ``~/.local/state/workbench/gateway``; named ``SCENARIO-AGENT-<UTC time>-<pid>.jsonl``.
    A host starts its servers from a directory of its choosing, so the default is never
    relative to it.
    """
    env = os.environ if env is None else env
    configured = env.get("WORKBENCH_GATEWAY_LEDGER_DIR", "").strip()
    if configured:
        base = Path(configured).expanduser()
    else:
        state = env.get("XDG_STATE_HOME", "").strip()
        base = (Path(state) if state else Path.home() / ".local" / "state") / "workbench" / \
            "gateway"
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return base / f"{scenario}-{agent}-{stamp}-{os.getpid()}.jsonl"


class _Latest:
    """The ledger's event list as the gateway keeps it: every event counted, the latest kept.

    :class:`~workbench.engine.ledger.Ledger` numbers an event by the length of its list and
    appends it; this list answers the count of all events ever appended and keeps only the
    last :data:`KEPT_EVENTS`.
    """

    def __init__(self, keep: int):
        self._kept: collections.deque[Event] = collections.deque(maxlen=keep)
        self._count = 0

    def append(self, event: Event) -> None:
        self._kept.append(event)
        self._count += 1

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Event]:
        return iter(list(self._kept))

    def __getitem__(self, index: int) -> Event:
        return list(self._kept)[index]


class Ticket:
    """One call's place on the ledger: its tick, given when its first event is recorded.

    Attributes:
        tool: The tool asked for.
        started: ``time.perf_counter()`` when the call arrived (for its latency).
        tick: The call's tick (None until its first event).
        answer: The seq of its ``approval.answered`` event, if any.
    """

    __slots__ = ("answer", "started", "tick", "tool")

    def __init__(self, tool: str):
        self.tool = tool
        self.started = time.perf_counter()
        self.tick: int | None = None
        self.answer: int | None = None


class GatewayRecord:
    """The ledger and calls log of one gateway process.

    Args:
        path: The ledger file (created; an existing one is refused unless ``overwrite``).
        scenario: The scenario's name.
        agent: The agent whose contract is served (the actor of every call).
        overwrite: Replace an existing ledger file.
        key: Key of a keyed (HMAC) chain; ``WORKBENCH_LEDGER_KEY`` when None.

    Raises:
        LedgerError: the file exists, or another process writes it.
    """

    def __init__(self, path: str | Path, *, scenario: str, agent: str,
                 overwrite: bool = False, key: bytes | None = None):
        self.path = Path(path)
        self.agent = agent
        self.store = JsonlLedgerStore(self.path, overwrite=overwrite)
        try:
            self.calls_log = CallsLog(calls_log_path(self.path))
        except BaseException:
            self.store.discard()
            raise
        self.ledger = Ledger(f"gateway:{scenario}:{agent}", self.store,
                             key=ledger_key() if key is None else key)
        self.ledger.events = _Latest(KEPT_EVENTS)  # type: ignore[assignment]
        self._lock = threading.Lock()
        self._ticks = 0
        self._closed = False
        #: Calls recorded so far, by outcome (``ok``, ``denied``, an error kind, ...).
        self.counts: collections.Counter[str] = collections.Counter()

    @property
    def calls_log_path(self) -> Path:
        """Where the calls log is."""
        return self.calls_log.path

    @property
    def events(self) -> list[Event]:
        """The latest events (at most :data:`KEPT_EVENTS`; the file has them all)."""
        return list(self.ledger.events)

    @property
    def final_hash(self) -> str:
        """The hash of the last event recorded."""
        return self.ledger.final_hash

    # -- writing ------------------------------------------------------------------------
    def started(self, payload: dict[str, Any]) -> Event:
        """Record ``gateway.started`` and put it on disk (fsynced)."""
        with self._lock:
            event = self.ledger.append(0, GATEWAY_STARTED, ACTOR, payload)
            self.store.sync()
        return event

    def answered(self, ticket: Ticket, payload: dict[str, Any]) -> Event:
        """Record an ``approval.answered`` for ``ticket``'s call (flushed at once)."""
        with self._lock:
            event = self.ledger.append(self._tick_of(ticket), APPROVAL_ANSWERED, self.agent,
                                       payload)
            self.store.flush()
        ticket.answer = event.seq
        return event

    def outcome(self, ticket: Ticket, kind: str, payload: dict[str, Any], *, outcome: str,
                transport: str) -> tuple[Event, float]:
        """Record a call's outcome event, flush it and its calls-log line.

        Returns:
            The event and the call's latency in milliseconds.
        """
        latency = (time.perf_counter() - ticket.started) * 1000.0
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        with self._lock:
            event = self.ledger.append(self._tick_of(ticket), kind, self.agent, payload,
                                       ticket.answer)
            self.store.flush()
            if kind != AGENT_FAILED:
                self.calls_log.write(event.seq, {"tool": ticket.tool, "transport": transport,
                                                 "latency_ms": latency, "at": at})
                self.calls_log.flush()
            self.counts[outcome] += 1
        return event, latency

    def list_changed(self, payload: dict[str, Any]) -> Event:
        """Record a ``tool.list_changed`` (at the tick of the last call)."""
        with self._lock:
            event = self.ledger.append(self._ticks, TOOL_LIST_CHANGED, ACTOR, payload)
            self.store.flush()
        return event

    def stopped(self, reason: str) -> Event | None:
        """Record ``gateway.stopped`` and close the files (idempotent; None if closed)."""
        with self._lock:
            if self._closed:
                return None
            calls = sum(self.counts.values())
            event = self.ledger.append(self._ticks, GATEWAY_STOPPED, ACTOR,
                                       {"reason": reason, "calls": calls})
            self._close()
        return event

    def discard(self) -> None:
        """Close, removing both files if nothing was recorded (the gateway never started)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            written = len(self.ledger) > 0
            self.calls_log.close()
            self.store.discard()
        if not written:
            self.calls_log.path.unlink(missing_ok=True)

    def close(self) -> None:
        """Close the ledger and calls log without a ``gateway.stopped`` (idempotent)."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self.store.close()
            finally:
                self.calls_log.close()

    def _tick_of(self, ticket: Ticket) -> int:
        if ticket.tick is None:
            self._ticks += 1
            ticket.tick = self._ticks
        return ticket.tick

    def __repr__(self) -> str:
        return f"GatewayRecord({str(self.path)!r}, {len(self.ledger)} events)"
