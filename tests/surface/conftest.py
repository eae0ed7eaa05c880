"""Fixtures for the surface tests: surfaces in tmp dirs, and live MCP servers.

Live servers are session-scoped: starting mcp-server-time costs seconds (its imports), so
each server starts once per test session and every test that needs it shares the session.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The shared test data lives beside this file; `conftest` itself is tests/conftest.py's name.
sys.path.insert(0, str(Path(__file__).parent))

from surface_data import EVERYTHING_CMD, SEND, TIME_CMD, WEATHER  # noqa: E402

from workbench.contracts.surface import save_policy, save_tools  # noqa: E402


@pytest.fixture
def make_surface(tmp_path):
    """make_surface(tools, capability=None, allow=None, modules=()) -> a surface directory."""
    counter = iter(range(1000))

    def make(tools=(WEATHER, SEND), capability=None, allow=None, modules=()):
        d = tmp_path / f"surface{next(counter)}"
        d.mkdir()
        save_tools(d, [dict(t) for t in tools])
        if capability is not None:
            save_policy(d, capability, allow, modules)
        return d

    return make


def _connection(argv, name, **kwargs):
    from workbench.tools.mcp import MCPConnection

    return MCPConnection(argv, name=name, **kwargs)


@pytest.fixture(scope="session")
def time_conn():
    """A live session with mcp-server-time (PyPI), shared by the whole test session."""
    conn = _connection(TIME_CMD, "time").connect()
    yield conn
    conn.close()


@pytest.fixture(scope="session")
def everything_conn():
    """A live session with server-everything (npm, node), with its late tools settled."""
    import time

    conn = _connection(EVERYTHING_CMD, "everything").connect()
    deadline = time.monotonic() + 5.0
    # It adds tools (simulate-research-query, ...) and announces them ~0.4 s after connect.
    while "simulate-research-query" not in conn.tool_names() and time.monotonic() < deadline:
        time.sleep(0.05)
    yield conn
    conn.close()
