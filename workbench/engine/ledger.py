"""The ledger: an append-only, hash-chained record of a run, in memory and on disk.

:class:`Ledger` keeps events in memory and chains their hashes. :class:`JsonlLedgerStore`
appends one JSON line per event, flushes each tick and fsyncs on close, so a run killed at
any moment leaves every flushed event readable. Reopening verifies the chain and *reports*
a torn last line (a write cut short by the kill) instead of hiding it; a changed line is
detected as :class:`~workbench.errors.LedgerTampered`.

A line is the event's canonical content JSON with the hash as its last key::

    {"actor":"world","caused_by":null,"kind":"world.observed",...,"tick":0,"hash":"ab12..."}

so a line verifies by hashing its own bytes, without re-serialising anything.
"""

from __future__ import annotations

import gc
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from workbench.contracts.events import GENESIS_HASH, Event, canonical_bytes, chain_hash
from workbench.errors import LedgerError, LedgerTampered

__all__ = ["JsonlLedgerStore", "Ledger", "LedgerCheck", "LedgerFile"]

_HASH_KEY = b',"hash":"'
_HASH_SUFFIX_LEN = len(_HASH_KEY) + 64 + len(b'"}')
_sha256 = hashlib.sha256


class Ledger:
    """Events of one run, in order, each chained to the one before.

    Example:
        >>> ledger = Ledger("demo:0")
        >>> e = ledger.append(0, "world.observed", "world", {"text": "dawn"})
        >>> e.seq, ledger.final_hash == e.hash
        (0, True)
    """

    def __init__(self, run_id: str, store: JsonlLedgerStore | None = None,
                 events: list[Event] | None = None):
        self.run_id = run_id
        self.store = store
        self.events: list[Event] = list(events or [])
        self._head = (self.events[-1].hash if self.events else GENESIS_HASH).encode("ascii")

    def append(self, tick: int, kind: str, actor: str, payload: dict[str, Any],
               caused_by: int | None = None) -> Event:
        """Append an event, chain its hash, and hand its line to the store if any."""
        seq = len(self.events)
        content = canonical_bytes({
            "actor": actor, "caused_by": caused_by, "kind": kind, "payload": payload,
            "run_id": self.run_id, "seq": seq, "tick": tick,
        })
        head = _sha256(self._head + content).hexdigest().encode("ascii")
        event = Event(self.run_id, seq, tick, kind, actor, payload, caused_by, head.decode())
        self.events.append(event)
        self._head = head
        if self.store is not None:
            self.store.write_line(content[:-1] + _HASH_KEY + head + b'"}\n')
        return event

    @property
    def final_hash(self) -> str:
        """Hash of the last event (the genesis constant for an empty ledger)."""
        return self._head.decode("ascii")

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __getitem__(self, index: int) -> Event:
        return self.events[index]

    def __repr__(self) -> str:
        return f"Ledger({self.run_id!r}, {len(self.events)} events, head={self.final_hash[:12]})"

    def _repr_html_(self) -> str:
        from workbench.reprs import ledger_html

        return ledger_html(self)

    def of_kind(self, *kinds: str) -> list[Event]:
        """Events whose kind is one of ``kinds``, in order."""
        wanted = set(kinds)
        return [e for e in self.events if e.kind in wanted]

    def verify(self) -> None:
        """Recompute every hash; raise :class:`LedgerTampered` at the first mismatch."""
        head = GENESIS_HASH
        for event in self.events:
            expected = chain_hash(head, canonical_bytes(event.content()))
            if expected != event.hash:
                raise LedgerTampered(f"<ledger {self.run_id}>", event.seq + 1,
                                     f"event seq {event.seq} does not match its hash")
            head = event.hash

    def to_jsonl(self) -> str:
        """The whole ledger as JSONL text, byte-identical to what a store writes."""
        return b"".join(_line(e) for e in self.events).decode("utf-8")


def _line(event: Event) -> bytes:
    content = canonical_bytes(event.content())
    return content[:-1] + _HASH_KEY + event.hash.encode("ascii") + b'"}\n'


@dataclass
class LedgerCheck:
    """What verifying a ledger file found.

    Attributes:
        path: The file.
        count: Complete events whose hashes verify.
        final_hash: Hash of the last of them (compare it with a trusted copy to detect a
            truncated file, which no chain can see by itself).
        torn: The bytes of an incomplete last line (a write cut short), or None.
        torn_line: 1-based line number of that torn line, or None.
    """

    path: Path
    count: int
    final_hash: str
    torn: str | None = None
    torn_line: int | None = None

    def report(self) -> str:
        """One line a person can read: how many events verified and what was torn."""
        msg = f"{self.path}: {self.count} events, hash chain verified"
        if self.torn is not None:
            msg += (f"; line {self.torn_line} is torn ({len(self.torn)} bytes of an event "
                    f"cut short, most likely by a kill) and is not part of the ledger")
        return msg


@dataclass
class LedgerFile(LedgerCheck):
    """A verified ledger file with its events (what :meth:`JsonlLedgerStore.read` returns).

    Attributes:
        events: Every complete, verified event, in order.
    """

    events: list[Event] = field(default_factory=list)

    @property
    def run_id(self) -> str | None:
        """The run the events belong to (None for an empty file)."""
        return self.events[0].run_id if self.events else None


