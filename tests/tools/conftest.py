"""Fixtures for the MCP transport tests: real servers as subprocesses, shared where honest.

Starting a Python MCP server costs 1.5-2 s on a small machine, so the servers tests only
read from (the HTTP oracle, the MCP_ORACLE registry) are shared by every test in this
directory and stopped when the run moves on. After each module, a check proves that no
server the module started outlived its connection; the shared ones check their own exit
when they stop.
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


class _SharedServers:
    """Servers that tests here only read from, started on first use and shared.

    They stop as soon as the run leaves this directory (see ``pytest_runtest_teardown``),
    so tests elsewhere that count this process's server children see none of them.
    """

    def __init__(self) -> None:
        self.http: tuple[subprocess.Popen, str] | None = None
        self.registry = None
        self.registry_pids: set[int] = set()

    def http_oracle(self, log_dir: Path) -> str:
        if self.http is None:
            port = free_port()
            with open(log_dir / "http-oracle.log", "ab") as err:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "workbench.cli", "serve", "--http", str(port)],
                    stdout=subprocess.DEVNULL, stderr=err,
                )
            SESSION_SERVERS.add(proc.pid)
            try:
                wait_for_port(port, proc)
            except BaseException:
                proc.kill()
                raise
            self.http = (proc, f"http://127.0.0.1:{port}/mcp")
        return self.http[1]

    def oracle_registry(self):
        if self.registry is None:
            from workbench.tools.defaults import default_tool_registry

            before = server_children("workbench.tools.mcp.server")
            self.registry = default_tool_registry({"MCP_ORACLE": "1"})
            self.registry_pids = server_children("workbench.tools.mcp.server") - before
            SESSION_SERVERS.update(self.registry_pids)
        return self.registry

    def close(self) -> None:
        if self.http is not None:
            proc, _ = self.http
            self.http = None
            proc.terminate()
            proc.wait(10)
        if self.registry is not None:
            self.registry.resolver.close()
            self.registry = None
            assert all(wait_gone(pid, timeout=1.0) for pid in self.registry_pids), (
                "closing the MCP_ORACLE registry left its server running")


_shared = _SharedServers()


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    here = Path(__file__).parent
    if nextitem is None or here not in Path(nextitem.path).parents:
        _shared.close()


@pytest.fixture
def http_oracle(mcp_log_dir: Path) -> str:
    """The built-in server over Streamable HTTP on a free loopback port: its URL."""
    return _shared.http_oracle(mcp_log_dir)


@pytest.fixture
def oracle_registry():
    """``default_tool_registry`` with ``MCP_ORACLE=1``: one stdio server, shared."""
    return _shared.oracle_registry()


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
