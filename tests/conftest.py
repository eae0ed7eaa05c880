"""Shared fixtures: a fresh copy of the shipped config, the repo root, a fresh registry."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from workbench.tools.builtins import register_builtins
from workbench.tools.registry import ToolRegistry

REPO = Path(__file__).resolve().parent.parent
#: Seconds a test that starts processes, a browser, a whole corpus or a notebook cell may
#: take: the default (pyproject's `timeout`, about 10 s) is for the inner loop.
LONG_TIMEOUT = 180
_LONG_MARKS = ("slow", "subprocess", "browser", "external")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give long tests (by their marks) and non-Python items their own, longer timeout.

    An explicit ``@pytest.mark.timeout(N)`` on a test or module still wins.
    """
    for item in items:
        if item.get_closest_marker("timeout") is not None:
            continue
        if not isinstance(item, pytest.Function) or any(
                item.get_closest_marker(m) is not None for m in _LONG_MARKS):
            item.add_marker(pytest.mark.timeout(LONG_TIMEOUT))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture
def keyless_chat_server():
    """The loopback OpenAI-compatible chat server (tests/agents/chat_server.py), no API key."""
    sys.path.insert(0, str(REPO / "tests" / "agents"))
    from chat_server import ChatServer

    srv = ChatServer(api_key=None).start()
    yield srv
    try:
        srv.stop()
    except OSError:  # a test that stopped it already
        pass


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    """A private copy of config/ that a test may edit."""
    dest = tmp_path / "config"
    shutil.copytree(REPO / "config", dest)
    return dest


@pytest.fixture
def asking_config(config_dir: Path) -> Path:
    """``config_dir`` plus scenario ``asking``: an agent calling an untrusted server's tool.

    The server (``workbench.surface.demo_server``) is not ours, so its read-only hint is
    not believed and each of the asker's two calls needs approval.
    """
    import sys

    (config_dir / "agents" / "asker.yaml").write_text(
        "name: asker\nrole: worker\nmay_emit: [quote.asked]\nschedule: {tick_every: 1}\n"
        "model: {backend: scripted}\ntools: [daily_quote]\nscript:\n"
        "  - call: daily_quote\n    params: {topic: patience}\n    say: asked\n")
    (config_dir / "scenarios" / "asking.yaml").write_text(
        "name: asking\ncast: [asker]\ngovernor: {max_ticks: 2}\nservers:\n  - name: quotes\n"
        f"    command: \"{sys.executable} -m workbench.surface.demo_server\"\n")
    return config_dir


@pytest.fixture
def registry() -> ToolRegistry:
    """A fresh in-process registry with the built-ins."""
    return register_builtins(ToolRegistry())


@pytest.fixture
def offline_env() -> dict[str, str]:
    """The environment without the MCP gate, for subprocesses that must run in-process."""
    env = {k: v for k, v in os.environ.items() if k not in ("MCP_SERVERS", "MCP_ORACLE")}
    env["PYTHONPATH"] = str(REPO)
    return env


@pytest.fixture(scope="session")
def python() -> str:
    return sys.executable


@pytest.fixture(scope="session")
def workbench_cli() -> list[str]:
    """The CLI as a subprocess command (the installed console script's code path)."""
    return [sys.executable, "-m", "workbench.cli"]
