"""Cassettes: a live model's answers recorded once, replayed offline byte for byte.

A cassette is a JSONL file, one exchange a line, keyed by a fingerprint of the canonical
request (the Chat Completions body: model, messages, tools, temperature)::

    {"fingerprint": "9f2c...", "agent": "clerk", "tick": 1, "request": {...},
     "response": {...the response body as the server sent it, redacted...}}

A call that failed for good (after retries), or whose reply failed the checks, is
recorded too, as ``"error": {"kind", "message"}``, so a replay fails the same turn the
same way. Replaying never touches the network and gives the byte-identical ledger; a
request the cassette does not hold is a :class:`~workbench.errors.CassetteMiss` that ends
the run with one line naming the agent and tick. The model hands the cassette the whole
exchange already redacted (request, response, error), so a key a server echoed is never
written, and requests are fingerprinted as redacted.

Modes: ``auto`` replays when the file exists and records when it does not; ``record``
starts the file afresh; ``replay`` requires it.

One recorder per file: recording takes an advisory lock (``flock``, as the ledger's one
writer does) *before* the file is emptied, and holds it until :meth:`Cassette.close`, so a
second recording of the same cassette is refused at once with one line and never cuts
the first one's file.

A cassette may come from anyone, so nothing in it is trusted: each line is read with a
cap (:data:`LINE_BYTES`), must be UTF-8 JSON, an object, with a sha256 ``fingerprint``,
an object ``request`` and exactly one of an object ``response`` or an ``error`` with a
known ``kind`` and a text ``message``; anything else is one
:class:`~workbench.errors.ConfigError` naming the file, the line and the field. The
replies it holds go through the same checks as a live server's
(:mod:`workbench.agents.replies`), so a hostile response replays as a ``model_error``.

==================================  ========  ======================================
variable                            default   what it bounds
==================================  ========  ======================================
``WORKBENCH_CASSETTE_LINE_BYTES``   64 MiB    one cassette line (one exchange)
==================================  ========  ======================================

Example:
    >>> c = Cassette("run.cassette.jsonl", mode="record")  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import deque
from pathlib import Path
from typing import IO, Any

from workbench.agents.replies import REPLY_DEPTH, depth, kind_of
from workbench.contracts.canonical import canonical_bytes
from workbench.errors import MODEL_ERROR_KINDS, CassetteMiss, ConfigError
from workbench.tools.mcp.settings import env_number

try:  # advisory locks; absent on Windows, where a second recorder is not detected
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = ["CASSETTE_MODES", "LINE_BYTES", "LINE_BYTES_ENV", "Cassette", "fingerprint"]

#: What ``mode`` may be.
CASSETTE_MODES = ("auto", "record", "replay")
#: Bytes of one cassette line: a request (the whole conversation, tool results included,
#: each bounded by its own cap) and a reply of at most the wire's cap; a line past this
#: is refused before it is held in memory.
LINE_BYTES = 64 << 20
#: The environment variable that changes :data:`LINE_BYTES`.
LINE_BYTES_ENV = "WORKBENCH_CASSETTE_LINE_BYTES"
_DIGEST = re.compile(r"[0-9a-f]{64}")


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
            self._fh = _open_for_recording(self.path)

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
        limit = int(env_number(os.environ, LINE_BYTES_ENV, LINE_BYTES))
        from workbench._files import open_regular

        with os.fdopen(open_regular(self.path, "a cassette (JSONL)"), "rb") as fh:
            number = 0
            while raw := fh.readline(limit + 1):  # never more than the cap in memory
                number += 1
                if len(raw) > limit:
                    raise ConfigError(self.path, "", f"the line is over {limit} bytes "
                                      f"(the cap is {LINE_BYTES_ENV}); re-record the "
                                      f"cassette, or raise the cap if it is yours", number)
                if not raw.strip():
                    continue
                try:
                    key, exchange = _exchange(raw)
                except _Bad as bad:
                    raise ConfigError(self.path, bad.field, (
                        f"{bad.problem}; each line is one exchange (fingerprint, request, "
                        f"and response or error): re-record the cassette"), number) from None
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


class _Bad(Exception):
    """A cassette line that is not an exchange: the field at fault and what is wrong."""

    def __init__(self, field: str, problem: str):
        super().__init__(problem)
        self.field = field
        self.problem = problem


def _exchange(raw: bytes) -> tuple[str, dict[str, Any]]:
    """One line's fingerprint and what a replay needs of it (its response or error).

    Raises:
        _Bad: the line is not an exchange.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Bad("", f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column "
                   f"{exc.start + 1})") from None
    try:
        exchange = json.loads(text)
    except RecursionError:
        raise _Bad("", f"nested deeper than {REPLY_DEPTH} levels") from None
    except ValueError as exc:
        raise _Bad("", f"not JSON ({getattr(exc, 'msg', exc)})") from None
    if not isinstance(exchange, dict):
        raise _Bad("", f"{kind_of(exchange)}, not an object")
    key = exchange.get("fingerprint")
    if not isinstance(key, str) or not _DIGEST.fullmatch(key):
        shown = repr(key[:16]) if isinstance(key, str) else kind_of(key)
        raise _Bad("fingerprint", f"is {shown}, not a sha256 digest (64 hex digits)")
    if not isinstance(exchange.get("request", {}), dict):
        raise _Bad("request", f"is {kind_of(exchange['request'])}, not an object")
    if ("response" in exchange) == ("error" in exchange):
        which = "both" if "response" in exchange else "neither"
        raise _Bad("", f"holds {which} response and error; exactly one is allowed")
    if "response" in exchange:
        response = exchange["response"]
        if not isinstance(response, dict):
            raise _Bad("response", f"is {kind_of(response)}, not an object")
        if depth(response, REPLY_DEPTH) > REPLY_DEPTH:
            raise _Bad("response", f"is nested deeper than {REPLY_DEPTH} levels")
        return key, {"response": response}
    error = exchange["error"]
    if not isinstance(error, dict):
        raise _Bad("error", f"is {kind_of(error)}, not an object")
    if not isinstance(error.get("kind"), str) or error["kind"] not in MODEL_ERROR_KINDS:
        shown = repr(error["kind"]) if isinstance(error.get("kind"), str) else \
            kind_of(error.get("kind"))
        raise _Bad("error.kind", f"is {shown[:40]}; allowed: {', '.join(MODEL_ERROR_KINDS)}")
    if not isinstance(error.get("message"), str):
        raise _Bad("error.message", f"is {kind_of(error.get('message'))}, not text")
    return key, {"error": {"kind": error["kind"], "message": error["message"]}}


def _open_for_recording(path: Path) -> IO[str]:
    """Open ``path`` to record into: locked first, emptied only once the lock is held.

    Raises:
        ConfigError: another recording holds the cassette's lock.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    # No O_TRUNC: truncating before the lock is held would cut another recorder's file.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ConfigError(path, "", "is being recorded by another run (it holds "
                                  "the cassette's lock); wait for it to end (or close "
                                  "its Cassette), or record to another path") from None
        os.ftruncate(fd, 0)
        return os.fdopen(fd, "w", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise
