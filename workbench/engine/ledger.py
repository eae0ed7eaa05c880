"""The ledger: an append-only, hash-chained record of a run, in memory and on disk.

:class:`Ledger` keeps events in memory and chains their hashes. :class:`JsonlLedgerStore`
appends one JSON line per event, flushes each tick and fsyncs on close, so a run killed at
any moment leaves every flushed event readable. Reopening verifies the chain and *reports*
a torn last line (a write cut short by the kill) instead of hiding it; a changed line is
detected as :class:`~workbench.errors.LedgerTampered`.

A line is the event's canonical content JSON with the hash as its last key::

    {"actor":"world","caused_by":null,"kind":WORLD_OBSERVED,...,"tick":0,"hash":"ab12..."}

so a line verifies by hashing its own bytes, without re-serialising anything. Values JSON
cannot carry as they are (NaN, integers beyond 64 bits, non-string keys, deep nesting) are
written in the one canonical encoding described in :mod:`workbench.contracts.events`, so
every call is recorded whatever its params or result hold.

What the chain proves, and what it does not:

* a plain chain (sha256) proves the file is internally consistent: no complete event was
  changed, removed, inserted or reordered *unless every later hash was recomputed*, which
  anyone can do. It cannot see a file cut at a line boundary or rewritten and re-hashed:
  for that keep the final hash somewhere else and check it (``verify --hash``);
* a keyed chain (HMAC-SHA256, key from the ``WORKBENCH_LEDGER_KEY`` environment
  variable, never stored) also proves the events were written by someone holding the key:
  a forger who re-hashes a changed ledger without the key fails verification.

One writer per file: a store creates its file exclusively (``O_EXCL``) and holds an
advisory lock (``flock``) on it for as long as it is open, so a second run or resume on
the same path fails at once instead of interleaving lines.
"""

from __future__ import annotations

import gc
import hashlib
import hmac
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from workbench.contracts.canonical import canonical_bytes, canonical_value
from workbench.contracts.events import GENESIS_HASH, Event, chain_hash
from workbench.errors import LedgerError, LedgerTampered

try:  # advisory locks; absent on Windows, where a second writer is not detected
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = ["KEY_ENV", "JsonlLedgerStore", "Ledger", "LedgerCheck", "LedgerFile", "ledger_key"]

#: The environment variable holding the key of a keyed (HMAC) chain.
KEY_ENV = "WORKBENCH_LEDGER_KEY"

_HASH_KEY = b',"hash":"'
_HASH_SUFFIX_LEN = len(_HASH_KEY) + 64 + len(b'"}')
_sha256 = hashlib.sha256
_dumps, _SORT = orjson.dumps, orjson.OPT_SORT_KEYS


def ledger_key(env: Mapping[str, str] | None = None) -> bytes | None:
    """The keyed chain's key from ``WORKBENCH_LEDGER_KEY`` (None when unset or empty)."""
    value = (os.environ if env is None else env).get(KEY_ENV, "")
    return value.encode("utf-8") if value else None


def _hasher(key: bytes | None):
    """``new(head) -> hash object`` for a plain or keyed chain."""
    if key is None:
        return _sha256
    base = hmac.new(key, digestmod=hashlib.sha256)

    def new(head: bytes):
        h = base.copy()
        h.update(head)
        return h

    return new


