"""Fixtures for the MCP transport tests: real servers as subprocesses, shared where honest.

Starting a Python MCP server costs 1.5-2 s on a small machine, so the servers tests only
read from (the HTTP oracle, the MCP_ORACLE registry) live for the whole session. After
each module, a check proves that no server the module started outlived its connection;
the session-wide servers check their own exit when they close.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The helpers live beside this file (tests are not a package; tests/surface does the same).
sys.path.insert(0, str(Path(__file__).parent))

from mcp_helpers import (  # noqa: E402
    EVERYTHING,
    INSPECTOR,
    SESSION_SERVERS,
    all_server_children,
    free_port,
    server_children,
    wait_for_port,
    wait_gone,
)


@pytest.fixture(scope="module", autouse=True)
def no_leaked_servers() -> Iterator[None]:
    """After each module (its own fixtures closed), no server it started may still live."""
    before = all_server_children()
    yield
    leaked = all_server_children() - before - SESSION_SERVERS
    leaked = {pid for pid in leaked if not wait_gone(pid, timeout=2.0)}
    assert not leaked, f"MCP server processes outlived their connections: {leaked}"


@pytest.fixture(scope="session")
def mcp_log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp-logs")


@pytest.fixture(scope="session")
def http_oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The built-in server over Streamable HTTP on a free loopback port; yields its URL."""
    port = free_port()
    log = tmp_path_factory.mktemp("http-oracle") / "server.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "workbench.tools.mcp_server", "--http", str(port)],
            stdout=subprocess.DEVNULL, stderr=err,
        )
    SESSION_SERVERS.add(proc.pid)
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="session")
def oracle_registry() -> Iterator:
    """``default_tool_registry`` with ``MCP_ORACLE=1``: one stdio server for the session."""
    from workbench.tools.builtins import default_tool_registry

    before = server_children("workbench.tools.mcp_server")
    registry = default_tool_registry({"MCP_ORACLE": "1"})
    pids = server_children("workbench.tools.mcp_server") - before
    SESSION_SERVERS.update(pids)
    try:
        yield registry
    finally:
        registry.resolver.close()
        assert all(wait_gone(pid, timeout=1.0) for pid in pids), "close() left the server"


@pytest.fixture(scope="session")
def node() -> str:
    """Node.js and the npm packages in external/ (``make node`` installs them)."""
    import shutil

    exe = shutil.which("node")
    assert exe, "Node.js is needed for the external MCP peers; install it (apt-get install nodejs)"
    assert EVERYTHING.exists() and INSPECTOR.exists(), (
        "external MCP peers missing; run `make node` (cd external && npm ci)"
    )
    return exe
