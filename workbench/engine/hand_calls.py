"""Calls made by hand, recorded exactly as a run records its calls.

A person trying a tool in a notebook (the ToolCaller widget) or a script calling one
directly goes through the same :meth:`~workbench.tools.registry.ToolRegistry.call` as an
agent in a run: the grant check first, then the guards (approval, pins, curation), then
the schema, then dispatch. :class:`HandCalls` keeps a ledger of those calls with the
payloads the conductor writes (``tool.called`` with ``result`` or ``error``,
``tool.denied`` with ``reason``), one tick per call, and telemetry beside it (transport,
latency: never hashed). So ``calls_frame(hand)``, ``ledger_frame(hand)``, a LedgerView and
``timeline(hand)`` all work on hand calls as on a run.

Example:
    >>> from workbench.tools.builtins import default_tool_registry
    >>> class Grants:
    ...     tools = ["oracle"]
    >>> hand = HandCalls()
    >>> outcome = hand.call(default_tool_registry(env={}), "me", Grants(), "oracle",
    ...                     {"seed": "dawn"})
    >>> outcome.outcome, outcome.event.kind, outcome.event.tick
    ('ok', 'tool.called', 1)
    >>> hand.call(default_tool_registry(env={}), "me", Grants(), "wipe", {}).reason
    'not granted'
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.contracts.events import (
    TOOL_CALLED,
    TOOL_DENIED,
    Event,
    called_payload,
    denied_payload,
)
from workbench.engine.ledger import Ledger
from workbench.errors import ToolCallError, ToolDenied
from workbench.tools.registry import ToolRegistry

__all__ = ["CallOutcome", "HandCalls"]


@dataclass(frozen=True)
class CallOutcome:
    """What one call by hand gave, and the ledger event it made.

    Attributes:
        agent: Who the call was made as.
        tool: The tool.
        params: The arguments sent (or that would have been sent, when refused).
        outcome: ``ok``, an error kind (``tool_error``, ``protocol_error``,
            ``transport_error``, ``timeout``) or ``denied``.
        result: The tool's result when ``ok``.
        error: ``{"kind", "message"}`` when the call failed.
        reason: The refusal's short reason when ``denied`` (``not granted``, ...).
        message: The failure's or refusal's full text, for a person (empty when ok).
        event: The ``tool.called`` or ``tool.denied`` event it appended.
        transport: ``in-process``, the server's transport label, or ``none`` when refused.
        latency_ms: Wall-clock milliseconds of the call (telemetry).
    """

    agent: str
    tool: str
    params: dict[str, Any]
    outcome: str
    event: Event
    result: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    reason: str | None = None
    message: str = ""
    transport: str = "none"
    latency_ms: float = field(default=0.0, compare=False)

    @property
    def ok(self) -> bool:
        """The tool ran and returned a result."""
        return self.outcome == "ok"

    @property
    def denied(self) -> bool:
        """The registry refused the call before anything was dispatched."""
        return self.outcome == "denied"

    @property
    def is_error(self) -> bool:
        """The tool reported an error (MCP ``isError``; not a transport failure)."""
        return self.outcome == "tool_error"

    @property
    def content(self) -> list[dict[str, Any]] | None:
        """The content blocks, when the tool returned unstructured content."""
        result = self.result
        if result is not None and set(result) == {"content"} and isinstance(
                result["content"], list):
            return result["content"]
        return None

    @property
    def structured_content(self) -> dict[str, Any] | None:
        """The structured result (MCP ``structuredContent``; an in-process tool's dict)."""
        return self.result if self.result is not None and self.content is None else None

    def __repr__(self) -> str:
        detail = {"ok": "", "denied": f", reason={self.reason!r}"}.get(
            self.outcome, f", message={self.message[:60]!r}")
        return (f"CallOutcome({self.agent} -> {self.tool}: {self.outcome}{detail}, "
                f"seq={self.event.seq})")


class HandCalls:
    """A ledger of calls made by hand, one tick per call.

    Args:
        run_id: The ledger's run id.

    Attributes:
        ledger: Every hand call, hash-chained like a run's ledger.
        telemetry: Transport and latency per event seq (never hashed).
        outcomes: Every call's :class:`CallOutcome`, in order.
    """

    def __init__(self, run_id: str = "hand-calls"):
        self.ledger = Ledger(run_id)
        self.telemetry: dict[int, dict[str, Any]] = {}
        self.outcomes: list[CallOutcome] = []

    def call(self, registry: ToolRegistry, agent: str, manifest: Any, tool: str,
             params: Mapping[str, Any] | None = None) -> CallOutcome:
        """Call ``tool`` as ``agent`` through ``registry`` and record what happened.

        A refusal (:class:`~workbench.errors.ToolDenied`) and a failed call
        (:class:`~workbench.errors.ToolCallError`) are outcomes, recorded and returned.

        Raises:
            ToolNotFound: granted but offered by nothing (a run records this as
                ``agent.failed``; here it is the caller's to see).
        """
        params = dict(params or {})
        tick = len(self.outcomes) + 1
        started = time.perf_counter()
        try:
            result = registry.call(agent, manifest, tool, params)
        except ToolDenied as denied:
            event = self.ledger.append(tick, TOOL_DENIED, agent,
                                       denied_payload(tool, params, **denied.to_payload()))
            return self._keep(CallOutcome(agent, tool, params, "denied", event,
                                          reason=denied.reason, message=str(denied)),
                              started)
        except ToolCallError as failed:
            event = self.ledger.append(tick, TOOL_CALLED, agent,
                                       called_payload(tool, params, error=failed.to_payload()))
            return self._keep(CallOutcome(agent, tool, params, failed.kind, event,
                                          error=failed.to_payload(), message=failed.message,
                                          transport=registry.transport_of(tool)), started)
        event = self.ledger.append(tick, TOOL_CALLED, agent,
                                   called_payload(tool, params, result=result))
        return self._keep(CallOutcome(agent, tool, params, "ok", event, result=result,
                                      transport=registry.transport_of(tool)), started)

    def failed(self, agent: str, tool: str, arguments: str,
               error: ToolCallError) -> CallOutcome:
        """Record a call that could not be made: its arguments, as written, unreadable.

        Recorded as a run records it (``tool.called`` with the error and the text the
        model wrote); nothing reaches the registry.
        """
        event = self.ledger.append(len(self.outcomes) + 1, TOOL_CALLED, agent, called_payload(
            tool, {}, error=error.to_payload(), arguments=arguments))
        return self._keep(CallOutcome(agent, tool, {}, error.kind, event,
                                      error=error.to_payload(), message=error.message),
                          time.perf_counter())

    def _keep(self, outcome: CallOutcome, started: float) -> CallOutcome:
        latency = (time.perf_counter() - started) * 1000.0
        object.__setattr__(outcome, "latency_ms", latency)
        self.telemetry[outcome.event.seq] = {"tool": outcome.tool,
                                             "transport": outcome.transport,
                                             "latency_ms": latency}
        self.outcomes.append(outcome)
        return outcome

    def __len__(self) -> int:
        return len(self.outcomes)

    def __repr__(self) -> str:
        return f"HandCalls({self.ledger.run_id!r}, {len(self.outcomes)} calls)"
