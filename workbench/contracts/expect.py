"""Expectations: what a scenario must and must never do, written in its file as ``expect:``.

A scenario designed by eye says nothing about what it is for, so a changed description, a
new server version or a new model breaks it silently. An ``expect:`` block says it, as
data, and is as strict as the rest of the file (an unknown key is one error naming the
file, line, key path and what is allowed)::

    expect:
      ticks: 3                 # default: the governor's max_ticks
      seed: 1                  # default: the scenario's default_seed
      calls:                   # a tool.called of this agent and tool exists
        - {agent: timekeeper, tool: get_current_time, count: 1,
           params: {timezone: Europe/Oslo}}      # params: a nested subset
      never:                   # no tool.called matches (a refusal does not break it)
        - {tool: trigger-long-running-operation}
      denied:                  # a tool.denied matches (reason: its start)
        - {agent: herald, tool: oracle, reason: not granted}
      violations: 1            # exactly this many tool.denied
      said:                    # an event of the agent whose text matches (a regex)
        - {agent: herald, kind: news.announced, matches: "market"}
      final_hash: 3f9c...      # the ledger byte for byte (deterministic runs only)
      cassette: cassettes/counting-house.jsonl   # model agents replay it
      approve: [get_current_time]                # approved ahead, never asked

Judging a ledger against these is :mod:`workbench.testing.judge`; this module is only the
contract and its loading (pure data).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, field_validator

from workbench.contracts.manifest import Kind, Name, StrictModel, ToolName

__all__ = ["CallExpectation", "DeniedExpectation", "Expectations", "NeverExpectation",
           "SaidExpectation", "MAX_PATTERN"]

#: The longest ``matches`` pattern: a regular expression to find a phrase, not a program.
MAX_PATTERN = 500
_HASH = re.compile(r"[0-9a-f]{64}")


class CallExpectation(StrictModel):
    """``calls[i]``: the agent called the tool (``count`` times exactly, if given).

    ``params`` matches as a nested subset: every key given is in the call's params with a
    matching value (objects recursively, lists item by item, other values equal).
    """

    agent: Name
    tool: ToolName
    count: int | None = Field(default=None, ge=0)
    params: dict[str, Any] | None = None


class NeverExpectation(StrictModel):
    """``never[i]``: no ``tool.called`` of the tool (by the agent, if given).

    A ``tool.denied`` is the boundary working: it does not break a ``never``.
    """

    agent: Name | None = None
    tool: ToolName


class DeniedExpectation(StrictModel):
    """``denied[i]``: a ``tool.denied`` of the tool (by the agent, with the reason, if given).

    ``reason`` matches the start of the recorded reason (``not granted``, ``not approved``,
    ``pin drift``, ``hidden by curation``), so a reason that explains itself further still
    matches its category.
    """

    agent: Name | None = None
    tool: ToolName
    reason: str | None = Field(default=None, min_length=1)


class SaidExpectation(StrictModel):
    """``said[i]``: an event of the agent (of ``kind``, if given) whose text matches.

    The text is the payload's ``text`` when it has one (what an agent says), else the
    event's one-line summary. ``matches`` is a regular expression, searched (not anchored).
    """

    agent: Name
    kind: Kind | None = None
    matches: str = Field(min_length=1, max_length=MAX_PATTERN)

    @field_validator("matches")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"{value!r} is not a regular expression ({exc}); allowed: a "
                             f"Python regular expression, such as 'market|bridge'") from None
        return value


class Expectations(StrictModel):
    """A scenario's ``expect:`` block; every part is optional and all must hold."""

    ticks: int | None = Field(default=None, ge=1, le=1_000_000)
    seed: int | None = None
    calls: tuple[CallExpectation, ...] = ()
    never: tuple[NeverExpectation, ...] = ()
    denied: tuple[DeniedExpectation, ...] = ()
    violations: int | None = Field(default=None, ge=0)
    said: tuple[SaidExpectation, ...] = ()
    final_hash: str | None = None
    cassette: str | None = Field(default=None, min_length=1)
    approve: tuple[str, ...] = ()

    @field_validator("final_hash")
    @classmethod
    def _is_a_hash(cls, value: str | None) -> str | None:
        if value is not None and not _HASH.fullmatch(value):
            raise ValueError(f"{value!r} is not a ledger hash; allowed: the 64 lowercase hex "
                             f"digits `workbench run` prints as the final hash")
        return value

    @field_validator("approve")
    @classmethod
    def _tools_or_server_tools(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        from workbench.contracts.names import TOOL_NAME_RE

        for item in value:
            tool = item.split(":", 1)[-1]
            if not TOOL_NAME_RE.fullmatch(tool):
                raise ValueError(f"{item!r} is not a tool to approve; allowed: TOOL or "
                                 f"SERVER:TOOL, as --approve takes them")
        return value
