"""Every pandas view of the workbench, in one place.

Columns are fixed and rows sorted, so a notebook's stored outputs stay stable. pandas is
imported when a frame is built, never on ``import workbench``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from workbench.contracts.canonical import canonical_json
from workbench.contracts.events import TOOL_CALLED, TOOL_DENIED, Event, summarize
from workbench.errors import MissingDependency
from workbench.textsafe import escape

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CALLS_COLUMNS",
    "CHANGES_COLUMNS",
    "DIFF_COLUMNS",
    "FINDINGS_COLUMNS",
    "LEDGER_COLUMNS",
    "SEEN_COLUMNS",
    "SELECTION_COLUMNS",
    "TOOLS_COLUMNS",
    "VIOLATIONS_COLUMNS",
    "calls_frame",
    "changes_frame",
    "confusion_frame",
    "diff_frame",
    "events_of",
    "findings_frame",
    "frame_html",
    "ledger_frame",
    "long_text_html",
    "seen_frame",
    "selection_frame",
    "tools_frame",
    "use_readable_tables",
    "violations_frame",
]

LEDGER_COLUMNS = ["seq", "tick", "kind", "actor", "caused_by", "summary", "payload", "hash"]
VIOLATIONS_COLUMNS = ["seq", "tick", "agent", "tool", "params", "reason"]
CALLS_COLUMNS = ["seq", "tick", "agent", "tool", "outcome", "detail", "latency_ms", "transport"]
SEEN_COLUMNS = ["chat format", "tool", "name shown", "description shown",
                "parameter descriptions shown", "description in the messages"]


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
        "summary": [escape(summarize(e)) for e in events],  # may quote a server's text
        "payload": [e.payload for e in events],
        "hash": [e.hash for e in events],
    }
    return pd.DataFrame(columns, columns=LEDGER_COLUMNS)


def violations_frame(ledger: Any) -> pd.DataFrame:
    """One row per refused call (``tool.denied``): seq, tick, agent, tool, params, reason."""
    pd = _pandas()
    rows = [
        (e.seq, e.tick, e.actor, escape(e.payload.get("tool")), e.payload.get("params"),
         escape(e.payload.get("reason")))
        for e in events_of(ledger) if e.kind == TOOL_DENIED
    ]
    return pd.DataFrame(rows, columns=VIOLATIONS_COLUMNS)


def calls_frame(ledger: Any, telemetry: Mapping[int, Mapping[str, Any]] | None = None,
                payloads: bool = False) -> pd.DataFrame:
    """One row per tool call, made or refused.

    ``outcome`` is ``ok``, an error kind (``tool_error``, ``protocol_error``,
    ``transport_error``, ``timeout``) or ``denied``; ``detail`` holds what the tool
    returned (as in the ledger's summary), the error message or the refusal's reason.
    Latency and transport come from the run's telemetry (a RunResult carries its own) and
    are empty without it. With ``payloads``, two more columns hold each call's ``params``
    and its ``result`` (the tool's dict, the error, or None when refused).
    """
    pd = _pandas()
    if telemetry is None:
        telemetry = getattr(ledger, "telemetry", None) or {}
    rows = []
    for e in events_of(ledger):
        if e.kind == TOOL_CALLED:
            error = e.payload.get("error")
            outcome = error["kind"] if error else "ok"
            detail = error["message"] if error else summarize(e).split(" -> ", 1)[-1]
        elif e.kind == TOOL_DENIED:
            outcome, detail = "denied", e.payload.get("reason", "")
        else:
            continue
        tel = telemetry.get(e.seq, {})
        # An error message is the server's text: escaped like every other.
        row = (e.seq, e.tick, e.actor, escape(e.payload.get("tool")), outcome, escape(detail),
               tel.get("latency_ms"), tel.get("transport"))
        if payloads:
            row += (e.payload.get("params"), e.payload.get("error") or e.payload.get("result"))
        rows.append(row)
    frame = pd.DataFrame(rows, columns=CALLS_COLUMNS + (["params", "result"] if payloads else []))
    frame["latency_ms"] = frame["latency_ms"].astype("Float64")
    return frame


CHANGES_COLUMNS = ["table", "change", "tick", "agent", "tool", "before", "after"]


def _call_keys(ledger: Any) -> dict[tuple[Any, ...], tuple[str, str]]:
    """(table, tick, agent, tool, n-th such call in the tick) -> (its payload, its outcome)."""
    keyed: dict[tuple[Any, ...], tuple[str, str]] = {}
    seen: dict[tuple[Any, ...], int] = {}
    for e in events_of(ledger):
        if e.kind not in (TOOL_CALLED, TOOL_DENIED):
            continue
        table = "violations" if e.kind == TOOL_DENIED else "calls"
        base = (table, e.tick, e.actor, str(e.payload.get("tool")))
        n = seen[base] = seen.get(base, -1) + 1
        keyed[(*base, n)] = (canonical_json(e.payload), summarize(e).split(" -> ", 1)[-1])
    return keyed


def changes_frame(before: Any, after: Any) -> pd.DataFrame:
    """The violations and calls that changed from run ``before`` to run ``after``.

    Calls are matched by tick, agent, tool and order within the tick, so a call that
    moved to another tick shows as removed and added. ``change`` is ``added``,
    ``removed`` or ``changed``; ``before``/``after`` say what each call came to (the
    tool's result, the error, or the refusal's reason). Unchanged calls are left out.
    Columns: table, change, tick, agent, tool, before, after; sorted by table then tick.
    """
    pd = _pandas()
    old, new = _call_keys(before), _call_keys(after)
    rows = []
    for key in sorted(old.keys() | new.keys(), key=lambda k: (k[0] != "violations", *k[1:])):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        change = "added" if a is None else "removed" if b is None else "changed"
        rows.append((key[0], change, key[1], key[2], key[3], a[1] if a else "",
                     b[1] if b else ""))
    return pd.DataFrame(rows, columns=CHANGES_COLUMNS)



# -- toolsets: tools, audit findings, diffs ------------------------------------------------
TOOLS_COLUMNS = ["name", "title", "description", "parameters", "required", "read_only",
                 "destructive", "idempotent", "open_world", "source"]
FINDINGS_COLUMNS = ["severity", "server", "tool", "code", "field", "evidence", "reason"]
DIFF_COLUMNS = ["item", "status", "fields", "before", "after"]

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
    from workbench.contracts.surface import load_tools

    return [(t["name"], t.get("title"), t["description"], t.get("parameters"),
             t.get("annotations"), "code" if "code" in t else "surface")
            for t in load_tools(source)]


def tools_frame(source: Any) -> pd.DataFrame:
    """One row per tool of a ToolRegistry (as agents see them) or a surface directory.

    Columns: name, title, description, parameters (names, comma-separated), required
    (names), the four annotation hints as MCP defines them, with the spec's defaults where
    a tool gives none (read_only False, destructive True, idempotent False, open_world
    True: hints, not guarantees), source (``in-process``, the transport label, ``surface``
    or ``code``). Sorted by name.
    """
    from workbench.tools.mcp.wire import hints as spec_hints

    pd = _pandas()
    rows = []
    for name, title, description, schema, declared, origin in _tool_rows(source):
        schema = schema or {}
        hint = spec_hints(declared)
        # Server text: escaped, so a CR, LF or ANSI code cannot rewrite what a person reads.
        rows.append((escape(name), escape(title), escape(description),
                     escape(", ".join(schema.get("properties") or {})),
                     escape(", ".join(schema.get("required") or ())),
                     hint["readOnlyHint"], hint["destructiveHint"], hint["idempotentHint"],
                     hint["openWorldHint"], origin))
    rows.sort(key=lambda r: r[0])
    return pd.DataFrame(rows, columns=TOOLS_COLUMNS)


def findings_frame(findings: Any) -> pd.DataFrame:
    """One row per audit finding (Finding objects or their dicts).

    Columns: severity, server, tool, code, field, evidence, reason (empty for dicts from
    before reasons were kept). Sorted worst first, then by
    server, tool, code and field.
    """
    pd = _pandas()
    rows = []
    for f in findings:
        d = f.to_dict() if hasattr(f, "to_dict") else dict(f)
        rows.append(tuple(escape(d.get(c, "")) for c in FINDINGS_COLUMNS))
    rows.sort(key=lambda r: (_SEVERITY_ORDER.get(r[0], 3), *r[1:]))
    return pd.DataFrame(rows, columns=FINDINGS_COLUMNS)


def _is_run(value: Any) -> bool:
    return hasattr(value, "ledger") or hasattr(value, "events") or (
        isinstance(value, list) and bool(value) and isinstance(value[0], Event))


def diff_frame(a: Any, b: Any) -> pd.DataFrame:
    """Two runs or two surfaces side by side.

    Runs (Ledger, RunResult or event lists): one row per seq; ``status`` is ``same``,
    ``changed`` (``fields`` names the differing content fields), ``only before`` or
    ``only after``; ``before``/``after`` summarise the event of run ``a`` and of run ``b``.
    Surfaces (directories, pin lists or wire tool lists): one row per tool as
    :func:`workbench.surface.pins.pin_changes` classifies it (``same``, ``drift``, ``rename``,
    ``added``, ``removed``); ``before``/``after`` are the descriptions in ``a`` and ``b``,
    and a name with non-ASCII characters has them named, so look-alikes differ on screen.
    Columns: item, status, fields, before, after; sorted by item.
    """
    pd = _pandas()
    if _is_run(a) and _is_run(b):
        ea, eb = events_of(a), events_of(b)
        rows = []
        for seq in range(max(len(ea), len(eb))):
            x = ea[seq] if seq < len(ea) else None
            y = eb[seq] if seq < len(eb) else None
            if x is None or y is None:
                status, fields = ("only after" if x is None else "only before"), ""
            else:
                names = ("tick", "kind", "actor", "payload", "caused_by")
                changed = [n for n in names if getattr(x, n) != getattr(y, n)]
                status, fields = ("changed" if changed else "same"), ", ".join(changed)
            rows.append((seq, status, fields,
                         "" if x is None else f"{x.kind} {x.actor}: {summarize(x, 80)}",
                         "" if y is None else f"{y.kind} {y.actor}: {summarize(y, 80)}"))
        return pd.DataFrame(rows, columns=DIFF_COLUMNS)
    from workbench.contracts.characters import distinguishable
    from workbench.surface.pins import pin_changes

    rows = []
    for change in pin_changes(_surface_tools(a), _surface_tools(b)):
        item = distinguishable(change.tool)
        if change.previous is not None:
            item = f"{distinguishable(change.previous)} -> {item}"
        rows.append((escape(item), change.status, ", ".join(change.fields),
                     escape((change.before or {}).get("description", "")),
                     escape((change.after or {}).get("description", ""))))
    rows.sort(key=lambda r: r[0])
    return pd.DataFrame(rows, columns=DIFF_COLUMNS)


def _surface_tools(value: Any) -> list[Any]:
    from pathlib import Path

    if isinstance(value, (str, Path)):
        from workbench.contracts.surface import entry_to_wire, load_pins, load_tools

        pins = load_pins(value)
        return [p["wire"] for p in pins] if pins else [entry_to_wire(t) for t in load_tools(value)]
    return list(value.values()) if isinstance(value, Mapping) else list(value)


# -- display ------------------------------------------------------------------------------
#: Hex characters of a hash shown in a table (12 identify an event or a run among millions);
#: the whole hash is the cell's tooltip, and the frame keeps all 64.
HASH_SHOWN = 12
#: A cell longer than this is shown collapsed: its first :data:`COLLAPSED_HEAD` characters
#: and its size, expanded by a click. A table stays a table even when one result is a page.
COLLAPSE_AT = 300
#: The characters a collapsed cell shows before it is expanded.
COLLAPSED_HEAD = 160
#: The most of one cell's text a table sends to the page, expanded. A 10 MB result would
#: make the notebook and the browser slow; the rest is counted, and the frame holds it all.
CELL_MAX = 20_000
#: A text cell longer than this wraps whatever its column (names and kinds are shorter).
WRAP_AT = 60
_HEX = frozenset("0123456789abcdef")


def frame_html(frame: pd.DataFrame, css: str = "", wrap: tuple[str, ...] = ()) -> str:
    """A DataFrame as an HTML table that reads well in JupyterLab: the one display style.

    Text is left-aligned and numbers right-aligned (Lab right-aligns every cell), missing
    values are blank rather than ``<NA>``, dicts and lists are JSON. A default index
    (0, 1, 2, ...) is left out; an index that means something (tool names, a crosstab's
    rows) is the first column. Hash columns (``hash``, ``*_hash``) show their first
    :data:`HASH_SHOWN` characters with the whole hash as the tooltip. Only the ``wrap``
    columns and cells longer than :data:`WRAP_AT` may wrap: an agent called
    ``fortune-teller`` should not break at its hyphen. A cell longer than
    :data:`COLLAPSE_AT` is collapsed (click to expand), never cut with ``...``. Only the
    display changes: the frame's data stays exact. Styles are inline because Lab's
    sanitizer drops ``<style>`` elements from untrusted notebooks' outputs.
    """
    pd = _pandas()
    # (header, values) per shown column: the index's levels first when they mean something.
    columns: list[tuple[str, Any]] = []
    if not _default_index(frame.index):
        names = [str(n) if n is not None else "" for n in frame.index.names]
        if frame.columns.name is not None and len(names) == 1:
            # A crosstab: "expected \ picked" names both axes in the corner.
            names[0] = " \\ ".join(filter(None, (names[0], str(frame.columns.name))))
        for level, name in enumerate(names):
            columns.append((name, frame.index.get_level_values(level)))
    columns += [(str(col), frame.iloc[:, i]) for i, col in enumerate(frame.columns)]
    styles, hashes = [], []
    for name, values in columns:
        numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(
            values)
        style = f"text-align:{'right' if numeric else 'left'};vertical-align:top"
        styles.append(style + ("" if name in wrap else ";white-space:nowrap"))
        hashes.append(name == "hash" or name.endswith("_hash"))
    headers = [name for name, _ in columns]
    rows = zip(*(list(values) for _, values in columns), strict=True) if columns else ()
    head = "".join(f'<th style="{st}">{html.escape(h)}</th>'
                   for h, st in zip(headers, styles, strict=True))
    body = "".join(
        "<tr>" + "".join(_td(value, st, is_hash)
                         for value, st, is_hash in zip(row, styles, hashes, strict=True))
        + "</tr>\n"
        for row in rows
    )
    return (f'<table class="dataframe {css}"><thead><tr class="wb-head">{head}</tr></thead>'
            f"<tbody>\n{body}</tbody></table>")


def _default_index(index: Any) -> bool:
    """Whether ``index`` is row numbers (0, 1, 2, ..., or what is left of them after a filter).

    Such an index says nothing a reader needs; a named one, or one of labels (tool names,
    a crosstab's rows), does.
    """
    pd = _pandas()
    return index.nlevels == 1 and index.name is None and pd.api.types.is_integer_dtype(index)


def _td(value: Any, style: str, is_hash: bool) -> str:
    """One cell: a hash shortened, a long text wrapped, a very long one collapsed."""
    text = _cell(value)
    if is_hash and len(text) > HASH_SHOWN and set(text) <= _HEX:
        return (f'<td style="{style}" title="{html.escape(text, quote=True)}">'
                f"{text[:HASH_SHOWN]}…</td>")
    if len(text) > WRAP_AT:
        style = style.replace(";white-space:nowrap", "")
    return f'<td style="{style}">{long_text_html(text)}</td>'


def long_text_html(text: str, css: str = "wb-more",
                   whole: str = "export the table, or read the value in code",
                   fold_at: int = COLLAPSE_AT, head: int = COLLAPSED_HEAD) -> str:
    """``text`` escaped for HTML; past ``fold_at`` characters, collapsed.

    The collapsed form shows the first ``head`` characters and the size;
    a click opens at most :data:`CELL_MAX` characters, and says how many more there are.
    Widgets use it for results and messages as tables use it for cells; ``whole`` says
    where the whole text is.
    """
    if len(text) <= fold_at:
        return html.escape(text)
    body = html.escape(text[:CELL_MAX])
    if len(text) > CELL_MAX:
        body += (f"<br><i>… {len(text) - CELL_MAX:,} more characters not shown: "
                 f"{html.escape(whole)}</i>")
    return (f'<details class="{css}"><summary style="cursor:pointer">'
            f"{html.escape(text[:head])}… <i>({len(text):,} characters: click to "
            f"read)</i></summary><div style='white-space:pre-wrap;overflow-wrap:anywhere;"
            f"max-width:60em'>{body}</div></details>")


def _cell(value: Any) -> str:
    """One cell's text: blank for missing values, floats to 3 decimals, dicts as JSON."""
    pd = _pandas()
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, float):
        return "" if value != value else f"{value:.3f}"
    if isinstance(value, dict | list):
        return canonical_json(value)
    return str(value)


#: Columns of free text, allowed to wrap when shown (names, kinds and agents never wrap).
PROSE_COLUMNS = frozenset({"summary", "payload", "params", "result", "detail", "description",
                           "evidence", "before", "after", "reason", "fields", "query"})


def use_readable_tables(max_rows: int = 60) -> None:
    """Show every DataFrame in this notebook as :func:`frame_html` does (call it once).

    Text columns left-aligned, blanks instead of ``<NA>``, hashes shortened, long cells
    wrapped or collapsed, no default index; long frames show their first and last rows, as
    pandas does. Installed as IPython's HTML formatter for DataFrames, so ending a cell
    with a frame is enough. Does nothing outside IPython.
    """
    pd = _pandas()
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - notebooks always have IPython
        return
    shell = get_ipython()
    if shell is None:
        return

    def render(frame: pd.DataFrame) -> str:
        wrap = tuple(c for c in frame.columns if c in PROSE_COLUMNS)
        if len(frame) <= max_rows:
            return frame_html(frame, wrap=wrap)
        half = max_rows // 2
        note = f"<p><i>{len(frame):,} rows &times; {len(frame.columns)} columns; " \
               f"first and last {half} shown</i></p>"
        return frame_html(frame.head(half), wrap=wrap) + frame_html(frame.tail(half),
                                                                    wrap=wrap) + note

    shell.display_formatter.formatters["text/html"].for_type(pd.DataFrame, render)


# -- tool selection -------------------------------------------------------------------------
SELECTION_COLUMNS = ["query", "expected", "picked", "hit", "rank", "score", "runner_up",
                     "margin"]


def selection_frame(evaluation: Any) -> pd.DataFrame:
    """One row per task of an :class:`~workbench.selection.Evaluation`, in task order.

    Columns: query, expected and picked tool ("" for none), hit, rank of the expected tool
    (nullable), the best score, the runner-up tool and the winning margin (nullable).
    """
    pd = _pandas()
    rows = []
    for case in evaluation.cases:
        ranking = case.ranking
        rows.append((case.task.query, case.task.tool or "", case.picked or "", case.hit,
                     case.rank, ranking[0][1] if ranking else None,
                     ranking[1][0] if len(ranking) > 1 else "", case.margin))
    frame = pd.DataFrame(rows, columns=SELECTION_COLUMNS)
    frame["rank"] = frame["rank"].astype("Int64")
    return frame


def confusion_frame(evaluation: Any) -> pd.DataFrame:
    """Expected tool (rows) against picked tool (columns), counts; "(none)" for no tool."""
    pd = _pandas()
    expected = [c.task.tool or "(none)" for c in evaluation.cases]
    picked = [c.picked or "(none)" for c in evaluation.cases]
    labels = sorted(set(expected) | set(picked), key=lambda t: (t == "(none)", t))
    table = pd.crosstab(pd.Series(expected, name="expected"), pd.Series(picked, name="picked"))
    return table.reindex(index=labels, columns=labels, fill_value=0).astype(int)


def seen_frame(request: Mapping[str, Any], prompts: Mapping[str, str]) -> pd.DataFrame:
    """What each chat format's prompt shows of ``request``'s tools, one row per format and tool.

    ``prompts`` maps a format's name to the prompt it rendered from ``request`` (recorded
    beside a cassette, see :func:`workbench.agents.seen.seen_in_prompt`). Parameter
    descriptions read "2 of 3": shown, of those the schema has. "Shown" is the format's
    rendering of the tools; "in the messages" says the request's own messages carry the
    description too (a system prompt listing the tools). Rows keep the formats' order and
    the request's tool order.
    """
    from workbench.agents.seen import seen_in_prompt

    pd = _pandas()
    rows = [(fmt, seen.name, seen.named, seen.description,
             f"{seen.parameters} of {seen.parameters_described}", seen.in_messages)
            for fmt, prompt in prompts.items() for seen in seen_in_prompt(request, prompt)]
    return pd.DataFrame(rows, columns=SEEN_COLUMNS)
