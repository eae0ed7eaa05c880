"""A host's call, through the run's registry, onto the gateway's ledger, back as an MCP result.

:class:`GatewayCalls` is the call path: :meth:`~GatewayCalls.call` hands the call to
``ToolRegistry.call`` as the agent (the grant check first, then the overlay's curation and
pins, then approval, then the input schema, then dispatch), records what came of it with
the payload constructors a run uses, as calls by hand are recorded
(:mod:`workbench.engine.hand_calls`, whose :class:`~workbench.engine.hand_calls.CallOutcome`
it returns), and :func:`call_result` turns that into the ``tools/call`` result the host
gets:

==========================  =====================================================
outcome                     the host gets
==========================  =====================================================
a result                    ``structuredContent`` (and its JSON as text), or the
                            server's content blocks
``tool_error``              ``isError`` with the server's text (its ``isError``)
``protocol_error``          ``isError`` naming the server's JSON-RPC error
``transport_error``         ``isError``; the next call reconnects
``timeout``                 ``isError``; the session stays open
refused (``tool.denied``)   ``isError`` saying why and what to do; nothing was sent
granted, offered by none    ``isError`` (recorded as ``agent.failed``, as in a run)
==========================  =====================================================

:meth:`~GatewayCalls.relist` takes a server's list change: it records it with the
audit's findings on what was added or changed, applies approvals a person wrote to
``pins.json`` since, and says whether what the host sees changed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

from workbench.contracts.events import (
    AGENT_FAILED,
    TOOL_CALLED,
    TOOL_DENIED,
    called_payload,
    denied_payload,
)
from workbench.engine.hand_calls import CallOutcome
from workbench.errors import ToolCallError, ToolDenied, ToolNotFound, WorkbenchError
from workbench.gateway.approval import Asker, GatewayApprover, NeedsAnswer
from workbench.gateway.contract import Contract
from workbench.gateway.record import GatewayRecord, Ticket

__all__ = ["GatewayCalls", "call_result", "refusal_text"]

#: The message a cancelled call is recorded with.
CANCELLED = ("the host cancelled the call (or the gateway stopped) before the server "
             "answered; the server may have acted on it")

#: What the gateway adds to a refusal for the host's reader, per reason (the ledger keeps
#: the reason): what is particular to a gateway (it reads grants and flags at start).
_NEXT = {
    "not granted": "the gateway reads the manifest when it starts: restart it after the "
                   "change",
    "not approved": "answer yes when the host asks, or restart the gateway with --approve "
                    "TOOL (or SERVER:TOOL)",
    "pin drift": "the gateway lists it again once it is approved",
}


def refusal_text(denied: ToolDenied) -> str:
    """What the host reads when a call is refused: the refusal, and what to do next."""
    text = f"refused by the workbench gateway: {str(denied).rstrip('. ')}"
    hint = _NEXT.get(denied.reason)
    return f"{text}. Nothing was sent to the server; {hint}." if hint else \
        f"{text}. Nothing was sent to the server."


class GatewayCalls:
    """The agent's calls through the contract, recorded.

    Args:
        contract: The agent's contract (registry, manifest, what is shown).
        record: The gateway's ledger.
        approver: The approver the contract's registry was built with.
    """

    def __init__(self, contract: Contract, record: GatewayRecord, approver: GatewayApprover):
        self.contract = contract
        self.record = record
        self.approver = approver
        self._relist_lock = threading.Lock()

    @property
    def agent(self) -> str:
        """The agent every call is made as."""
        return self.contract.manifest.name

    def call(self, tool: str, params: Mapping[str, Any] | None = None,
             ask: Asker | None = None) -> CallOutcome:
        """Call ``tool`` as the agent and record what happened (blocks: run it in a thread).

        Args:
            tool: The tool the host asked for.
            params: Its arguments, sent unchanged.
            ask: How to ask the person when the call needs a yes (None: nobody can be asked).

        Raises:
            NeedsAnswer: a 2026-07-28 host must be asked first (nothing was recorded or sent).
        """
        params = dict(params or {})
        ticket = Ticket(tool)
        with self.approver.asking(ask, lambda answer: self.record.answered(ticket, answer)):
            try:
                result = self.contract.registry.call(self.agent, self.contract.manifest,
                                                     tool, params)
            except Exception as exc:  # an outcome, or (re-raised) a signal to the server
                return self._settle(ticket, params, exc)
        return self._settle(ticket, params, result=result)

    async def acall(self, tool: str, params: Mapping[str, Any] | None = None,
                    ask: Asker | None = None) -> CallOutcome:
        """:meth:`call` for the serving loop: the same path, the server's answer awaited.

        The checks (grant, curation, pins, approval, schema) run before the first ``await``,
        so ``ask`` must not block: the serving loop passes one that raises instead (a call
        that needs a person goes the threaded way of :meth:`call`).

        Raises:
            NeedsAnswer: as :meth:`call`; and whatever ``ask`` raises (nothing was recorded
                or sent).
        """
        import anyio

        params = dict(params or {})
        ticket = Ticket(tool)
        with self.approver.asking(ask, lambda answer: self.record.answered(ticket, answer)):
            try:
                result = await self.contract.registry.acall(self.agent, self.contract.manifest,
                                                            tool, params)
            except Exception as exc:  # an outcome, or (re-raised) a signal to the server
                return self._settle(ticket, params, exc)
            except anyio.get_cancelled_exc_class():
                # The host cancelled (or the gateway is stopping) while the server had the
                # call: it may have acted on it, so the call is recorded before it unwinds.
                self._failed(ticket, params, ToolCallError("cancelled", CANCELLED, tool))
                raise
        return self._settle(ticket, params, result=result)

    def _settle(self, ticket: Ticket, params: dict[str, Any], exc: BaseException | None = None,
                *, result: dict[str, Any] | None = None) -> CallOutcome:
        """Record what a call came to (its result, or what it raised) and return the outcome.

        Raises:
            ``exc`` itself when it is no call's outcome: a signal to the server (NeedsAnswer,
            or what an asker raised) or a workbench error other than the call's own.
        """
        agent, tool = self.agent, ticket.tool
        if exc is None:
            return self._keep(ticket, TOOL_CALLED, called_payload(tool, params, result=result),
                              CallOutcome(agent, tool, params, "ok", _NO_EVENT, result=result,
                                          transport=self.contract.registry.transport_of(tool)))
        if isinstance(exc, ToolDenied):
            payload = denied_payload(tool, params, **exc.to_payload())
            return self._keep(ticket, TOOL_DENIED, payload, CallOutcome(
                agent, tool, params, "denied", _NO_EVENT, reason=exc.reason,
                message=refusal_text(exc)))
        if isinstance(exc, ToolCallError):
            return self._failed(ticket, params, exc)
        if isinstance(exc, ToolNotFound):
            payload = {"error": type(exc).__name__, "message": str(exc)}
            return self._keep(ticket, AGENT_FAILED, payload, CallOutcome(
                agent, tool, params, "not offered", _NO_EVENT, message=str(exc)))
        if isinstance(exc, WorkbenchError) or not isinstance(exc, Exception) or \
                isinstance(exc, NeedsAnswer):
            raise exc
        return self._failed(ticket, params, ToolCallError(
            "transport_error", f"{type(exc).__name__}: {exc}", tool))

    def _failed(self, ticket: Ticket, params: dict[str, Any], failed: ToolCallError
                ) -> CallOutcome:
        tool = ticket.tool
        payload = called_payload(tool, params, error=failed.to_payload())
        return self._keep(ticket, TOOL_CALLED, payload, CallOutcome(
            self.agent, tool, params, failed.kind, _NO_EVENT, error=failed.to_payload(),
            message=failed.message, transport=self.contract.registry.transport_of(tool)))

    def _keep(self, ticket: Ticket, kind: str, payload: dict[str, Any],
              outcome: CallOutcome) -> CallOutcome:
        event, latency = self.record.outcome(ticket, kind, payload, outcome=outcome.outcome,
                                             transport=outcome.transport)
        object.__setattr__(outcome, "event", event)
        object.__setattr__(outcome, "latency_ms", latency)
        return outcome

    # -- list changes -----------------------------------------------------------------------
    def relist(self) -> bool:
        """Record the servers' list changes and recompute what the host sees.

        Returns:
            Whether what the host sees changed (then the host is told ``list_changed``).
        """
        with self._relist_lock:
            contract = self.contract
            resolver = contract.registry.resolver
            drain = getattr(resolver, "drain_changes", None)
            changes = drain() if drain is not None else []
            try:
                released = contract.take_new_pins()
            except WorkbenchError as exc:  # a broken pins.json: the pins in force stay
                released = []
                self.note(f"pins.json not read again: {exc}")
            for change in changes:
                self.record.list_changed(self._audited(change))
            changed = contract.relist()
            if changes or released or changed:
                held = contract.held.held() if contract.held is not None else []
                self.note(_change_line(changes, released, held, contract.names()))
            return changed

    def _audited(self, change: dict[str, Any]) -> dict[str, Any]:
        """The change record with the audit's findings on what it added or changed."""
        touched = set(change.get("added", ())) | set(change.get("changed", ()))
        payload = dict(change)
        held = self.contract.held
        payload["held"] = sorted(n for n in touched if held is not None and held.is_held(n))
        server = change.get("server")
        conn = next((c for c in self.contract.connections if c.name == server), None)
        findings: list[dict[str, str]] = []
        if conn is not None and touched:
            from workbench.audit import audit

            tools = [t for t in conn.list_tools() if t.get("name") in touched]
            findings = [{"tool": f.tool, "code": f.code, "severity": f.severity}
                        for f in audit({str(server): tools}) if f.tool in touched]
        payload["findings"] = sorted(findings, key=lambda f: (f["tool"], f["code"]))
        return payload

    def note(self, line: str) -> None:
        """Say one line to the person running the gateway (stderr; replaced by tests)."""
        import sys

        from workbench.textsafe import escape

        print(f"workbench gateway: {escape(line)}", file=sys.stderr, flush=True)


