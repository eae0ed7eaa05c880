"""Helpers for the MCP transport tests: where the servers are, free ports, process checks."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SERVERS = Path(__file__).resolve().parent / "servers"
FLAKY = SERVERS / "flaky_server.py"
HOSTILE = SERVERS / "hostile_server.py"
NODE_MODULES = REPO / "external" / "node_modules"
EVERYTHING = NODE_MODULES / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
INSPECTOR = NODE_MODULES / ".bin" / "mcp-inspector"
#: Command-line fragments of every server these tests start.
SERVER_MARKERS = ("workbench.tools.mcp.server", "flaky_server.py", "mcp_server_time",
                  "server-everything", "hostile_server.py")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _ppid_and_state(pid: int) -> tuple[int, str]:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return -1, "X"
    fields = stat.rsplit(")", 1)[1].split()
    return int(fields[1]), fields[0]


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running (not zombie) process."""
    _, state = _ppid_and_state(pid)
    return state not in ("X", "Z")


def wait_gone(pid: int, timeout: float = 8.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def server_children(marker: str, parent: int | None = None) -> set[int]:
    """Live child processes of ``parent`` (this process) whose command line has ``marker``."""
    parent = os.getpid() if parent is None else parent
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        ppid, state = _ppid_and_state(pid)
        if ppid == parent and state not in ("X", "Z") and marker in _cmdline(pid):
            found.add(pid)
    return found


def stdio_oracle_servers() -> set[int]:
    """Live children running the built-in server over stdio (not the ``--http`` one)."""
    return {pid for pid in server_children("workbench.tools.mcp.server")
            if "--http" not in _cmdline(pid)}


#: Server pids that session-scoped fixtures own (checked when those fixtures close).
SESSION_SERVERS: set[int] = set()


def all_server_children() -> set[int]:
    """Every live child of this process that runs one of the servers these tests start."""
    return set().union(*(server_children(marker) for marker in SERVER_MARKERS))


def flaky_requests(log: Path) -> list[dict]:
    """Every request the flaky server logged: {"pid", "method", "tool"}."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def logged_requests(log: Path) -> list[dict]:
    """Every request a test server (flaky or hostile) logged: {"pid", "method", "tool"}."""
    return flaky_requests(log)