class Ledger:
    """Events of one run, in order, each chained to the one before.

    Args:
        run_id: The run's name.
        store: Where each appended event's line goes, if anywhere.
        events: Events already recorded (a resumed run).
        key: Key of a keyed chain (HMAC-SHA256); None for the plain sha256 chain.

    Example:
        >>> ledger = Ledger("demo:0")
        >>> e = ledger.append(0, WORLD_OBSERVED, "world", {"text": "dawn"})
        >>> e.seq, ledger.final_hash == e.hash
        (0, True)
    """

    def __init__(self, run_id: str, store: JsonlLedgerStore | None = None,
                 events: list[Event] | None = None, key: bytes | None = None):
        self.run_id = run_id
        self.store = store
        self.key = key
        self._new_hash = _hasher(key)
        self.events: list[Event] = list(events or [])
        self._head = (self.events[-1].hash if self.events else GENESIS_HASH).encode("ascii")

    def append(self, tick: int, kind: str, actor: str, payload: dict[str, Any],
               caused_by: int | None = None) -> Event:
        """Append an event, chain its hash, and hand its line to the store if any.

        Whatever ``payload`` holds is recorded: values JSON lacks are written in the
        canonical encoding, and the event keeps the payload as written (so the event in
        memory and the one read back from the file are equal).
        """
        seq = len(self.events)
        fields = {
            "actor": actor, "caused_by": caused_by, "kind": kind, "payload": payload,
            "run_id": self.run_id, "seq": seq, "tick": tick,
        }
        try:
            content = _dumps(fields, option=_SORT)
            # NaN and infinities come out as null; caused_by accounts for one null.
            plain = content.count(b"null") == (caused_by is None)
        except TypeError:  # big ints, odd keys, deep nesting: the canonical encoding
            plain = False
        if not plain:
            fields = canonical_value(fields)
            payload = fields["payload"]
            content = _dumps(fields, option=_SORT)
        head = self._new_hash(self._head + content).hexdigest().encode("ascii")
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
            expected = chain_hash(head, canonical_bytes(event.content()), self.key)
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

    keyed: bool = False

    @property
    def complete(self) -> bool:
        """True when the file holds at least one event and nothing after its last one."""
        return self.count > 0 and self.torn is None

    def report(self) -> str:
        """One line a person can read: how many events verified and what was torn."""
        chain = "keyed hash chain" if self.keyed else "hash chain"
        msg = f"{self.path}: {self.count} events, {chain} verified"
        if self.torn is not None:
            msg += (f"; line {self.torn_line} is torn ({len(self.torn)} bytes of an event "
                    f"cut short, most likely by a kill) and is not part of the ledger")
        elif self.count == 0:
            msg = (f"{self.path}: holds no event (a run killed before it started, or not a "
                   f"ledger)")
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

    The store is the file's only writer while it is open: ``"w"`` creates the file
    exclusively, and both modes hold an advisory lock on it until :meth:`close`.

    Args:
        path: The file to write.
        mode: ``"w"`` to start a new file (refuses an existing one unless ``overwrite``,
            or unless it is empty: a run killed before its first event), ``"a"`` to
            continue one (see :meth:`resume`).
        overwrite: Allow ``"w"`` to replace an existing file.

    Raises:
        LedgerError: the file exists (``"w"``), or another process is writing it.
    """

    def __init__(self, path: str | Path, mode: str = "w", overwrite: bool = False):
        self.path = Path(path)
        if mode not in ("w", "a"):
            raise ValueError(f"mode must be 'w' or 'a', got {mode!r}")
        self._written = False
        self._created = False
        if mode == "w":
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = self._open_new(overwrite)
        else:
            # An OSError names the file: the CLI shows it as one line with the path.
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
        try:
            _lock(fd, self.path)
            if mode == "w":
                if not overwrite and os.fstat(fd).st_size:
                    # Taken over as empty, but someone wrote it before we held the lock.
                    raise LedgerError(self._exists_message())
                os.ftruncate(fd, 0)
        except BaseException:
            os.close(fd)
            raise
        self._fd: int | None = fd
        # Lines wait here until flush(); the file only ever grows by whole lines, and a
        # failed write (a full disk) is cut back to the last whole line (see flush).
        self._buf: list[bytes] = []
        self._buffered = 0
        self._committed = os.fstat(fd).st_size

    def _open_new(self, overwrite: bool) -> int:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        try:  # other OSErrors name the file: the CLI shows them as one line with the path
            fd = os.open(self.path, flags | os.O_EXCL, 0o644)
            self._created = True
            return fd
        except FileExistsError:
            pass
        # It exists: replace it only when asked to, or when it is empty (holds no run).
        if not overwrite and self.path.stat().st_size:
            raise LedgerError(self._exists_message())
        return os.open(self.path, flags)

    def _exists_message(self) -> str:
        return (f"{self.path} exists and may hold a run you want; choose another path, "
                f"overwrite it (--overwrite, overwrite=True), or finish its run with "
                f"`workbench resume {self.path}`")

    def write_line(self, line: bytes) -> None:
        """Buffer one line (written to the OS on :meth:`flush`)."""
        if self._fd is None:
            raise LedgerError(f"{self.path} is closed; open a new store to write")
        self._buf.append(line)
        self._buffered += len(line)
        self._written = True
        if self._buffered >= _FLUSH_AT:
            self.flush()

    def flush(self) -> None:
        """Hand buffered lines to the OS: they survive a kill of this process from here on."""
        if self._fd is None or not self._buf:
            return
        data = b"".join(self._buf)
        self._buf.clear()
        self._buffered = 0
        view, fd = memoryview(data), self._fd
        try:
            while view:
                view = view[os.write(fd, view):]
        except OSError:
            # A full disk or a failed device: leave no partial line behind.
            try:
                os.ftruncate(fd, self._committed)
            except OSError:
                pass  # a torn last line, which every reader reports and resume cuts
            raise
        self._committed += len(data)

    def sync(self) -> None:
        """Flush and fsync: the lines survive a crash of the machine too."""
        if self._fd is not None:
            self.flush()
            os.fsync(self._fd)

    def close(self) -> None:
        """Flush, fsync, release the lock and close. Safe to call twice."""
        if self._fd is not None:
            fd = self._fd
            try:
                self.sync()
            finally:
                self._fd = None
                self._buf.clear()
                os.close(fd)  # closing the descriptor releases the flock

    def discard(self) -> None:
        """Close, and remove the file if this store created or emptied it and wrote nothing.

        For a run that failed before its first event (a server that would not start):
        no empty ledger is left behind.
        """
        if self._fd is not None and not self._written:
            try:
                if self.path.stat().st_size == 0:
                    self.path.unlink()
            except OSError:
                pass
        self.close()

    def __enter__(self) -> JsonlLedgerStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def read(path: str | Path, key: bytes | None = None) -> LedgerFile:
        """Read a ledger file, verifying its chain, and return its events.

        Args:
            path: The ledger file.
            key: The key of a keyed chain (see :func:`ledger_key`), or None.

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
            check = _scan(Path(path), events, key)
        finally:
            if collecting:
                gc.enable()
        return LedgerFile(check.path, check.count, check.final_hash, check.torn,
                          check.torn_line, check.keyed, events)

    @staticmethod
    def verify(path: str | Path, key: bytes | None = None) -> LedgerCheck:
        """Verify a ledger file's chain without building its events (streams the file).

        A torn last line or an empty file is reported on the result (see
        :attr:`LedgerCheck.complete`); the CLI's ``verify`` fails on either.

        Raises:
            LedgerTampered: a complete line does not match the hash chain.
            LedgerError: the file cannot be read.
        """
        return _scan(Path(path), None, key)

    @classmethod
    def resume(cls, path: str | Path, keep: int | None = None, key: bytes | None = None
               ) -> tuple[LedgerFile, JsonlLedgerStore]:
        """Lock ``path``, verify it, cut it back, and return a store appending to it.

        The lock is taken before reading, so nobody writes while it is verified and cut.

        Args:
            path: The ledger file.
            keep: Keep only the first ``keep`` events (all complete ones when None). A torn
                last line is always cut; it stays reported in the returned result.
            key: The key of a keyed chain, or None.

        Returns:
            What was read (before cutting) and a store appending after the kept events.
        """
        store = cls(path, mode="a")
        try:
            found = cls.read(path, key)
            kept = found.events if keep is None else found.events[:keep]
            if found.torn is not None or len(kept) < len(found.events):
                assert store._fd is not None
                store._committed = sum(len(_line(e)) for e in kept)
                os.ftruncate(store._fd, store._committed)
        except BaseException:
            store.close()
            raise
        return found, store


