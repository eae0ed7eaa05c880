"""Fixtures for the model tests: a loopback chat server and a config with an openai agent."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chat_server import ChatServer  # noqa: E402
from desk import API_KEY, desk_brain  # noqa: E402


@pytest.fixture
def chat_server():
    server = ChatServer(desk_brain, api_key=API_KEY).start()
    yield server
    try:
        server.stop()
    except OSError:
        pass


@pytest.fixture
def desk_registry():
    """The built-ins plus ``vault``, which the clerk is not granted."""
    from workbench.tools.builtins import register_builtins
    from workbench.tools.registry import ToolRegistry

    reg = register_builtins(ToolRegistry())
    reg.register("vault", "Opens the vault.", lambda: {"gold": 100})
    return reg


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv("DESK_API_KEY", API_KEY)
    return API_KEY
