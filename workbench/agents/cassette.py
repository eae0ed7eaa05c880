"""Cassettes: a live model's answers recorded once, replayed offline byte for byte.

A cassette is a JSONL file, one exchange a line, keyed by a fingerprint of the canonical
request (the Chat Completions body: model, messages, tools, temperature)::

    {"fingerprint": "9f2c...", "agent": "clerk", "tick": 1, "request": {...},
     "response": {...the response body as the server sent it...}}

A call that failed for good (after retries) is recorded too, as ``"error": {"kind",
"message"}``, so a replay fails the same turn the same way. Replaying never touches the
network and gives the byte-identical ledger; a request the cassette does not hold is a
:class:`~workbench.errors.CassetteMiss` that ends the run with one line naming the agent
and tick. No API key is ever in a request body, so none is ever in a cassette.

Modes: ``auto`` replays when the file exists and records when it does not; ``record``
starts the file afresh; ``replay`` requires it.

Example:
    >>> c = Cassette("run.cassette.jsonl", mode="record")  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from pathlib import Path
from typing import IO, Any

from workbench.contracts.events import canonical_bytes
from workbench.errors import CassetteMiss, ConfigError

__all__ = ["CASSETTE_MODES", "Cassette", "fingerprint"]

#: What ``mode`` may be.
CASSETTE_MODES = ("auto", "record", "replay")


def fingerprint(body: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a request body: equal requests, equal fingerprints."""
    return hashlib.sha256(canonical_bytes(body)).hexdigest()


class Cassette:
    """One cassette file, open for recording or replaying.

    Args:
        path: The JSONL file.
        mode: One of :data:`CASSETTE_MODES`.

    Attributes:
        mode: ``record`` or ``replay`` (``auto`` resolved when opened).
        hits: Requests answered from the cassette so far.

    Raises:
        ConfigError: unknown mode, a missing file to replay, or a line that is not an
            exchange (naming the file and line).
    """

    def __init__(self, path: str | Path, mode: str = "auto"):
        if mode not in CASSETTE_MODES:
            raise ConfigError(path, "cassette_mode", f"{mode!r} is not a cassette mode; "
                              f"allowed: {', '.join(CASSETTE_MODES)}")
        self.path = Path(path)
        if mode == "auto":
            mode = "replay" if self.path.exists() else "record"
        self.mode = mode
        self.hits = 0
        self._recorded = 0
        self._exchanges: dict[str, deque[dict[str, Any]]] = {}
        self._last: dict[str, dict[str, Any]] = {}
        self._fh: IO[str] | None = None
        if mode == "replay":
            self._load()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "w", encoding="utf-8")

    def __repr__(self) -> str:
        return f"Cassette({str(self.path)!r}, mode={self.mode!r}, exchanges={len(self)})"

    def __len__(self) -> int:
        if self.mode == "record":
            return self._recorded
        return sum(len(q) for q in self._exchanges.values()) + self.hits

    @property
    def replaying(self) -> bool:
        """True when answers come from the file and nothing goes to the network."""
        return self.mode == "replay"

    def _load(self) -> None:
        if not self.path.exists():
            raise ConfigError(self.path, "", "no such cassette to replay; record one first "
                              "(--cassette-mode record, or leave the mode at auto)")
        with open(self.path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    exchange = json.loads(line)
                    key = exchange["fingerprint"]
                    if ("response" in exchange) == ("error" in exchange):
                        raise KeyError("response or error")
                except (ValueError, KeyError, TypeError) as exc:
                    raise ConfigError(self.path, f"line {number}", (
                        f"not a cassette exchange ({exc}); each line holds fingerprint, "
                        f"request and response or error. Re-record the cassette")) from None
                self._exchanges.setdefault(key, deque()).append(exchange)

    def lookup(self, body: dict[str, Any], agent: str, tick: int) -> dict[str, Any]:
        """The recorded exchange for ``body``: its ``response`` or ``error``.

        Identical requests are answered in the order they were recorded; once those run
        out, the last answer is given again.

        Raises:
            CassetteMiss: nothing recorded for this request.
        """
        key = fingerprint(body)
        queue = self._exchanges.get(key)
        if queue:
            exchange = queue.popleft()
            self._last[key] = exchange
        elif key in self._last:
            exchange = self._last[key]
        else:
            raise CassetteMiss(self.path, agent, tick)
        self.hits += 1
        return exchange

    def record(self, body: dict[str, Any], agent: str, tick: int, *,
               response: dict[str, Any] | None = None,
               error: dict[str, str] | None = None) -> None:
        """Append one exchange (a response, or the error the call ended with)."""
        if self._fh is None:
            raise ValueError(f"cassette {self.path} is open for {self.mode}, not record")
        exchange: dict[str, Any] = {"fingerprint": fingerprint(body), "agent": agent,
                                    "tick": tick, "request": body}
        if error is not None:
            exchange["error"] = error
        else:
            exchange["response"] = response
        self._fh.write(json.dumps(exchange, ensure_ascii=False, sort_keys=True) + "\n")
        self._fh.flush()  # an interrupted recording keeps every finished exchange
        self._recorded += 1

    def close(self) -> None:
        """Close the file (safe to call twice)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None
