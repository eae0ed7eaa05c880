"""One sweep at a time per output: a lock held on the output directory for the sweep's life.

Two sweeps writing one ``--out`` would each write ``runs.parquet`` from their own grid, the
last one silently dropping the other's rows. :func:`hold_output` takes an advisory lock
(``flock``, as the ledger's one-writer lock) on ``<out>/.sweep.lock`` before the first run
is looked at and keeps it until the results are written; a second sweep on the same
output is refused at once with one line. The kernel drops the lock when its process
ends, however it ends, so a killed sweep never leaves a stale lock behind (the file stays,
empty and harmless).

Only a local output can be locked: on other fsspec file systems (``s3://``, ``memory://``)
no lock is taken, and one sweep at a time per output is the user's to keep.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

try:  # advisory locks; absent on Windows, where a second sweep is not detected
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = ["LOCK_FILE", "hold_output"]

#: The lock file's name under a sweep's output directory.
LOCK_FILE = ".sweep.lock"


@contextlib.contextmanager
def hold_output(out: str) -> Iterator[None]:
    """Hold ``out``'s sweep lock for the ``with`` block (``out`` must exist).

    Raises:
        SweepError: another sweep (another process, or this one) holds it.
    """
    import fsspec
    from fsspec.implementations.local import LocalFileSystem

    from workbench.errors import SweepError

    fs, base = fsspec.core.url_to_fs(out)
    if fcntl is None or not isinstance(fs, LocalFileSystem):
        yield
        return
    path = os.path.join(base, LOCK_FILE)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SweepError(f"{out} is in use by another sweep (it holds {path}); wait for "
                             f"it to finish or give another --out") from None
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock
