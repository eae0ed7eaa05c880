"""Judging a ledger against a scenario's ``expect:`` block: one failure line per broken promise.

Pure: events in, :class:`Failure` records out, no I/O. Each failure names the expectation
(``calls[0]``), says what was found instead, and points at the nearest event (its seq),
so a person reading CI output knows where in the ledger to look::

    counting-house: calls[0]: expected clerk to call add_numbers 1 time(s), found 0;
    nearest: seq 4 tool.denied add_numbers (not approved)

Example:
    >>> from workbench.contracts.expect import Expectations
    >>> judge("demo", Expectations(violations=0), [])
    []
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.contracts.events import TOOL_CALLED, TOOL_DENIED, Event
from workbench.contracts.expect import Expectations

__all__ = ["Failure", "judge", "subset"]

@dataclass(frozen=True)
class Failure:
    """One expectation that does not hold.

    Attributes:
        scenario: The scenario's name.
        expectation: Which one, as its key path in ``expect:`` (``calls[0]``, ``violations``).
        message: What was expected and what was found instead, in one line.
        seq: The nearest event's seq (None for an empty ledger).
    """

    scenario: str
    expectation: str
    message: str
    seq: int | None

    def line(self) -> str:
        """The failure as the one line ``workbench test`` and the pytest plugin print."""
        return f"{self.scenario}: {self.expectation}: {self.message}"


def subset(expected: Any, actual: Any) -> bool:
    """Whether ``expected`` matches ``actual`` as a nested subset.

    Objects: every key of ``expected`` is in ``actual`` and matches; lists: the same length,
    item by item; anything else: equal, and of the same kind (``1`` is not ``true``).
    """
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and subset(value, actual[key]) for key, value in expected.items())
    if isinstance(expected, list | tuple):
        return (isinstance(actual, list | tuple) and len(expected) == len(actual)
                and all(subset(e, a) for e, a in zip(expected, actual, strict=True)))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    return expected == actual


def _text(event: Event) -> str:
    text = event.payload.get("text") if isinstance(event.payload, Mapping) else None
    if isinstance(text, str):
        return text
    from workbench.contracts.events import summarize

    return summarize(event)


def _brief(event: Event) -> str:
    payload = event.payload if isinstance(event.payload, Mapping) else {}
    if event.kind in (TOOL_CALLED, TOOL_DENIED):
        why = payload.get("reason") if event.kind == TOOL_DENIED else (
            (payload.get("error") or {}).get("kind") or "ok")
        return f"seq {event.seq} {event.kind} {payload.get('tool')} by {event.actor} ({why})"
    return f"seq {event.seq} {event.kind} by {event.actor}"


def _nearest(events: Sequence[Event], *preferences: Iterable[Event]) -> Event | None:
    """The last event of the first preference that has one, else the ledger's last."""
    for group in preferences:
        found = list(group)
        if found:
            return found[-1]
    return events[-1] if events else None


def _failure(scenario: str, where: str, message: str, near: Event | None) -> Failure:
    hint = f"; nearest: {_brief(near)}" if near is not None else "; the ledger is empty"
    return Failure(scenario, where, message + hint, near.seq if near is not None else None)


def judge(scenario: str, expect: Expectations, events: Sequence[Event],
          final_hash: str | None = None) -> list[Failure]:
    """Every expectation of ``expect`` that ``events`` break, in the block's order.

    Args:
        scenario: The scenario's name (for the failure lines).
        expect: The ``expect:`` block.
        events: The run's ledger, in order.
        final_hash: The run's final hash (checked against ``final_hash`` when given).
    """
    out: list[Failure] = []
    calls = [e for e in events if e.kind == TOOL_CALLED]
    denials = [e for e in events if e.kind == TOOL_DENIED]

    def tool_of(event: Event) -> Any:
        return event.payload.get("tool")

    for i, want in enumerate(expect.calls):
        mine = [e for e in calls if e.actor == want.agent and tool_of(e) == want.tool]
        matching = [e for e in mine if want.params is None
                    or subset(want.params, e.payload.get("params"))]
        ok = len(matching) == want.count if want.count is not None else bool(matching)
        if ok:
            continue
        what = f"{want.count} time(s)" if want.count is not None else "at least once"
        with_params = f" with params {want.params}" if want.params is not None else ""
        found = f"found {len(matching)}"
        if want.params is not None and len(mine) != len(matching):
            found += f" ({len(mine)} with other params)"
        same_tool = [e for e in events
                     if e.kind in (TOOL_CALLED, TOOL_DENIED) and tool_of(e) == want.tool]
        near = _nearest(events, matching[want.count:] if want.count else (), mine, same_tool,
                        (e for e in events if e.actor == want.agent))
        out.append(_failure(scenario, f"calls[{i}]", f"expected {want.agent} to call "
                            f"{want.tool} {what}{with_params}, {found}", near))
    for i, never in enumerate(expect.never):
        broken = [e for e in calls if tool_of(e) == never.tool
                  and (never.agent is None or e.actor == never.agent)]
        if broken:
            who = never.agent or "no agent"
            out.append(_failure(scenario, f"never[{i}]", f"expected {who} never to call "
                                f"{never.tool}, found {len(broken)} call(s)", broken[0]))
    for i, want in enumerate(expect.denied):
        found = [e for e in denials if tool_of(e) == want.tool
                 and (want.agent is None or e.actor == want.agent)
                 and (want.reason is None or str(e.payload.get("reason", "")).startswith(
                     want.reason))]
        if not found:
            who = f" of {want.agent}" if want.agent else ""
            why = f" ({want.reason})" if want.reason else ""
            near = _nearest(events, (e for e in denials if tool_of(e) == want.tool),
                            (e for e in calls if tool_of(e) == want.tool))
            out.append(_failure(scenario, f"denied[{i}]", f"expected a refusal{who} of "
                                f"{want.tool}{why}, found none", near))
    if expect.violations is not None and len(denials) != expect.violations:
        near = denials[expect.violations] if len(denials) > expect.violations else \
            _nearest(events, denials)
        out.append(_failure(scenario, "violations", f"expected {expect.violations} "
                            f"tool.denied, found {len(denials)}", near))
    for i, said in enumerate(expect.said):
        pattern = re.compile(said.matches)
        theirs = [e for e in events if e.actor == said.agent
                  and (said.kind is None or e.kind == said.kind)]
        if not any(pattern.search(_text(e)) for e in theirs):
            kind = f"a {said.kind}" if said.kind else "an"
            out.append(_failure(scenario, f"said[{i}]", f"expected {kind} event of "
                                f"{said.agent} matching {said.matches!r}, found "
                                f"{len(theirs)} event(s), none matching",
                                _nearest(events, theirs)))
    if expect.final_hash is not None and final_hash != expect.final_hash:
        out.append(_failure(scenario, "final_hash", f"expected {expect.final_hash[:12]}..., "
                            f"found {(final_hash or 'none')[:12]}...: the ledger differs; "
                            f"freeze again if the change is intended",
                            events[-1] if events else None))
    return out