class JsonlLedgerStore:
    """Appends a ledger to a JSONL file; reads one back with its chain verified.

    Args:
        path: The file to write.
        mode: ``"w"`` to start a new file (refuses an existing one unless ``overwrite``),
            ``"a"`` to continue one (after :meth:`read` verified it).
        overwrite: Allow ``"w"`` to replace an existing file.
    """

    def __init__(self, path: str | Path, mode: str = "w", overwrite: bool = False):
        self.path = Path(path)
        if mode not in ("w", "a"):
            raise ValueError(f"mode must be 'w' or 'a', got {mode!r}")
        if mode == "w" and self.path.exists() and not overwrite:
            raise LedgerError(f"{self.path} exists and may hold a run you want; choose another "
                              f"path, overwrite it (--overwrite, overwrite=True), or finish "
                              f"its run with `workbench resume {self.path}`")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: IO[bytes] | None = open(self.path, mode + "b")

    def write_line(self, line: bytes) -> None:
        """Buffer one line (written to the OS on :meth:`flush`)."""
        if self._fh is None:
            raise LedgerError(f"{self.path} is closed; open a new store to write")
        self._fh.write(line)

    def flush(self) -> None:
        """Hand buffered lines to the OS: they survive a kill of this process from here on."""
        if self._fh is not None:
            self._fh.flush()

    def close(self) -> None:
        """Flush, fsync and close. Safe to call twice."""
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None

    def __enter__(self) -> JsonlLedgerStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def read(path: str | Path) -> LedgerFile:
        """Read a ledger file, verifying its chain, and return its events.

        Raises:
            LedgerTampered: a complete line does not match the hash chain.
            LedgerError: the file cannot be read, or a line is not an event.
        """
        events: list[Event] = []
        # Millions of new containers would trigger ever larger collections for nothing:
        # nothing built here is cyclic, so the collector waits until the file is read.
        collecting = gc.isenabled()
        gc.disable()
        try:
            check = _scan(Path(path), events)
        finally:
            if collecting:
                gc.enable()
        return LedgerFile(check.path, check.count, check.final_hash, check.torn,
                          check.torn_line, events)

    @staticmethod
    def verify(path: str | Path) -> LedgerCheck:
        """Verify a ledger file's chain without building its events (streams the file).

        Raises:
            LedgerTampered: a complete line does not match the hash chain.
            LedgerError: the file cannot be read.
        """
        return _scan(Path(path), None)

    @classmethod
    def resume(cls, path: str | Path, keep: int | None = None
               ) -> tuple[LedgerFile, JsonlLedgerStore]:
        """Verify ``path``, cut it back, and reopen it to append.

        Args:
            path: The ledger file.
            keep: Keep only the first ``keep`` events (all complete ones when None). A torn
                last line is always cut; it stays reported in the returned result.

        Returns:
            What was read (before cutting) and a store appending after the kept events.
        """
        found = cls.read(path)
        kept = found.events if keep is None else found.events[:keep]
        if found.torn is not None or len(kept) < len(found.events):
            with open(found.path, "r+b") as fh:
                fh.truncate(sum(len(_line(e)) for e in kept))
        return found, cls(path, mode="a")


_TAIL = len(b'"}\n')
_SUFFIX = _HASH_SUFFIX_LEN + 1  # with the newline


def _scan(path: Path, keep: list[Event] | None) -> LedgerCheck:
    """Walk ``path`` line by line, checking each hash; parse events into ``keep`` if given."""
    head = GENESIS_HASH.encode("ascii")
    sha256, loads, make = _sha256, orjson.loads, Event
    key_at, digest_at = -_SUFFIX, -_SUFFIX + len(_HASH_KEY)
    count = 0
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below, errors reported as LedgerError
    except OSError as exc:
        raise LedgerError(f"cannot read ledger {path}: {exc.strerror or exc}") from exc
    with fh:
        for number, line in enumerate(fh, start=1):
            if line[-1:] != b"\n":  # only the last line can lack its newline: torn
                return LedgerCheck(path, count, head.decode("ascii"),
                                   line.decode("utf-8", errors="replace"), number)
            # The line hashes as its own bytes: content is everything before the hash key.
            if line[key_at:digest_at] != _HASH_KEY or line[-_TAIL:] != b'"}\n':
                raise LedgerTampered(path, number, "the line does not end with its hash")
            hasher = sha256(head)
            hasher.update(memoryview(line)[:key_at])
            hasher.update(b"}")
            digest = hasher.hexdigest().encode("ascii")
            if line[digest_at:-_TAIL] != digest:
                raise LedgerTampered(path, number, "the event does not match its hash")
            if keep is not None:
                try:
                    d = loads(line)
                    event = make(d["run_id"], d["seq"], d["tick"], d["kind"], d["actor"],
                                 d["payload"], d["caused_by"], d["hash"])
                except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
                    raise LedgerError(f"{path}:{number}: not a ledger event ({exc}); only "
                                      f"the last line of a ledger can be incomplete") from exc
                if event.seq != count:
                    raise LedgerTampered(path, number, f"expected seq {count}, found "
                                         f"{event.seq}")
                keep.append(event)
            head = digest
            count += 1
    return LedgerCheck(path, count, head.decode("ascii"))
