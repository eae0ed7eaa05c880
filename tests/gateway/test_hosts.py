"""``workbench gateway --print-config``: each host's snippet, every path absolute.

A host starts its servers from a directory of its own choosing, so a relative path in the
snippet would name another config. The Claude snippet is also what the Inspector test
(test_inspector.py) hands the Inspector to start the gateway with.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main


def printed(capsys, *argv: str) -> dict:
    assert main(["gateway", "watch-house", "--agent", "timekeeper", *argv]) == 0
    return json.loads(capsys.readouterr().out)


NAME = "workbench-watch-house-timekeeper"


class TestPrintConfig:
    def test_claude_gets_a_stdio_command_with_absolute_paths(self, capsys, repo_root,
                                                              monkeypatch, tmp_path):
        monkeypatch.chdir(repo_root)
        snippet = printed(capsys, "--print-config", "claude", "--ledger", "gw.jsonl",
                          "--approve", "echo")
        entry = snippet["mcpServers"][NAME]
        args = entry["args"]
        assert Path(entry["command"]).is_absolute()
        assert args[:6] == ["-m", "workbench.cli", "gateway", "watch-house", "--agent",
                            "timekeeper"]
        assert args[args.index("--config") + 1] == str(repo_root / "config")
        assert args[args.index("--ledger") + 1] == str(repo_root / "gw.jsonl")
        assert args[-2:] == ["--approve", "echo"]
        assert "--print-config" not in args

    def test_cursor_and_vscode_get_their_own_shapes(self, capsys, repo_root, monkeypatch):
        monkeypatch.chdir(repo_root)
        cursor = printed(capsys, "--print-config", "cursor")
        assert set(cursor["mcpServers"][NAME]) == {"command", "args"}
        vscode = printed(capsys, "--print-config", "vscode")
        assert vscode["servers"][NAME]["type"] == "stdio"

    @pytest.mark.parametrize("host,where", [("cursor", "mcpServers"), ("vscode", "servers")])
    def test_with_http_the_snippet_points_at_the_url(self, capsys, repo_root, monkeypatch,
                                                     host, where):
        monkeypatch.chdir(repo_root)
        entry = printed(capsys, "--print-config", host, "--http", "8765")[where][NAME]
        assert entry["url"] == "http://127.0.0.1:8765/mcp"
        assert "command" not in entry

    def test_printing_starts_nothing_and_writes_nothing(self, capsys, repo_root, monkeypatch,
                                                        tmp_path):
        monkeypatch.chdir(repo_root)
        printed(capsys, "--print-config", "claude", "--ledger", str(tmp_path / "gw.jsonl"))
        assert list(tmp_path.iterdir()) == []
