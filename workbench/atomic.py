r"""Atomic file writes that keep what the file was: its mode, and a symlink's link.

Every file the workbench writes whole (a surface's tools.json, policy.json and pins.json;
a manifest saved from its editor; every export) goes through :func:`atomic_writer` (or
:func:`write_text_atomic`, for a text): the content goes to a temp file in the same
directory, is fsynced, and is renamed over the file, so a crash leaves the old file or the
new one, never half of either. The temp file's name is unpredictable and created
exclusively, so nothing planted beside the target is ever written through. Two things a
plain temp-and-rename gets wrong are kept right:

* the mode: ``mkstemp`` creates 0600, so a shared 0644 file would silently become private;
  the new file gets the old one's permission bits (a new file, what ``open`` would give);
* a symlink: renaming over the link would replace the link with a plain file; the write
  goes to the link's target instead, and the link stays a link.

Example:
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> path = os.path.join(d, "notes.txt")
    >>> write_text_atomic(path, "one\n")
    >>> os.chmod(path, 0o640); write_text_atomic(path, "two\n")
    >>> oct(os.stat(path).st_mode & 0o777), open(path).read()
    ('0o640', 'two\n')
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_writer", "write_text_atomic"]


def _umask() -> int:
    # Linux reports it without changing it; elsewhere set and restore it at once.
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_writer(path: str | Path, *, binary: bool = False, mkdir: bool = True
                  ) -> Iterator[IO[Any]]:
    """An open file whose content replaces ``path``'s, atomically, when the block ends.

    The temp file is made by ``mkstemp`` in the target's directory: a name nobody can
    guess, created with ``O_CREAT|O_EXCL`` (and ``O_NOFOLLOW``), so a file or symlink
    planted beside the target is never opened, written through or overwritten. Writers
    that want a file name (pandas, pyarrow) are given this open file instead, so nothing
    is opened by name a second time. If the block raises, the temp file is removed and
    the target is untouched.

    Args:
        path: The file; a symlink is followed to its target (the link is kept).
        binary: Yield a binary file (else UTF-8 text with LF line ends).
        mkdir: Create missing parent directories first.

    Raises:
        OSError: the directory cannot be written (the caller names the path to the user).
    """
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    if mkdir:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)  # mkstemp made it 0600
        fh = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8",
                                                          newline="\n")
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    # The rename itself must survive a crash too: fsync the directory entry.
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def write_text_atomic(path: str | Path, text: str, *, mkdir: bool = True) -> None:
    """Replace ``path``'s content with ``text`` (UTF-8, LF line ends) atomically.

    Args:
        path: The file; a symlink is followed to its target (the link is kept).
        text: The new content.
        mkdir: Create missing parent directories first.
    """
    with atomic_writer(path, mkdir=mkdir) as fh:
        fh.write(text)
