"""End to end: import two real servers, curate, and run a scenario through the surface."""

from __future__ import annotations

import shutil

import pytest
from surface_data import REPO

from workbench.agents.models import ModelReply, ModelRequest, ScriptedModel
from workbench.contracts.config import ConfigTree
from workbench.engine.conductor import Conductor
from workbench.surface.approval import ApprovalGuard, ApprovalPolicy
from workbench.surface.edits import apply
from workbench.surface.importer import import_surface
from workbench.surface.overlay import CuratedResolver
from workbench.tools.mcp import MCPResolver
from workbench.tools.registry import ToolRegistry

CURATED = "Read the clock: the current date and time in one IANA timezone."


class Recording:
    """A scripted model that also keeps every request (what the agent was shown)."""

    def __init__(self, steps):
        self.inner = ScriptedModel(steps)
        self.requests: list[ModelRequest] = []

    def respond(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        return self.inner.respond(request)


@pytest.mark.external
class TestWatchHouse:
    def test_agent_sees_curated_text_and_servers_get_unchanged_arguments(
            self, tmp_path, time_conn, everything_conn):
        config = tmp_path / "config"
        shutil.copytree(REPO / "config", config)
        surface = config / "surfaces" / "watch-house"
        shutil.rmtree(surface)
        import_surface([time_conn, everything_conn], surface)
        keep = {"get_current_time", "echo"}
        out = apply(surface, [
            {"tool": "get_current_time", "kind": "description", "value": CURATED},
            {"tool": "echo", "kind": "description", "value": "Repeat a message exactly."},
            *({"tool": t, "kind": "remove"} for t in
              [n for n in everything_conn.tool_names() + time_conn.tool_names()
               if n not in keep]),
        ])
        assert out["refused"] == []

        tree = ConfigTree.load(config)
        registry = ToolRegistry()
        CuratedResolver.from_dir(surface, MCPResolver([time_conn, everything_conn])).install(
            registry)
        policy = ApprovalPolicy(allow=["get_current_time", "echo"])
        ApprovalGuard(policy).install(registry)
        model = Recording(tree.agents["timekeeper"].script)
        result = Conductor.from_config(tree, "watch-house", registry=registry,
                                       models={"timekeeper": model}).run()

        prompt = model.requests[0].prompt
        assert f"get_current_time(timezone: string): {CURATED}" in prompt
        assert "Get current time in a specific timezone" not in prompt
        assert "get-env" not in prompt  # hidden by curation: invisible
        calls = result.ledger.of_kind("tool.called")
        assert [(e.payload["tool"], e.payload["params"]) for e in calls] == [
            ("get_current_time", {"timezone": "Europe/Oslo"}),
            ("echo", {"message": "The watch is set."})]
        # What the servers answer shows what they received: the arguments, unchanged.
        assert calls[0].payload["result"]["timezone"] == "Europe/Oslo"
        assert calls[1].payload["result"]["content"][0]["text"] == "Echo: The watch is set."
        denied = result.violations
        assert [(e.payload["tool"], e.payload["reason"]) for e in denied] == [
            ("get-env", "hidden by curation")]
        # Both servers are untrusted: their read-only hints did not skip the approver.
        assert [r.tool for r in policy.asked] == ["get_current_time", "echo"]

    def test_shipped_surface_is_valid_and_curated(self):
        from workbench.surface.validate import validate

        report = validate(REPO / "config/surfaces/watch-house")
        assert report == {"ok": True, "tools": 3, "problems": []}
