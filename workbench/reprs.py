"""Rich notebook reprs: what ending a cell with a run, ledger, tool or audit shows.

Each ``_repr_html_`` of those classes calls one function here. Every repr is small and
bounded whatever the size of the object: counts, a few first rows and a note on how to
see the rest (a 10,000-event run shows in a few KB, not as its telemetry dump). Pure
string work: no pandas, no widgets, so ``import workbench`` stays fast. It imports nothing
of the workbench and reads the objects by their attributes (an event's ``summary()``), so
every class, from the contracts up, can show itself through it without an upward import.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["audit_html", "ledger_html", "manifest_html", "registry_html", "run_html",
           "tool_html"]

#: Rows any repr shows at most.
MAX_ROWS = 12
_CELL = "text-align:left;vertical-align:top;padding:1px 8px"


def _e(value: Any, limit: int = 160) -> str:
    text = "" if value is None else str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text)


def _table(head: Sequence[str], rows: Iterable[Sequence[Any]], total: int, more: str) -> str:
    head_html = "".join(f'<th style="{_CELL}">{_e(h)}</th>' for h in head)
    body, shown = [], 0
    for row in rows:
        if shown == MAX_ROWS:
            break
        body.append("<tr>" + "".join(f'<td style="{_CELL}">{_e(c)}</td>' for c in row)
                    + "</tr>")
        shown += 1
    note = (f"<p><i>{shown} of {total:,} shown; {html.escape(more)}</i></p>"
            if total > shown else "")
    return (f'<table class="wb-repr"><thead><tr>{head_html}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>{note}")


def _box(title: str, *parts: str) -> str:
    return f'<div class="wb-repr"><b>{title}</b>{"".join(parts)}</div>'


def _counts(counter: Counter[str]) -> str:
    items = counter.most_common(MAX_ROWS)
    text = ", ".join(f"{_e(k, 60)} {v:,}" for k, v in items)
    if len(counter) > len(items):
        text += f", and {len(counter) - len(items)} more kinds"
    return text


def ledger_html(ledger: Any) -> str:
    """A ledger: run id, size, head hash, events by kind and the first events."""
    events = ledger.events
    kinds = Counter(e.kind for e in events)
    rows = ((e.seq, e.tick, e.kind, e.actor, e.summary(100)) for e in events)
    return _box(
        f"Ledger {_e(ledger.run_id)}",
        f"<p>{len(events):,} events &middot; head <code>{_e(ledger.final_hash[:16])}</code>"
        f"<br>{_counts(kinds)}</p>",
        _table(("seq", "tick", "kind", "actor", "summary"), rows, len(events),
               "ledger_frame(ledger) or LedgerView(ledger) shows them all"),
    )


def run_html(result: Any) -> str:
    """A run: how it ended, its size, its violations (first few) and its hash."""
    ledger = result.ledger
    denied = ledger.of_kind("tool.denied")
    calls = sum(1 for e in ledger.events if e.kind == "tool.called")
    rows = ((e.seq, e.tick, e.actor, e.summary(100)) for e in denied)
    return _box(
        f"Run {_e(ledger.run_id)}",
        f"<p>{result.ticks:,} ticks, ended by <b>{_e(result.reason)}</b> &middot; "
        f"{len(ledger):,} events &middot; {calls:,} tool calls &middot; "
        f"{len(denied):,} violations &middot; final hash "
        f"<code>{_e(result.final_hash[:16])}</code></p>",
        _table(("seq", "tick", "agent", "refused"), rows, len(denied),
               "violations_frame(result) shows them all") if denied else "",
    )


def registry_html(registry: Any) -> str:
    """A registry: its tools (name, where it runs, description)."""
    names = registry.known_tools()

    def rows() -> Iterable[tuple[str, str, str]]:
        for name in names:
            try:
                spec = registry.spec(name)
            except LookupError:  # hidden by curation or gone since listing
                continue
            yield name, registry.transport_of(name), spec.description

    return _box(f"ToolRegistry: {len(names):,} tools",
                _table(("tool", "runs", "description"), rows(), len(names),
                       "tools_frame(registry) shows them all"))


def tool_html(spec: Any) -> str:
    """A tool spec: name, description, parameters (required marked), hints."""
    schema = spec.input_schema or {}
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    rows = ((f"{p}{' *' if p in required else ''}", (info or {}).get("type", "any"),
             (info or {}).get("description", "")) for p, info in props.items())
    hints = ", ".join(f"{k}={v}" for k, v in (spec.annotations or {}).items())
    where = "in-process" if spec.run is not None else "from a server"
    return _box(
        f"Tool {_e(spec.name)}" + (f" ({_e(spec.title)})" if spec.title else ""),
        f"<p>{_e(spec.description, 600)}<br><small>{where}"
        + (f" &middot; hints: {_e(hints)}" if hints else "") + "</small></p>",
        _table(("parameter (* required)", "type", "description"), rows, len(props),
               "spec.input_schema holds them all") if props else "",
    )


def manifest_html(manifest: Any) -> str:
    """A manifest: role, persona, grants, kinds, schedule, model."""
    every = manifest.schedule.tick_every
    schedule = ("when it hears something" if every is None
                else "every tick" if every == 0 else f"every {every} ticks")
    rows = [
        ("role", manifest.role),
        ("persona", manifest.persona),
        ("handler", manifest.handler or "(generic)"),
        ("tools (grants)", ", ".join(manifest.tools) or "(none)"),
        ("may emit", ", ".join(manifest.may_emit)),
        ("hears", ", ".join(manifest.subscribes_to) or "(nothing)"),
        ("acts", schedule),
        ("model", manifest.model.backend),
    ]
    return _box(f"Agent {_e(manifest.name)}",
                _table(("field", "value"), rows, len(rows), ""))


def audit_html(findings: Any) -> str:
    """An audit's findings: counts by severity, then the worst first."""
    items = list(getattr(findings, "findings", findings))
    order = {"high": 0, "warning": 1, "info": 2}
    items.sort(key=lambda f: (order.get(f.severity, 3), f.server, f.tool, f.code))
    by = Counter(f.severity for f in items)
    rows = ((f.severity, f.server, f.tool, f.code, f.evidence) for f in items)
    summary = ", ".join(f"{by[s]} {s}" for s in ("high", "warning", "info") if by[s])
    return _box(f"Audit: {len(items):,} findings" + (f" ({summary})" if summary else ""),
                _table(("severity", "server", "tool", "code", "evidence"), rows, len(items),
                       "findings_frame(findings) shows them all") if items else
                "<p>Nothing flagged.</p>")
