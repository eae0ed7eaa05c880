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
    "DIFF_COLUMNS",
    "FINDINGS_COLUMNS",
    "LEDGER_COLUMNS",
    "TOOLS_COLUMNS",
    "VIOLATIONS_COLUMNS",
    "calls_frame",
    "diff_frame",
    "events_of",
    "findings_frame",
    "ledger_frame",
    "tools_frame",
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



# -- toolsets: tools, audit findings, diffs ------------------------------------------------
TOOLS_COLUMNS = ["name", "title", "description", "parameters", "required", "read_only",
                 "source"]
FINDINGS_COLUMNS = ["severity", "server", "tool", "code", "field", "evidence"]
DIFF_COLUMNS = ["item", "status", "fields", "a", "b"]

_SEVERITY_ORDER = {"high": 0, "warning": 1, "info": 2}


def _tool_rows(source: Any) -> list[tuple[Any, ...]]:
    """(name, title, description, schema, annotations, source) from a registry or surface."""
    if hasattr(source, "known_tools") and hasattr(source, "spec"):
        rows = []
        for name in source.known_tools():
            try:
                spec = source.spec(name)
            except LookupError:  # hidden by curation or gone since listing
                continue
            rows.append((spec.name, spec.title, spec.description, spec.input_schema,
                         spec.annotations, source.transport_of(name)))
        return rows
    from workbench.surface.artifact import load_tools

    return [(t["name"], t.get("title"), t["description"], t.get("parameters"),
             t.get("annotations"), "code" if "code" in t else "surface")
            for t in load_tools(source)]


def tools_frame(source: Any) -> pd.DataFrame:
    """One row per tool of a ToolRegistry (as agents see them) or a surface directory.

    Columns: name, title, description, parameters (names, comma-separated), required
    (names), read_only (the ``readOnlyHint``, nullable: a hint, not a guarantee), source
    (``in-process``, the transport label, ``surface`` or ``code``). Sorted by name.
    """
    pd = _pandas()
    rows = []
    for name, title, description, schema, hints, origin in _tool_rows(source):
        schema = schema or {}
        hint = (hints or {}).get("readOnlyHint")
        rows.append((name, title or "", description, ", ".join(schema.get("properties") or {}),
                     ", ".join(schema.get("required") or ()),
                     hint if isinstance(hint, bool) else None, origin))
    rows.sort(key=lambda r: r[0])
    frame = pd.DataFrame(rows, columns=TOOLS_COLUMNS)
    frame["read_only"] = frame["read_only"].astype("boolean")
    return frame


def findings_frame(findings: Any) -> pd.DataFrame:
    """One row per audit finding (Finding objects or their dicts).

    Columns: severity, server, tool, code, field, evidence. Sorted worst first, then by
    server, tool, code and field.
    """
    pd = _pandas()
    rows = []
    for f in findings:
        d = f.to_dict() if hasattr(f, "to_dict") else dict(f)
        rows.append(tuple(d[c] for c in FINDINGS_COLUMNS))
    rows.sort(key=lambda r: (_SEVERITY_ORDER.get(r[0], 3), *r[1:]))
    return pd.DataFrame(rows, columns=FINDINGS_COLUMNS)


def _is_run(value: Any) -> bool:
    return hasattr(value, "ledger") or hasattr(value, "events") or (
        isinstance(value, list) and bool(value) and isinstance(value[0], Event))


def diff_frame(a: Any, b: Any) -> pd.DataFrame:
    """Two runs or two surfaces side by side.

    Runs (Ledger, RunResult or event lists): one row per seq; ``status`` is ``same``,
    ``changed`` (``fields`` names the differing content fields), ``only a`` or ``only b``;
    ``a``/``b`` summarise each side's event. Surfaces (directories, pin lists or wire tool
    lists): one row per tool as :func:`workbench.surface.pins.compare` classifies it
    (``same``, ``drift``, ``rename``, ``added``, ``removed``); ``a``/``b`` are the
    descriptions. Columns: item, status, fields, a, b; sorted by item.
    """
    pd = _pandas()
    if _is_run(a) and _is_run(b):
        ea, eb = events_of(a), events_of(b)
        rows = []
        for seq in range(max(len(ea), len(eb))):
            x = ea[seq] if seq < len(ea) else None
            y = eb[seq] if seq < len(eb) else None
            if x is None or y is None:
                status, fields = ("only b" if x is None else "only a"), ""
            else:
                names = ("tick", "kind", "actor", "payload", "caused_by")
                changed = [n for n in names if getattr(x, n) != getattr(y, n)]
                status, fields = ("changed" if changed else "same"), ", ".join(changed)
            rows.append((seq, status, fields,
                         "" if x is None else f"{x.kind} {x.actor}: {summarize(x, 80)}",
                         "" if y is None else f"{y.kind} {y.actor}: {summarize(y, 80)}"))
        return pd.DataFrame(rows, columns=DIFF_COLUMNS)
    from workbench.surface.pins import compare

    rows = []
    for change in compare(_surface_tools(a), _surface_tools(b)):
        item = change.tool if change.previous is None else f"{change.previous} -> {change.tool}"
        rows.append((item, change.status, ", ".join(change.fields),
                     (change.before or {}).get("description", ""),
                     (change.after or {}).get("description", "")))
    rows.sort(key=lambda r: r[0])
    return pd.DataFrame(rows, columns=DIFF_COLUMNS)


def _surface_tools(value: Any) -> list[Any]:
    from pathlib import Path

    if isinstance(value, (str, Path)):
        from workbench.surface.artifact import entry_to_wire, load_pins, load_tools

        pins = load_pins(value)
        return [p["wire"] for p in pins] if pins else [entry_to_wire(t) for t in load_tools(value)]
    return list(value.values()) if isinstance(value, Mapping) else list(value)