def _lock(fd: int, path: Path) -> None:
    """Take the file's advisory write lock now, or fail with one line."""
    if fcntl is None:  # pragma: no cover
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise LedgerError(f"{path} is being written by another run or resume (it holds "
                          f"the ledger's lock); wait for it to end or choose another "
                          f"path") from None


_FLUSH_AT = 1 << 16  # bytes buffered before a flush of its own
_TAIL = len(b'"}\n')
_SUFFIX = _HASH_SUFFIX_LEN + 1  # with the newline


def _scan(path: Path, keep: list[Event] | None, key: bytes | None = None) -> LedgerCheck:
    """Walk ``path`` line by line, checking each hash; parse events into ``keep`` if given."""
    head = GENESIS_HASH.encode("ascii")
    new_hash, loads, make = _hasher(key), orjson.loads, Event
    key_at, digest_at = -_SUFFIX, -_SUFFIX + len(_HASH_KEY)
    count = 0
    keyed = key is not None
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below, errors reported as LedgerError
    except OSError as exc:
        raise LedgerError(f"cannot read ledger {path}: {exc.strerror or exc}") from exc
    with fh:
        for number, line in enumerate(fh, start=1):
            if line[-1:] != b"\n":  # only the last line can lack its newline: torn
                return LedgerCheck(path, count, head.decode("ascii"),
                                   line.decode("utf-8", errors="replace"), number, keyed)
            # The line hashes as its own bytes: content is everything before the hash key.
            if line[key_at:digest_at] != _HASH_KEY or line[-_TAIL:] != b'"}\n':
                raise LedgerTampered(path, number, "the line does not end with its hash")
            hasher = new_hash(head)
            hasher.update(memoryview(line)[:key_at])
            hasher.update(b"}")
            digest = hasher.hexdigest().encode("ascii")
            if line[digest_at:-_TAIL] != digest:
                raise LedgerTampered(path, number, "the event does not match its hash"
                                     + (_key_hint(keyed) if count == 0 else ""))
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
    return LedgerCheck(path, count, head.decode("ascii"), keyed=keyed)


def _key_hint(keyed: bool) -> str:
    if keyed:
        return f"; or it was written with another {KEY_ENV}, or without one"
    return f"; or it was written with a key: set {KEY_ENV} to verify a keyed chain"
