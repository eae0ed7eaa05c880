"""Every pandas view of the workbench, in one place.

Columns are fixed and rows sorted, so a notebook's stored outputs stay stable. pandas is
imported when a frame is built, never on ``import workbench``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from workbench.agents.base import summarize
from workbench.contracts.events import Event
from workbench.errors import MissingDependency

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CALLS_COLUMNS",
    "LEDGER_COLUMNS",
    "VIOLATIONS_COLUMNS",
    "calls_frame",
    "events_of",
    "ledger_frame",
    "violations_frame",
]

LEDGER_COLUMNS = ["seq", "tick", "kind", "actor", "caused_by", "summary", "payload", "hash"]
VIOLATIONS_COLUMNS = ["seq", "tick", "agent", "tool", "params", "reason"]
CALLS_COLUMNS = ["seq", "tick", "agent", "tool", "outcome", "detail", "latency_ms", "transport"]


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as exc:  # pragma: no cover - pandas is in every extra that shows frames
        raise MissingDependency("pandas", "frames") from exc
    return pandas


def events_of(source: Any) -> list[Event]:
    """The events of a Ledger, RunResult, LedgerFile or iterable of events."""
    if hasattr(source, "ledger"):
        source = source.ledger
    events = getattr(source, "events", source)
    return events if isinstance(events, list) else list(events)


def ledger_frame(ledger: Any) -> pd.DataFrame:
    """One row per event, in ledger order.

    Columns: seq, tick, kind, actor, caused_by (nullable int), summary (short text),
    payload (the dict), hash.
    """
    pd = _pandas()
    events = events_of(ledger)
    columns: dict[str, Any] = {
        "seq": [e.seq for e in events],
        "tick": [e.tick for e in events],
        "kind": [e.kind for e in events],
        "actor": [e.actor for e in events],
        "caused_by": pd.array([e.caused_by for e in events], dtype="Int64"),
        "summary": [summarize(e) for e in events],
        "payload": [e.payload for e in events],
        "hash": [e.hash for e in events],
    }
    return pd.DataFrame(columns, columns=LEDGER_COLUMNS)


def violations_frame(ledger: Any) -> pd.DataFrame:
    """One row per refused call (``tool.denied``): seq, tick, agent, tool, params, reason."""
    pd = _pandas()
    rows = [
        (e.seq, e.tick, e.actor, e.payload.get("tool"), e.payload.get("params"),
         e.payload.get("reason"))
        for e in events_of(ledger) if e.kind == "tool.denied"
    ]
    return pd.DataFrame(rows, columns=VIOLATIONS_COLUMNS)


def calls_frame(ledger: Any, telemetry: Mapping[int, Mapping[str, Any]] | None = None
                ) -> pd.DataFrame:
    """One row per tool call, made or refused.

    ``outcome`` is ``ok``, an error kind (``tool_error``, ``protocol_error``,
    ``transport_error``, ``timeout``) or ``denied``; ``detail`` holds the error message or
    the refusal's reason. Latency and transport come from the run's telemetry (a
    RunResult carries its own) and are empty without it.
    """
    pd = _pandas()
    if telemetry is None:
        telemetry = getattr(ledger, "telemetry", None) or {}
    rows = []
    for e in events_of(ledger):
        if e.kind == "tool.called":
            error = e.payload.get("error")
            outcome = error["kind"] if error else "ok"
            detail = error["message"] if error else ""
        elif e.kind == "tool.denied":
            outcome, detail = "denied", e.payload.get("reason", "")
        else:
            continue
        tel = telemetry.get(e.seq, {})
        rows.append((e.seq, e.tick, e.actor, e.payload.get("tool"), outcome, detail,
                     tel.get("latency_ms"), tel.get("transport")))
    frame = pd.DataFrame(rows, columns=CALLS_COLUMNS)
    frame["latency_ms"] = frame["latency_ms"].astype("Float64")
    return frame

