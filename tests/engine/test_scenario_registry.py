"""A run's registry: the scenario's own MCP servers behind its surface, or the env gate."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.engine.conductor import Conductor
from workbench.surface.approval import ApprovalPolicy
from workbench.tools.builtins import register_builtins
from workbench.tools.registry import ToolRegistry


def children_running(marker: str) -> set[int]:
    """Live child processes of this process whose command line contains ``marker``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and stat[0] not in "XZ" and marker in cmd:
            found.add(int(entry.name))
    return found


@pytest.mark.external
class TestScenarioServers:
    def test_servers_start_for_the_run_and_stop_after(self, repo_root):
        # Only the servers this run started count: on a shared pytest-xdist worker another
        # test's server may still be exiting when this one starts.
        before = children_running("mcp_server_time") | children_running("server-everything")
        conductor = Conductor.from_config(
            repo_root / "config", "watch-house",
            approver=ApprovalPolicy(allow=["get_current_time", "echo"]))
        started = (children_running("mcp_server_time")
                   | children_running("server-everything")) - before
        assert children_running("mcp_server_time") - before
        assert children_running("server-everything") - before
        result = conductor.run(ticks=3)
        assert not (children_running("mcp_server_time") & started)
        assert not (children_running("server-everything") & started)
        called = {e.payload["tool"]: e.payload for e in result.ledger.of_kind("tool.called")}
        assert called["get_current_time"]["params"] == {"timezone": "Europe/Oslo"}
        assert called["get_current_time"]["result"]["timezone"] == "Europe/Oslo"
        assert called["echo"]["params"] == {"message": "The watch is set."}
        assert [(e.payload["tool"], e.payload["reason"]) for e in result.violations] == [
            ("get-env", "hidden by curation")]

    def test_without_an_approver_untrusted_tools_are_refused(self, repo_root):
        result = Conductor.from_config(repo_root / "config", "watch-house").run(ticks=2)
        assert [(e.payload["tool"], e.payload["reason"]) for e in result.violations] == [
            ("get_current_time", "not approved"), ("echo", "not approved")]
        assert result.ledger.of_kind("tool.called") == []


class TestEnvGate:
    def test_mcp_oracle_gives_the_in_process_ledger(self, repo_root, monkeypatch):
        monkeypatch.setenv("MCP_ORACLE", "1")
        monkeypatch.delenv("MCP_SERVERS", raising=False)
        over_mcp = Conductor.from_config(repo_root / "config", "oracle-grove").run(ticks=6)
        assert {t["transport"] for t in over_mcp.telemetry.values()} == {"stdio:workbench"}
        in_process = Conductor.from_config(repo_root / "config", "oracle-grove",
                                           registry=register_builtins(ToolRegistry())).run(6)
        assert over_mcp.final_hash == in_process.final_hash
        assert not children_running("workbench.tools.mcp.server")
