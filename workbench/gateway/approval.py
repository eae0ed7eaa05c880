"""Approval through the host: ``--approve`` first, then the person, asked by MCP elicitation.

The rule of when a call needs a yes is the run's (:mod:`workbench.surface.approval`:
anything not read-only on a trusted server); the scenario's registry applies it with its
:class:`~workbench.surface.approval.ApprovalGuard`. The gateway's part is the approver
that guard calls, :class:`GatewayApprover`:

1. ``--approve TOOL`` (or ``SERVER:TOOL``, or ``*``) lets the call through, bound to one
   server as in a run (:class:`~workbench.surface.approval.ApprovalPolicy`);
2. else, when the host declared the elicitation capability, the person is asked through
   the host: the tool, its server, the arguments and why it needs a yes, each escaped
   (server text, a model's arguments), with one yes/no field. Only ``accept`` with
   ``approve: true`` is a yes; a decline, a cancel, a timeout or a host error is a no;
3. else the call is refused (``not approved``).

An answer (from ``--approve`` or from the person) is recorded as ``approval.answered``
before the call's own event. Hosts on the 2025-11-25 protocol are asked with an
``elicitation/create`` request while the call waits; 2026-07-28 hosts have no such
back-channel, so the call returns an ``input_required`` result carrying the question and
an opaque state, and the host retries the call with the answer (:class:`PendingApprovals`
binds the state to the tool and its exact arguments, once).
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import hashlib
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from workbench.contracts.canonical import canonical_json
from workbench.surface.approval import ApprovalPolicy, ApprovalRequest
from workbench.textsafe import clip, escape
from workbench.tools.mcp.settings import env_number

__all__ = [
    "ANSWER_KEY",
    "APPROVAL_TIMEOUT",
    "MAX_PENDING",
    "MAX_SHOWN_ARGUMENTS",
    "REQUESTED_SCHEMA",
    "Answer",
    "GatewayApprover",
    "NeedsAnswer",
    "PendingApprovals",
    "answer_of",
    "approval_timeout",
    "question",
]

#: Seconds a person has to answer (``WORKBENCH_GATEWAY_APPROVAL_TIMEOUT``). The call waits
#: that long (a 2026-07-28 host's retry may come that late); a person reads the question
#: and decides within minutes, and an unanswered question must not hold a call for good.
APPROVAL_TIMEOUT = 300.0
#: Questions a 2026-07-28 host may leave unanswered at once: each holds a few hundred bytes
#: until answered or :data:`APPROVAL_TIMEOUT` passes; past the cap the oldest is dropped
#: (its retry is asked again). A person answers one question at a time.
MAX_PENDING = 64
#: Characters of the arguments the question shows: enough to read any call a person can
#: judge, and the question must fit in a host's dialog (the rest is marked as cut).
MAX_SHOWN_ARGUMENTS = 2000
#: The key of the one input request in an ``input_required`` result.
ANSWER_KEY = "approval"
#: The form the person fills in: one boolean, no by default.
REQUESTED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approve": {"type": "boolean", "title": "Approve this call",
                               "description": "Yes lets this one call through.",
                               "default": False}},
    "required": ["approve"],
}


def approval_timeout(env: Mapping[str, str] | None = None) -> float:
    """``WORKBENCH_GATEWAY_APPROVAL_TIMEOUT`` in seconds, or :data:`APPROVAL_TIMEOUT`."""
    return env_number(os.environ if env is None else env,
                      "WORKBENCH_GATEWAY_APPROVAL_TIMEOUT", APPROVAL_TIMEOUT)


@dataclass(frozen=True)
class Answer:
    """What the person said.

    Attributes:
        approved: Whether the call may go through.
        action: ``accept``, ``decline``, ``cancel`` or ``no answer`` (timeout, host error).
        detail: Why there was no answer, when there was none.
    """

    approved: bool
    action: str
    detail: str = ""


class NeedsAnswer(Exception):  # noqa: N818 - a signal to the server, not an error
    """The host must be asked and the call retried (2026-07-28 hosts); nothing was sent."""

    def __init__(self, request: ApprovalRequest):
        super().__init__(request.tool)
        self.request = request


def question(request: ApprovalRequest) -> str:
    """The question a person is asked, every part that came from outside escaped."""
    shown = clip(canonical_json(dict(request.params)), MAX_SHOWN_ARGUMENTS)
    return (f"{escape(request.agent)} wants to call {escape(request.tool)} on server "
            f"{escape(request.server)} with arguments {escape(shown)}. It needs your yes "
            f"because {escape(request.why)}. Approve this one call?")


def answer_of(result: Any) -> Answer:
    """An :class:`Answer` from an ``ElicitResult`` (the SDK model or its wire dict)."""
    if isinstance(result, Mapping):
        action, content = result.get("action"), result.get("content")
    else:
        action, content = getattr(result, "action", None), getattr(result, "content", None)
    if action == "accept":
        approved = isinstance(content, Mapping) and content.get("approve") is True
        return Answer(approved, "accept")
    if action in ("decline", "cancel"):
        return Answer(False, str(action))
    return Answer(False, "no answer", f"the host answered with action {action!r}")


#: ``ask(request) -> Answer``: how one call asks its person (None: nobody can be asked).
Asker = Callable[[ApprovalRequest], Answer]


class GatewayApprover:
    """The approver the scenario's approval guard calls, for every call of the gateway.

    Args:
        allow: ``--approve`` entries (``TOOL``, ``SERVER:TOOL`` or ``*``).

    The call path sets, for the call running in this context (a worker thread's call, or
    one task on the serving loop), how to ask (:meth:`asking`) and where to record the
    answer.
    """

    def __init__(self, allow: Iterable[str] = ()):
        self.policy = ApprovalPolicy(allow=allow)
        # A context variable, not a thread-local: calls on the serving loop are tasks of one
        # thread, each with its own asker; a worker thread runs in a copy of its caller's.
        self._call: contextvars.ContextVar[tuple[Asker | None, Callable[[dict[str, Any]], Any]]
                                           | None] = contextvars.ContextVar("approval_call",
                                                                           default=None)

    @contextlib.contextmanager
    def asking(self, ask: Asker | None, record: Callable[[dict[str, Any]], Any]
               ) -> Iterator[None]:
        """Within the block, this context's call asks with ``ask`` and records with ``record``."""
        token = self._call.set((ask, record))
        try:
            yield
        finally:
            self._call.reset(token)

    def __call__(self, request: ApprovalRequest) -> bool:
        """Say yes or no to ``request`` (may raise :class:`NeedsAnswer`)."""
        ask, record = self._call.get() or (None, None)
        if self.policy(request):
            if record is not None:
                record(_payload(request, Answer(True, "accept"), "--approve"))
            return True
        if ask is None:
            return False
        answer = ask(request)
        if record is not None:
            record(_payload(request, answer, "elicitation"))
        return answer.approved


