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
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CORE_KINDS",
    "GENESIS_HASH",
    "KIND_RE",
    "Event",
    "canonical_json",
    "chain_hash",
    "check_kind",
]

#: Kinds are open, dot-namespaced and lowercase: ``oracle.spoke``, ``tool.called``.
KIND_RE = re.compile(r"^[a-z][a-z0-9]*(\.[a-z][a-z0-9]*)+$")
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

_dumps = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode


def canonical_json(value: Any) -> str:
    """JSON with sorted keys, no spaces, UTF-8 kept, NaN refused: one text per value."""
    return _dumps(value)


def chain_hash(prev_hash: str, content: str) -> str:
    """sha256 hex of the previous hash followed by this event's canonical content."""
    return hashlib.sha256((prev_hash + content).encode("utf-8")).hexdigest()


def check_kind(kind: object) -> bool:
    """True if ``kind`` follows the kind rule."""
    return isinstance(kind, str) and KIND_RE.match(kind) is not None


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of a run's ledger.

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
