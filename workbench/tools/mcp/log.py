"""The per-connection log: a server's stderr, its log notifications, the SDK's log records.

Each :class:`~workbench.tools.mcp.connection.MCPConnection` writes one file. What the
server supplies (stderr, ``notifications/message``) is capped at ``max_bytes`` per
connection (``WORKBENCH_MCP_LOG_MAX``, 4 MiB by default), so a chatty or hostile server
cannot fill the disk; the connection's own events are always written (they are few).

The SDK logs through the standard ``logging`` module (``mcp.*``), which with no handler
configured prints warnings and tracebacks on the CLI's stderr. :func:`route_sdk_logs`
sends those records to the log of the connection whose loop thread emitted them instead.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

__all__ = ["ConnectionLog", "route_sdk_logs"]

# Loop thread ident -> the note function of the connection that owns the thread.
_by_thread: dict[int, Callable[[str], None]] = {}
_routed = False
_route_lock = threading.Lock()
# Numbers the logs of one process: two connections to one server never share a file.
_counter = itertools.count(1)


class ConnectionLog:
    """One connection's log file, opened on first write, line-buffered.

    Args:
        path: The file (appended to).
        label: Prefix of the connection's own lines (``stdio:name``).
        max_bytes: Cap on the server-supplied text kept.
    """

    @classmethod
    def for_server(cls, log_dir: Path, name: str, label: str, max_bytes: int
                   ) -> ConnectionLog:
        """A new log under ``log_dir`` named for server ``name``, this process and a count."""
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        return cls(log_dir / f"{stem}-{os.getpid()}-{next(_counter)}.log", label, max_bytes)

    def __init__(self, path: Path, label: str, max_bytes: int):
        self.path = path
        self.label = label
        self.max_bytes = max_bytes
        self.server_bytes = 0
        self.dropped = 0
        self._fh: TextIO | None = None
        self._lock = threading.Lock()
        self._closed = False

    def note(self, line: str) -> None:
        """Write one line of the connection's own (never fails)."""
        self._write(f"[workbench {time.strftime('%H:%M:%S')}] {self.label}: {line}\n")

    def server_output(self, data: bytes | str) -> None:
        """Keep server-supplied text up to the cap; count what is dropped past it."""
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        size = len(text.encode("utf-8", "replace"))
        room = self.max_bytes - self.server_bytes
        if room <= 0:
            self.dropped += size
            return
        if size > room:
            text = text.encode("utf-8", "replace")[:room].decode("utf-8", "ignore")
            self.dropped += size - room
            text += (f"\n[workbench] {self.label}: server output past {self.max_bytes} bytes "
                     f"is dropped (WORKBENCH_MCP_LOG_MAX)\n")
        self.server_bytes += min(size, room)
        self._write(text)

    def close(self) -> None:
        """Close the file; later writes are ignored."""
        with self._lock:
            self._closed = True
            if self._fh is not None:
                self._fh.close()
                self._fh = None

    def _write(self, text: str) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                if self._fh is None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self._fh = open(self.path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115
                self._fh.write(text)
            except (OSError, ValueError):
                pass  # logging must never break a call


class _Router(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        note = _by_thread.get(threading.get_ident())
        if note is None:  # not from a connection's loop: where it would have gone anyway
            logging.getLogger().handle(record)
            return
        try:
            text = record.getMessage()
            exc = record.exc_info[1] if record.exc_info else None
            if exc is not None:
                first = (str(exc).splitlines() or [""])[0]
                text += f" ({type(exc).__name__}: {first})"
            note(f"sdk {record.name} [{record.levelname}]: {text}")
        except Exception:  # noqa: S110 - a log record must never break a call
            pass


def route_sdk_logs(note: Callable[[str], None] | None) -> None:
    """Send SDK log records emitted on this thread to ``note`` (None stops it)."""
    global _routed
    with _route_lock:
        if not _routed:
            for name in ("mcp", "mcp_types", "httpx2", "httpcore2"):
                logger = logging.getLogger(name)
                logger.addHandler(_Router())
                # A connection's records belong in its log, not on the CLI's stderr; the
                # router passes the others on to the root logger as before.
                logger.propagate = False
            _routed = True
    if note is None:
        _by_thread.pop(threading.get_ident(), None)
    else:
        _by_thread[threading.get_ident()] = note