def _payload(request: ApprovalRequest, answer: Answer, by: str) -> dict[str, Any]:
    payload: dict[str, Any] = {"tool": request.tool, "server": request.server,
                               "params": dict(request.params), "why": request.why,
                               "approved": answer.approved, "answer": answer.action, "by": by}
    if answer.detail:
        payload["detail"] = answer.detail
    return payload


def _digest(tool: str, params: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical_json({"tool": tool, "params": dict(params)})
                          .encode("utf-8")).hexdigest()


class PendingApprovals:
    """Questions put to 2026-07-28 hosts, each bound to one call, until its retry comes.

    The state a host echoes is attacker-controlled: it is a random token, and the answer it
    carries counts only for the tool and the exact arguments the question was about, once.

    Args:
        timeout: Seconds a question waits for its retry.
        cap: Questions kept at once (the oldest is dropped past it).
    """

    def __init__(self, timeout: float = APPROVAL_TIMEOUT, cap: int = MAX_PENDING):
        self.timeout = timeout
        self.cap = cap
        self._lock = threading.Lock()
        self._open: collections.OrderedDict[str, tuple[str, float]] = collections.OrderedDict()

    def ask(self, request: ApprovalRequest) -> dict[str, Any]:
        """The ``input_required`` result (wire form) that asks ``request``'s question."""
        token = secrets.token_urlsafe(18)
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            while len(self._open) >= self.cap:
                self._open.popitem(last=False)
            self._open[token] = (_digest(request.tool, request.params), now)
        elicit = {"method": "elicitation/create", "params": {
            "mode": "form", "message": question(request), "requestedSchema": REQUESTED_SCHEMA}}
        return {"resultType": "input_required", "inputRequests": {ANSWER_KEY: elicit},
                "requestState": token}

    def answer(self, tool: str, params: Mapping[str, Any], state: str | None,
               responses: Mapping[str, Any] | None) -> Answer | None:
        """The answer a retry carries for ``tool(params)``, or None (ask again).

        None when there is no state, the state is unknown, expired or was for another
        call, or the host sent no answer under :data:`ANSWER_KEY`. A state counts once.
        """
        if not state or not responses or ANSWER_KEY not in responses:
            return None
        with self._lock:
            self._expire(time.monotonic())
            found = self._open.pop(state, None)
        if found is None or found[0] != _digest(tool, params):
            return None
        return answer_of(responses[ANSWER_KEY])

    def __len__(self) -> int:
        with self._lock:
            return len(self._open)

    def _expire(self, now: float) -> None:
        while self._open:
            token, (_, asked) = next(iter(self._open.items()))
            if now - asked <= self.timeout:
                break
            del self._open[token]
