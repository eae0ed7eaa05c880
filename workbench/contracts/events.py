"""Events: the unit of the ledger, the kind rule, and the hash that chains them.

An event's *content* (run_id, seq, tick, kind, actor, payload, caused_by) is deterministic:
the same scenario, seed and tick count give the same content on every machine and over
every transport. Its ``hash`` is sha256 over the previous event's hash and the canonical
JSON of its content, so changing any past event breaks every hash after it. Wall-clock
times, latencies and server names are telemetry and never enter the content.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, NamedTuple

import orjson

__all__ = [
    "CORE_KINDS",
    "GENESIS_HASH",
    "KIND_RE",
    "Event",
    "canonical_bytes",
    "canonical_json",
    "chain_hash",
    "check_kind",
]

#: Kinds are open, dot-namespaced and lowercase: ``oracle.spoke``, ``tool.called``.
KIND_RE = re.compile(r"\A[a-z][a-z0-9]*(\.[a-z][a-z0-9]*)+\Z")
KIND_RULE = "lowercase dot-separated words, each starting with a letter (like 'oracle.spoke')"

#: The hash the first event of every run chains from.
GENESIS_HASH = "0" * 64

#: Kinds the engine itself writes.
CORE_KINDS = (
    "run.started",
    "world.observed",
    "tool.called",
    "tool.denied",
    "tool.list_changed",
    "agent.failed",
    "governor.throttled",
    "run.finished",
)

_fallback = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode
_SORT = orjson.OPT_SORT_KEYS


def canonical_bytes(value: Any) -> bytes:
    """Canonical JSON as UTF-8 bytes: sorted keys, no spaces, non-ASCII kept.

    orjson writes it (about six times faster than the standard library, which matters
    for a ledger of millions of events); values orjson refuses (integers beyond 64 bits,
    non-string keys) fall back to the standard library. A given value always takes the
    same path, so its text and hash never change. NaN and infinities, which JSON lacks,
    are written as null.
    """
    try:
        return orjson.dumps(value, option=_SORT)
    except TypeError:
        return _fallback(value).encode("utf-8")


def canonical_json(value: Any) -> str:
    """:func:`canonical_bytes` as text: one text per value, whatever the key order."""
    return canonical_bytes(value).decode("utf-8")


def chain_hash(prev_hash: str | bytes, content: str | bytes) -> str:
    """sha256 hex of the previous hash followed by this event's canonical content."""
    if isinstance(prev_hash, str):
        prev_hash = prev_hash.encode("ascii")
    if isinstance(content, str):
        content = content.encode("utf-8")
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
