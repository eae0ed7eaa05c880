"""What resuming a run checks and re-derives: the start, replayed outcomes, failures.

:meth:`~workbench.engine.conductor.Conductor.resume` re-runs a killed run from its first
event without calling any tool: outcomes come from the ledger (marked :class:`Replayed`)
and every re-derived event must hash as recorded, else the run has :class:`Diverged`. A
call the intent log shows in flight at the kill is :class:`Interrupted` and recorded with
the :data:`INTERRUPTED` error. The ``run.started`` event a resume trusts for the scenario,
seed and ticks is checked field by field first (:func:`check_started`), so a crafted but
hash-valid ledger is refused with one line naming the field.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.agents.base import ManifestAgent
from workbench.contracts.events import RUN_STARTED, TOOL_CALLED, TOOL_DENIED, Event
from workbench.errors import (
    CapabilityViolation,
    LedgerError,
    ModelError,
    ToolCallError,
    ToolDenied,
)

__all__ = [
    "INTERRUPTED",
    "Diverged",
    "Interrupted",
    "Replayed",
    "ReplayedDenial",
    "ReplayedFailure",
    "check_started",
    "diverged",
    "diverged_in_flight",
    "failure_payload",
    "replayed_outcome",
]

class Replayed:
    """Marks an outcome re-derived from the ledger while resuming (nothing was called)."""


class ReplayedDenial(Replayed, ToolDenied):
    """A refusal re-derived from a recorded ``tool.denied``."""


class ReplayedFailure(Replayed, ToolCallError):
    """A failure re-derived from a recorded ``tool.called`` with an ``error``."""


class Diverged(LedgerError):
    """Resuming re-derived something other than what the ledger records."""


class Interrupted(Exception):  # noqa: N818 - a signal inside the conductor, not an error
    """Internal: this call was in flight when the run was killed; its outcome is unknown."""


#: The error recorded for a call in flight at a kill.
INTERRUPTED = {
    "kind": "interrupted",
    "message": "the call was in flight when the run was killed; whether it ran is unknown "
               "(resume with --retry-interrupted to send it again)",
}

def diverged(recorded: Event, found: str) -> Diverged:
    """The error for a re-derived event that is not the one ``recorded``."""
    return Diverged(
        f"cannot resume: at seq {recorded.seq} the ledger has {recorded.kind} by "
        f"{recorded.actor}, but the current config gives {found}. The manifests, the "
        f"scenario or the tools changed since the run started; resume with the same "
        f"config, or start a new run"
    )


def diverged_in_flight(intent: Any, found: str) -> Diverged:
    """The error for a resume that does not re-derive the call in flight at the kill."""
    return Diverged(
        f"cannot resume: a call of {intent.tool!r} by {intent.agent} (seq {intent.seq}) "
        f"was in flight when the run was killed, but the current config gives {found}. "
        f"Resume with the same config, or start a new run"
    )


#: The fields a ``run.started`` payload has.
_STARTED_FIELDS = ("cast", "scenario", "seed", "ticks")


def failure_payload(exc: Exception, agent: ManifestAgent) -> dict[str, Any]:
    """The ``agent.failed`` payload: the error's message, never its operator hint."""
    if isinstance(exc, ReplayedFailure):
        # Resumed mid-activation: the words the live exception would have had.
        exc = ToolCallError(exc.kind, exc.message, exc.tool)
    elif isinstance(exc, ReplayedDenial):
        if exc.reason == CapabilityViolation.reason_code:
            exc = CapabilityViolation(exc.agent, exc.tool, list(agent.manifest.tools))
        else:
            exc = ToolDenied(exc.agent, exc.tool, exc.reason, detail=exc.detail)
    if isinstance(exc, ModelError):  # its kind says what failed: model_error, timeout...
        return {"error": "ModelError", "kind": exc.kind, "message": exc.message}
    message = str(exc)
    hint = getattr(exc, "operator_hint", "")
    if hint and message.endswith(f" ({hint})"):
        # Log paths carry a pid: shown to the operator, never hashed.
        message = message[: -len(hint) - 3]
    return {"error": type(exc).__name__, "message": message}


def check_started(path: str | Path, events: list[Event]) -> Event:
    """The ``run.started`` event a resume starts from, checked field by field.

    Raises:
        LedgerError: there is none, or a field is missing, of the wrong type or unknown.
    """
    if not events:
        raise LedgerError(f"{path}: holds no event: the run was killed before it started, "
                          f"so nothing happened; start it again with `workbench run` (it "
                          f"takes over an empty ledger file)")
    first = events[0]
    if first.kind != RUN_STARTED:
        raise LedgerError(f"{path}: no run.started event at the start; only a ledger "
                          f"written by a run can be resumed")
    payload = first.payload
    where = f"{path}:1: run.started payload"
    if not isinstance(payload, dict):
        raise LedgerError(f"{where} is {type(payload).__name__}; it must be an object with "
                          f"{', '.join(_STARTED_FIELDS)}")
    unknown = sorted(set(map(str, payload)) - set(_STARTED_FIELDS))
    if unknown:
        raise LedgerError(f"{where}: unknown field {unknown[0]!r}; allowed: "
                          f"{', '.join(_STARTED_FIELDS)}")
    for name in _STARTED_FIELDS:
        if name not in payload:
            raise LedgerError(f"{where}: {name} is missing")
    checks = {
        "scenario": (lambda v: isinstance(v, str) and v != "", "a scenario name"),
        "seed": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
        "ticks": (lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
                  "an integer >= 0"),
        "cast": (lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v),
                 "a list of agent names"),
    }
    for name, (ok, allowed) in checks.items():
        if not ok(payload[name]):
            raise LedgerError(f"{where}: {name} is {payload[name]!r:.60}; it must be {allowed}")
    return first


def replayed_outcome(recorded: Event, agent: ManifestAgent, tool: str,
                     diverged: Callable[[Event, str], LedgerError]) -> dict[str, Any]:
    """While resuming: the recorded outcome of a call (nothing is called).

    Returns the recorded result, or raises what the call raised: :class:`ReplayedDenial`,
    :class:`ReplayedFailure`, or :class:`Interrupted`.

    Raises:
        LedgerError: from ``diverged(recorded, found)``: the call is not what the ledger
            records next, or the recorded outcome is malformed.
    """
    payload = recorded.payload if isinstance(recorded.payload, dict) else {}
    if recorded.kind == TOOL_CALLED and tool not in agent.manifest.tools:
        # The grant check is pure: run it, so a grant taken away since is caught here.
        raise diverged(recorded, f"a call of {tool!r} by {agent.name} that its manifest "
                       f"no longer grants")
    if payload.get("tool") != tool or recorded.kind not in (TOOL_CALLED, TOOL_DENIED):
        raise diverged(recorded, f"a call of {tool!r} by {agent.name}")
    error = payload.get("error")
    try:
        if recorded.kind == TOOL_DENIED:
            raise ReplayedDenial(agent.name, tool, str(payload["reason"]),
                                 detail=str(payload.get("detail", "")))
        if error is not None:
            if error.get("kind") == "interrupted":
                raise Interrupted
            raise ReplayedFailure(error["kind"], str(error["message"]), tool)
        result = payload["result"]
    except (KeyError, TypeError, AttributeError, ValueError):
        raise diverged(recorded, f"a call of {tool!r} by {agent.name} (the recorded outcome "
                       f"is malformed)") from None
    if not isinstance(result, dict):
        raise diverged(recorded, f"a call of {tool!r} by {agent.name} (the recorded result "
                       f"is not an object)")
    return result
