"""Events: the unit of the ledger, the kind rule, and the hash that chains them.

An event's *content* (run_id, seq, tick, kind, actor, payload, caused_by) is deterministic:
the same scenario, seed and tick count give the same content on every machine and over
every transport. Its ``hash`` is sha256 over the previous event's hash and the canonical
JSON of its content, so changing any past event breaks every hash after it. Wall-clock
times, latencies and server names are telemetry and never enter the content.

How an event reads as one line (:func:`summarize`, :func:`memory_line`) and the payloads of
the calls the engine records (:func:`called_payload`, :func:`denied_payload`) live here
too, so every writer and reader of the ledger spells them one way. Content is written in
the canonical encoding (:mod:`workbench.contracts.canonical`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from workbench.contracts.canonical import canonical_json

__all__ = [
    "AGENT_FAILED",
    "CORE_KINDS",
    "GENESIS_HASH",
    "GOVERNOR_THROTTLED",
    "KIND_RE",
    "KIND_RULE",
    "RUN_FINISHED",
    "RUN_STARTED",
    "TOOL_CALLED",
    "TOOL_DENIED",
    "TOOL_LIST_CHANGED",
    "WORLD_OBSERVED",
    "Event",
    "called_payload",
    "chain_hash",
    "check_kind",
    "denied_payload",
    "memory_line",
    "summarize",
]

#: Kinds are open, dot-namespaced and lowercase: ``oracle.spoke``, ``tool.called``.
KIND_RE = re.compile(r"\A[a-z][a-z0-9]*(\.[a-z][a-z0-9]*)+\Z")
KIND_RULE = "lowercase dot-separated words, each starting with a letter (like 'oracle.spoke')"

#: The hash the first event of every run chains from.
GENESIS_HASH = "0" * 64

#: The kinds the engine itself writes, by name: the one spelling of each in the package.
RUN_STARTED = "run.started"
WORLD_OBSERVED = "world.observed"
TOOL_CALLED = "tool.called"
TOOL_DENIED = "tool.denied"
TOOL_LIST_CHANGED = "tool.list_changed"
AGENT_FAILED = "agent.failed"
GOVERNOR_THROTTLED = "governor.throttled"
RUN_FINISHED = "run.finished"
#: Kinds the engine itself writes.
CORE_KINDS = (RUN_STARTED, WORLD_OBSERVED, TOOL_CALLED, TOOL_DENIED, TOOL_LIST_CHANGED,
              AGENT_FAILED, GOVERNOR_THROTTLED, RUN_FINISHED)


def chain_hash(prev_hash: str | bytes, content: str | bytes, key: bytes | None = None) -> str:
    """sha256 hex of the previous hash followed by this event's canonical content.

    With ``key`` it is HMAC-SHA256 under that key instead (a keyed chain: without the key
    nobody can re-hash a changed ledger into one that verifies).
    """
    if isinstance(prev_hash, str):
        prev_hash = prev_hash.encode("ascii")
    if isinstance(content, str):
        content = content.encode("utf-8")
    if key is not None:
        return hmac.new(key, prev_hash + content, hashlib.sha256).hexdigest()
    return hashlib.sha256(prev_hash + content).hexdigest()


def check_kind(kind: object) -> bool:
    """True if ``kind`` follows the kind rule."""
    return isinstance(kind, str) and KIND_RE.match(kind) is not None


class Event(NamedTuple):
    """One entry of a run's ledger (immutable; a named tuple because runs make millions).

    Attributes:
        run_id: Deterministic run name (``<scenario>:<seed>``).
        seq: 0-based position in the run.
        tick: The tick it happened in (0 for genesis).
        kind: What happened, by the kind rule.
        actor: Who did it (an agent name, ``world`` or ``conductor``).
        payload: JSON-serialisable details.
        caused_by: ``seq`` of the event that triggered it, or None.
        hash: Chain hash over the previous hash and this event's content.
    """

    run_id: str
    seq: int
    tick: int
    kind: str
    actor: str
    payload: dict[str, Any]
    caused_by: int | None
    hash: str

    def content(self) -> dict[str, Any]:
        """The hashed fields, as a dict."""
        return {
            "actor": self.actor,
            "caused_by": self.caused_by,
            "kind": self.kind,
            "payload": self.payload,
            "run_id": self.run_id,
            "seq": self.seq,
            "tick": self.tick,
        }

    def to_dict(self) -> dict[str, Any]:
        """Content plus hash, as a dict (the JSONL line's fields)."""
        data = self.content()
        data["hash"] = self.hash
        return data

    def summary(self, limit: int = 160) -> str:
        """The event as one short text (see :func:`summarize`)."""
        return summarize(self, limit)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """Build an event from :meth:`to_dict` output (no verification)."""
        return cls(
            run_id=data["run_id"],
            seq=data["seq"],
            tick=data["tick"],
            kind=data["kind"],
            actor=data["actor"],
            payload=data["payload"],
            caused_by=data["caused_by"],
            hash=data["hash"],
        )


def called_payload(tool: str, params: Mapping[str, Any], *, result: Any = None,
                   error: Mapping[str, Any] | None = None, retry_of: int | None = None,
                   arguments: str | None = None) -> dict[str, Any]:
    """The payload of a ``tool.called`` event: the tool, its params, and what came of it.

    One constructor for every writer (a run, a resume, a call by hand, the gateway), so
    "recorded exactly as a run" holds by construction.

    Args:
        tool: The tool's name.
        params: The arguments sent.
        result: What the tool returned (when it did not fail).
        error: ``{"kind", "message"}`` when it failed (see ``TOOL_ERROR_KINDS``).
        retry_of: The seq of the failed call this one sends again.
        arguments: A model's arguments as it wrote them, when they could not be read
            (the call was then not made, and ``params`` is empty).

    Example:
        >>> called_payload("oracle", {"seed": "dawn"}, result={"omen": "rain"})
        {'tool': 'oracle', 'params': {'seed': 'dawn'}, 'result': {'omen': 'rain'}}
    """
    payload: dict[str, Any] = {"tool": tool, "params": params}
    if retry_of is not None:
        payload["retry_of"] = retry_of
    if arguments is not None:
        payload["arguments"] = arguments
    if error is not None:
        payload["error"] = dict(error)
    else:
        payload["result"] = result
    return payload


def denied_payload(tool: str, params: Mapping[str, Any], *, reason: str,
                   detail: str | None = None, retry_of: int | None = None) -> dict[str, Any]:
    """The payload of a ``tool.denied`` event: the tool, its params and why it was refused.

    ``reason`` is the category programs match (``not granted``, ``not approved``, ``pin
    drift``, ``hidden by curation``, ``budget exhausted``); ``detail``, when there is one,
    says which and what to do.
    """
    payload: dict[str, Any] = {"tool": tool, "params": params}
    if retry_of is not None:
        payload["retry_of"] = retry_of
    payload["reason"] = reason
    if detail:
        payload["detail"] = detail
    return payload


def summarize(event: Event, limit: int = 160) -> str:
    """A short text for an event: its ``text``, ``omen`` or compact payload."""
    payload = event.payload
    text = payload.get("text") or payload.get("omen")
    if not isinstance(text, str):
        if event.kind in (TOOL_CALLED, TOOL_DENIED):
            text = f"{payload.get('tool')} -> {_outcome(payload)}"
        elif event.kind == AGENT_FAILED and isinstance(payload.get("message"), str):
            text = f"{payload.get('error', 'error')}: {payload['message']}"
        else:
            text = canonical_json(payload)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _outcome(payload: dict[str, Any]) -> str:
    """What a call came to: the refusal, the error, or what the tool returned."""
    error = payload.get("error")
    if payload.get("reason") or error:
        reason = payload.get("reason")
        return str(reason) if reason else f"{error.get('kind')}: {error.get('message', '')}"
    result = payload.get("result")
    if isinstance(result, dict) and result:
        # Text fields first, then by key: a result read back from a ledger file has its
        # keys sorted, and the summary (which reaches prompts) must not depend on it.
        items = sorted(result.items(), key=lambda kv: (not isinstance(kv[1], str), kv[0]))
        return " | ".join(f"{k}: {v if isinstance(v, str | int | float) else canonical_json(v)}"
                          for k, v in items)
    return "ok" if result in (None, {}) else canonical_json(result)


def memory_line(event: Event) -> str:
    """How an event appears in an agent's RECENT EVENTS."""
    return f"[t{event.tick}] {event.actor} {event.kind}: {summarize(event)}"
