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

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from workbench.contracts.events import GENESIS_HASH, Event, canonical_json, chain_hash
from workbench.errors import LedgerError, LedgerTampered

__all__ = ["JsonlLedgerStore", "Ledger", "LedgerFile"]

_HASH_SUFFIX_LEN = len(',"hash":"') + 64 + len('"}')


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
        self._head = self.events[-1].hash if self.events else GENESIS_HASH

    def append(self, tick: int, kind: str, actor: str, payload: dict[str, Any],
               caused_by: int | None = None) -> Event:
        """Append an event, chain its hash, and hand its line to the store if any."""
        seq = len(self.events)
        content = canonical_json({
            "actor": actor, "caused_by": caused_by, "kind": kind, "payload": payload,
            "run_id": self.run_id, "seq": seq, "tick": tick,
        })
        digest = chain_hash(self._head, content)
        event = Event(self.run_id, seq, tick, kind, actor, payload, caused_by, digest)
        self.events.append(event)
        self._head = digest
        if self.store is not None:
            self.store.write_line(f'{content[:-1]},"hash":"{digest}"}}\n')
        return event

    @property
    def final_hash(self) -> str:
        """Hash of the last event (the genesis constant for an empty ledger)."""
        return self._head

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __getitem__(self, index: int) -> Event:
        return self.events[index]

    def __repr__(self) -> str:
        return f"Ledger({self.run_id!r}, {len(self.events)} events, head={self._head[:12]})"

    def of_kind(self, *kinds: str) -> list[Event]:
        """Events whose kind is one of ``kinds``, in order."""
        wanted = set(kinds)
        return [e for e in self.events if e.kind in wanted]

    def verify(self) -> None:
        """Recompute every hash; raise :class:`LedgerTampered` at the first mismatch."""
        head = GENESIS_HASH
        for event in self.events:
            expected = chain_hash(head, canonical_json(event.content()))
            if expected != event.hash:
                raise LedgerTampered(f"<ledger {self.run_id}>", event.seq + 1,
                                     f"event seq {event.seq} does not match its hash")
            head = event.hash

    def to_jsonl(self) -> str:
        """The whole ledger as JSONL text, byte-identical to what a store writes."""
        return "".join(_line(e) for e in self.events)


def _line(event: Event) -> str:
    content = canonical_json(event.content())
    return f'{content[:-1]},"hash":"{event.hash}"}}\n'


@dataclass
class LedgerFile:
    """What reading a ledger file found.

    Attributes:
        path: The file.
        events: Every complete, verified event.
        torn: The bytes of an incomplete last line (a write cut short), or None.
        torn_line: 1-based line number of that torn line, or None.
    """

    path: Path
    events: list[Event]
    torn: str | None = None
    torn_line: int | None = None

    @property
    def run_id(self) -> str | None:
        """The run the events belong to (None for an empty file)."""
        return self.events[0].run_id if self.events else None

    @property
    def final_hash(self) -> str:
        """Hash of the last complete event."""
        return self.events[-1].hash if self.events else GENESIS_HASH

    def report(self) -> str:
        """One line a person can read: how many events verified and what was torn."""
        msg = f"{self.path}: {len(self.events)} events, hash chain verified"
        if self.torn is not None:
            msg += (f"; line {self.torn_line} is torn ({len(self.torn)} bytes of an event "
                    f"cut short, most likely by a kill) and is not part of the ledger")
        return msg


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
            raise LedgerError(f"{self.path} exists; choose another path, pass overwrite=True, "
                              f"or resume it")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: IO[str] | None = open(self.path, mode, encoding="utf-8", newline="\n")

    def write_line(self, line: str) -> None:
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
        """Read and verify a ledger file.

        Returns:
            The verified events and any torn last line.

        Raises:
            LedgerTampered: a complete line does not match the hash chain.
            LedgerError: a line other than the last is not an event.
        """
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise LedgerError(f"cannot read ledger {path}: {exc.strerror or exc}") from exc
        text = data.decode("utf-8", errors="replace")
        lines = text.split("\n")
        tail = lines.pop()  # "" when the file ends with a newline
        events: list[Event] = []
        head = GENESIS_HASH
        loads = json.loads
        for number, line in enumerate(lines, start=1):
            event = _parse(path, number, line, loads)
            content = line[:-_HASH_SUFFIX_LEN] + "}"
            if chain_hash(head, content) != event.hash:
                raise LedgerTampered(path, number, f"event seq {event.seq} does not match "
                                     f"its hash")
            if event.seq != number - 1:
                raise LedgerTampered(path, number, f"expected seq {number - 1}, found "
                                     f"{event.seq}")
            head = event.hash
            events.append(event)
        result = LedgerFile(path, events)
        if tail:
            result.torn, result.torn_line = tail, len(lines) + 1
        return result

    @classmethod
    def resume(cls, path: str | Path) -> tuple[LedgerFile, JsonlLedgerStore]:
        """Verify ``path``, cut off a torn last line (reported in the result), reopen to append."""
        found = cls.read(path)
        if found.torn is not None:
            keep = sum(len(_line(e).encode("utf-8")) for e in found.events)
            with open(found.path, "r+b") as fh:
                fh.truncate(keep)
        return found, cls(path, mode="a")


def _parse(path: Path, number: int, line: str, loads: Any) -> Event:
    if not line.endswith('"}') or line[-_HASH_SUFFIX_LEN:-66] != ',"hash":"':
        raise LedgerTampered(path, number, "the line does not end with its hash")
    try:
        data = loads(line)
        return Event(data["run_id"], data["seq"], data["tick"], data["kind"], data["actor"],
                     data["payload"], data["caused_by"], data["hash"])
    except (ValueError, KeyError, TypeError) as exc:
        raise LedgerError(f"{path}:{number}: not a ledger event ({exc}); only the last line "
                          f"of a ledger can be incomplete") from exc
