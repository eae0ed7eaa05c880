"""Fixtures for the gateway tests: the helpers beside this file, and a clean process table.

Every test here that starts a gateway starts real subprocesses (the gateway, and the
servers it starts); after each module a check proves none outlived its test.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from mcp_helpers import all_server_children, server_children, wait_gone  # noqa: E402


def _gateways() -> set[int]:
    return server_children("workbench.cli gateway")


@pytest.fixture(scope="module", autouse=True)
def no_leaked_processes() -> Iterator[None]:
    """After each module, no gateway or server it started may still run."""
    before = all_server_children() | _gateways()
    yield
    leaked = (all_server_children() | _gateways()) - before
    leaked = {pid for pid in leaked if not wait_gone(pid, timeout=5.0)}
    assert not leaked, f"processes outlived their tests: {leaked}"


@pytest.fixture(scope="session")
def node() -> str:
    """Node.js and the npm packages in external/ (``make node`` installs them)."""
    import shutil

    from mcp_helpers import EVERYTHING, INSPECTOR

    exe = shutil.which("node")
    assert exe, "Node.js is needed for the external MCP peers; install it (apt-get install nodejs)"
    assert EVERYTHING.exists() and INSPECTOR.exists(), (
        "external MCP peers missing; run `make node` (cd external && npm install)")
    return exe
