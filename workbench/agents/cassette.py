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

A cassette may begin with one provenance line, ``{"provenance": {...}}``: what made it
(for a real model, its name, file, sha256, quantisation, licence, chat format and the
parser of tool calls written in text). Its values are short scalars; a replay reads the
parser from it (:attr:`Cassette.provenance`). An exchange may carry the ``prompt`` the
server rendered from its request (``{"format", "text"}``), recorded to show what the model
was really given; replay never depends on it.

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

__all__ = ["CASSETTE_MODES", "LINE_BYTES", "LINE_BYTES_ENV", "PROVENANCE_CHARS", "Cassette",
           "fingerprint"]

#: What ``mode`` may be.
CASSETTE_MODES = ("auto", "record", "replay")
#: Bytes of one cassette line: a request (the whole conversation, tool results included,
#: each bounded by its own cap) and a reply of at most the wire's cap; a line past this
#: is refused before it is held in memory.
LINE_BYTES = 64 << 20
#: The environment variable that changes :data:`LINE_BYTES`.
LINE_BYTES_ENV = "WORKBENCH_CASSETTE_LINE_BYTES"
#: Characters of one provenance value (a model's name, a licence, a file's digest).
PROVENANCE_CHARS = 400
#: Entries in a provenance line.
_PROVENANCE_KEYS = 32
_DIGEST = re.compile(r"[0-9a-f]{64}")
_PROVENANCE_LINE = re.compile(rb'\s*\{\s*"provenance"\s*:')


def fingerprint(body: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a request body: equal requests, equal fingerprints."""
    return hashlib.sha256(canonical_bytes(body)).hexdigest()


class Cassette:
    """One cassette file, open for recording or replaying.

    Args:
        path: The JSONL file.
        mode: One of :data:`CASSETTE_MODES`.
        provenance: Recording: what made the cassette, written as its first line.
        annotate: Recording: extra fields for each exchange, from its request (the
            recorder uses it to keep the prompt the server rendered).

    Attributes:
        mode: ``record`` or ``replay`` (``auto`` resolved when opened).
        hits: Requests answered from the cassette so far.
        provenance: What made it (empty when the cassette does not say).
        entries: Replaying: every exchange's agent, tick, request and recorded prompt,
            in file order (for views of what a model was sent).

    Raises:
        ConfigError: unknown mode, a missing file to replay, or a line that is not an
            exchange (naming the file and line).
    """

    def __init__(self, path: str | Path, mode: str = "auto", *,
                 provenance: dict[str, Any] | None = None,
                 annotate: Any = None):
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
        self.provenance: dict[str, Any] = {}
        self.entries: list[dict[str, Any]] = []
        self._annotate = annotate
        if mode == "replay":
            self._load()
        else:
            if provenance is not None:
                try:
                    self.provenance = _provenance(provenance)
                except _Bad as bad:
                    raise ConfigError(path, bad.field, bad.problem) from None
            self._fh = _open_for_recording(self.path)
            if self.provenance:
                self._fh.write(json.dumps({"provenance": self.provenance},
                                          ensure_ascii=False, sort_keys=True) + "\n")
                self._fh.flush()

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
                    if number == 1 and _PROVENANCE_LINE.match(raw):
                        self.provenance = _provenance_line(raw)
                        continue
                    key, exchange, entry = _exchange(raw)
                except _Bad as bad:
                    raise ConfigError(self.path, bad.field, (
                        f"{bad.problem}; each line is one exchange (fingerprint, request, "
                        f"and response or error): re-record the cassette"), number) from None
                self._exchanges.setdefault(key, deque()).append(exchange)
                self.entries.append(entry)

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
        if self._annotate is not None:
            exchange.update({k: v for k, v in self._annotate(body).items()
                             if k not in exchange})
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


def _exchange(raw: bytes) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """One line's fingerprint, what a replay needs of it, and what views show of it.

    A replay needs the response or the error; views show the entry (agent, tick, request
    and the recorded prompt).

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
    entry = _entry(exchange)
    if ("response" in exchange) == ("error" in exchange):
        which = "both" if "response" in exchange else "neither"
        raise _Bad("", f"holds {which} response and error; exactly one is allowed")
    if "response" in exchange:
        response = exchange["response"]
        if not isinstance(response, dict):
            raise _Bad("response", f"is {kind_of(response)}, not an object")
        if depth(response, REPLY_DEPTH) > REPLY_DEPTH:
            raise _Bad("response", f"is nested deeper than {REPLY_DEPTH} levels")
        return key, {"response": response}, entry
    error = exchange["error"]
    if not isinstance(error, dict):
        raise _Bad("error", f"is {kind_of(error)}, not an object")
    if not isinstance(error.get("kind"), str) or error["kind"] not in MODEL_ERROR_KINDS:
        shown = repr(error["kind"]) if isinstance(error.get("kind"), str) else \
            kind_of(error.get("kind"))
        raise _Bad("error.kind", f"is {shown[:40]}; allowed: {', '.join(MODEL_ERROR_KINDS)}")
    if not isinstance(error.get("message"), str):
        raise _Bad("error.message", f"is {kind_of(error.get('message'))}, not text")
    return key, {"error": {"kind": error["kind"], "message": error["message"]}}, entry


def _entry(exchange: dict[str, Any]) -> dict[str, Any]:
    """What a view shows of one exchange; a field of the wrong type is left out."""
    entry: dict[str, Any] = {"request": exchange.get("request", {})}
    if isinstance(exchange.get("agent"), str):
        entry["agent"] = exchange["agent"]
    if type(exchange.get("tick")) is int:
        entry["tick"] = exchange["tick"]
    prompt = exchange.get("prompt")
    if isinstance(prompt, dict) and isinstance(prompt.get("text"), str) \
            and isinstance(prompt.get("format"), str):
        entry["prompt"] = {"format": prompt["format"][:PROVENANCE_CHARS],
                           "text": prompt["text"]}
    return entry


def _provenance(value: Any) -> dict[str, Any]:
    """A provenance object as kept: at most 32 short scalar values under text keys.

    Raises:
        _Bad: anything else.
    """
    if not isinstance(value, dict):
        raise _Bad("provenance", f"is {kind_of(value)}, not an object")
    if len(value) > _PROVENANCE_KEYS:
        raise _Bad("provenance", f"has {len(value)} entries; at most {_PROVENANCE_KEYS}")
    for key, item in value.items():
        if not isinstance(key, str) or len(key) > 64:
            raise _Bad("provenance", f"has a key that is not short text: {str(key)[:40]!r}")
        if item is not None and not isinstance(item, str | int | float | bool):
            raise _Bad(f"provenance.{key}", f"is {kind_of(item)}; a provenance value is "
                       f"text, a number, true/false or null")
        if isinstance(item, str) and len(item) > PROVENANCE_CHARS:
            raise _Bad(f"provenance.{key}", f"is {len(item)} characters; at most "
                       f"{PROVENANCE_CHARS}")
    return dict(value)


def _provenance_line(raw: bytes) -> dict[str, Any]:
    try:
        line = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        raise _Bad("provenance", "the provenance line is not UTF-8 JSON") from None
    if not isinstance(line, dict) or set(line) != {"provenance"}:
        raise _Bad("provenance", "the provenance line holds more than 'provenance'")
    return _provenance(line["provenance"])


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
