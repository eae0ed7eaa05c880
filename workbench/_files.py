"""Reading the files and directories a user names, with errors that say what is wrong.

Every loader reads through :func:`read_text`, and every command that takes a directory
checks it with :func:`require_dir`, so the same mistakes get the same one-line answer
whatever the file is: missing, a directory where a file belongs, a path under a file, not
UTF-8, empty. Each failure is a :class:`~workbench.errors.ConfigError` naming the path and
what is expected.

Example:
    >>> read_text("/nonexistent/a.yaml", "a manifest")
    Traceback (most recent call last):
    ...
    workbench.errors.ConfigError: /nonexistent/a.yaml: does not exist; expected a manifest
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from workbench.errors import ConfigError

__all__ = ["MAX_FILE_BYTES", "STORAGE_ERRNOS", "check_new_file", "describe_os_error",
           "open_regular", "read_bounded", "read_text", "require_dir"]

#: The most :func:`read_text` reads of any file the user names (a config, a tools.json,
#: edits): far past any of them, and a bound for the day one is a device or a mistake.
MAX_FILE_BYTES = 64 << 20
#: Errors of the storage itself (full, read-only, over quota, failing), whatever the path.
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG, errno.EIO})


def _blocking_file(path: Path) -> Path | None:
    """The first existing non-directory among ``path``'s parents (a path under a file)."""
    for parent in reversed(path.parents):
        if parent.exists() and not parent.is_dir():
            return parent
    return None


def describe_os_error(path: str | os.PathLike[str] | None, exc: OSError,
                      expected: str = "") -> str:
    """A short reason for an OSError on ``path`` (None: an open file), in a user's words."""
    want = f"; expected {expected}" if expected else ""
    blocker = _blocking_file(Path(path)) if path is not None else None
    if blocker is not None:
        return f"{blocker} is a file, not a directory, so nothing can be under it{want}"
    if exc.errno == errno.ENOENT:
        return f"does not exist{want}"
    if exc.errno == errno.EISDIR or (path is not None and Path(path).is_dir()):
        return f"is a directory{want}"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied; check the file's permissions"
    if exc.errno == errno.EROFS:
        return "the file system is read-only; write somewhere else"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "no space left on the device; free some space and try again"
    return f"{exc.strerror or exc} (errno {exc.errno})"


def read_text(path: str | os.PathLike[str], expected: str, *, allow_empty: bool = True,
              max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of the file at ``path``.

    Args:
        path: The file.
        expected: What the file should hold, for messages ("a JSON list of edits").
        allow_empty: When False, an empty (or all-whitespace) file is an error.
        max_bytes: Only a regular file of at most this many bytes is read (see
            :func:`read_bounded`): a FIFO, a device or a huge file is one error, never a
            hang.

    Raises:
        ConfigError: missing, a directory, under a file, unreadable, not UTF-8, or empty
            when that is not allowed; the message names the path and what is expected.
    """
    p = Path(path)
    try:
        data = read_bounded(p, expected, max_bytes)
    except OSError as exc:
        raise ConfigError(p, "", describe_os_error(p, exc, expected)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(p, "", f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                          f"{exc.start}); save it as UTF-8", line) from None
    if text.startswith("\ufeff"):  # a BOM some editors write; JSON and YAML do not want it
        text = text[1:]
    if not allow_empty and not text.strip():
        raise ConfigError(p, "", f"is empty; expected {expected}")
    return text


def open_regular(path: str | os.PathLike[str], expected: str) -> int:
    """A read-only descriptor of the regular file at ``path`` (blocking reads).

    Opened non-blocking and its type checked on the open descriptor, so a FIFO with no
    writer, a device (``/dev/zero``) or a socket is refused at once instead of blocking
    in ``open()`` or being read forever; there is no gap between the check and the open.

    Raises:
        ConfigError: not a regular file.
        OSError: it cannot be opened (missing, permissions); the caller describes it.
    """
    p = Path(path)
    fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                    else "a socket" if stat.S_ISSOCK(mode) else "a device")
            raise ConfigError(p, "", f"is {kind}, not a regular file; save {expected} "
                                     f"to a file and give its path")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path: str | os.PathLike[str], expected: str, max_bytes: int) -> bytes:
    """The bytes of the regular file at ``path``, refusing it past ``max_bytes``.

    The file is opened by :func:`open_regular`; at most ``max_bytes + 1`` bytes are ever
    read, even from a file that grows while it is read.

    Raises:
        ConfigError: not a regular file, or bigger than ``max_bytes``.
        OSError: it cannot be opened (missing, permissions); the caller describes it.
    """
    p = Path(path)
    fd = open_regular(p, expected)
    try:
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > max_bytes:
        raise ConfigError(p, "", f"is over {_size(max_bytes)}, the most read for {expected}; "
                                 f"split it or trim it")
    return b"".join(chunks)


def _size(n: int) -> str:
    """``16 MiB``, ``8 KiB`` or ``100 bytes``: a cap in the unit it was chosen in."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n:,} bytes"


def require_dir(path: str | os.PathLike[str], expected: str) -> Path:
    """``path`` as a :class:`~pathlib.Path` if it is an existing directory.

    Raises:
        ConfigError: it does not exist, is a file, or lies under a file.
    """
    p = Path(path)
    if p.is_dir():
        return p
    blocker = _blocking_file(p)
    if blocker is not None:
        problem = f"{blocker} is a file, not a directory, so nothing can be under it"
    elif p.exists():
        problem = "is a file, not a directory"
    else:
        problem = "does not exist (check the spelling, or create it first)"
    raise ConfigError(p, "", f"{problem}; expected {expected}")


def check_new_file(path: str | os.PathLike[str], what: str) -> Path:
    """Check that a file can be created at ``path`` before any work is done for it.

    Refuses a path that is a directory or lies under a file, so a command fails before it
    starts a server or runs a scenario, not after.

    Raises:
        ConfigError: naming ``what`` (a flag such as ``--ledger``) and the path.
    """
    p = Path(path)
    if p.is_dir():
        raise ConfigError(p, "", f"is a directory; {what} takes a file path")
    blocker = _blocking_file(p)
    if blocker is not None:
        raise ConfigError(p, "", f"{blocker} is a file, not a directory; {what} takes a "
                          f"path in a directory")
    return p
