"""A server target read once: a URL, or a command line with this interpreter for python."""

from __future__ import annotations

import sys

import pytest

from workbench.errors import ConfigError
from workbench.tools.mcp.target import parse_target


def test_an_http_url_is_an_endpoint_and_keeps_no_command():
    read = parse_target("  https://example.test/mcp ")
    assert (read.transport, read.url, read.argv) == ("http", "https://example.test/mcp", ())


def test_a_command_is_split_as_a_shell_would():
    read = parse_target("node 'my server.js' --port 1")
    assert (read.transport, read.url) == ("stdio", None)
    assert read.argv == ("node", "my server.js", "--port", "1") and read.env is None


def test_a_bare_python_is_this_interpreter_with_its_import_path(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/somewhere")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    read = parse_target(["python3", "-m", "workbench.tools.mcp.server"])
    assert read.argv[0] == sys.executable
    assert read.env == {"PYTHONPATH": "/somewhere"}
    # An environment the caller gave is kept as given.
    assert parse_target("python x.py", {"A": "1"}).env == {"A": "1"}


@pytest.mark.parametrize("target", ["", "   ", []])
def test_an_empty_command_is_one_config_error(target):
    with pytest.raises(ConfigError, match="it is empty; give a command line"):
        parse_target(target)