#: A placeholder event until the outcome is recorded (CallOutcome requires one).
_NO_EVENT: Any = None


def _change_line(changes: list[dict[str, Any]], released: list[str], held: list[str],
                 shown: list[str]) -> str:
    parts = []
    for change in changes:
        what = ", ".join(f"{key} {change[key]}" for key in ("added", "removed", "changed")
                         if change.get(key))
        parts.append(f"server {change.get('server')!r} changed its tools ({what})")
    if released:
        parts.append(f"approved since: {', '.join(released)}")
    if held:
        parts.append(f"held until approved: {', '.join(held)}")
    parts.append(f"the host is shown: {', '.join(shown) or 'no tools'}")
    return "; ".join(parts)


def call_result(outcome: CallOutcome) -> dict[str, Any]:
    """The ``tools/call`` result (wire form) the host gets for ``outcome``."""
    if outcome.ok:
        result = outcome.result or {}
        blocks = outcome.content
        if blocks is not None:
            return {"content": blocks, "isError": False}
        text = json.dumps(result, ensure_ascii=False, default=str)
        return {"content": [{"type": "text", "text": text}], "structuredContent": result,
                "isError": False}
    if outcome.denied or outcome.outcome == "not offered":
        text = outcome.message
    else:
        text = _error_text(outcome)
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _error_text(outcome: CallOutcome) -> str:
    kind, message = outcome.outcome, outcome.message
    if kind == "tool_error":
        return message  # the server's own isError text (or our schema check's)
    if kind == "protocol_error":
        return f"protocol_error: the server answered with a JSON-RPC error: {message}"
    if kind == "transport_error":
        return f"transport_error: {message}"
    if kind == "timeout":
        return f"timeout: {message}"
    return f"{kind}: {message}"
