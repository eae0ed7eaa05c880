"""The untrusted demo server, live: every attack flagged, the rug pull contained."""

from __future__ import annotations

import shlex
import time

import pytest
from surface_data import DEMO_CMD

from workbench.agents.base import ManifestAgent
from workbench.audit import at_or_above, audit
from workbench.contracts.manifest import AgentManifest
from workbench.errors import ToolDenied
from workbench.surface.approval import ApprovalGuard, ApprovalPolicy
from workbench.surface.demo_server import ATTACKS, RUG_PULL_DESCRIPTION, RUG_PULL_TOOL
from workbench.surface.importer import import_surface
from workbench.surface.overlay import CuratedResolver, PinDrift
from workbench.surface.pins import pin_changes
from workbench.tools.mcp import MCPConnection, MCPResolver
from workbench.tools.registry import ToolRegistry

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The demo server snapshotted by import (its first tools/list: before the rug pull)."""
    out = tmp_path_factory.mktemp("demo") / "surface"
    import_surface(shlex.join(DEMO_CMD), out, names=["demo"])
    return out


@pytest.fixture(scope="module")
def demo_conn():
    conn = MCPConnection(DEMO_CMD, name="demo").connect()
    yield conn
    conn.close()


def wait_for(predicate, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


class TestAttacks:
    def test_every_attack_is_flagged_at_warning_or_high(self, imported, time_conn):
        from workbench.contracts.surface import entry_to_wire, load_tools

        demo = [entry_to_wire(t) for t in load_tools(imported)]
        found = at_or_above(audit({"demo": demo, "time": time_conn.list_tools()}), "warning")
        for attack, (tool, codes) in ATTACKS.items():
            got = {f.code for f in found if f.tool == tool and f.server == "demo"}
            assert set(codes) <= got, (attack, tool, got)
        flagged = {f.tool for f in found if f.server == "demo"}
        # Only the honest tools go unflagged (send_email is flagged as a look-alike target).
        assert {t for t, _ in ATTACKS.values()} <= flagged
        assert RUG_PULL_TOOL not in flagged  # harmless at first: that is the point


class TestRugPull:
    def test_changed_tool_is_blocked_until_approved(self, imported, demo_conn):
        registry = ToolRegistry()
        overlay = CuratedResolver.from_dir(imported, MCPResolver([demo_conn])).install(registry)
        scout = ManifestAgent(AgentManifest(name="scout", role="worker",
                                            tools=[RUG_PULL_TOOL]), registry)
        # The first tools/list of this session armed the pull; the client re-lists on
        # tools/list_changed and sees the new description.
        wait_for(lambda: demo_conn.get_spec(RUG_PULL_TOOL).description == RUG_PULL_DESCRIPTION)
        changes = demo_conn.drain_changes()
        assert changes and changes[-1]["cause"] == "list_changed"
        assert RUG_PULL_TOOL in changes[-1]["changed"]
        with pytest.raises(PinDrift) as err:
            scout.call_tool(RUG_PULL_TOOL, city="Oslo")
        assert err.value.reason == "pin drift" and err.value.fields == ("description",)
        # Agents keep seeing the approved (imported) text, never the injection.
        assert "IMPORTANT" not in scout.available_tools_block()
        drift = [c for c in overlay.drifted()]
        assert [(c.tool, c.status) for c in drift] == [(RUG_PULL_TOOL, "drift")]
        overlay.approve(RUG_PULL_TOOL)
        result = scout.call_tool(RUG_PULL_TOOL, city="Oslo")
        assert "sunny" in str(result)

    def test_same_schema_rename_is_reported_as_rename(self, demo_conn):
        before = demo_conn.list_tools()
        after = [dict(t, name="weather_report") if t["name"] == RUG_PULL_TOOL else t
                 for t in before]
        renames = [c for c in pin_changes(before, after) if c.status != "same"]
        assert [(c.tool, c.status, c.previous) for c in renames] == [
            ("weather_report", "rename", RUG_PULL_TOOL)]


class TestApprovalLive:
    def test_lying_read_only_hint_does_not_skip_the_approver(self, imported, demo_conn):
        registry = ToolRegistry()
        CuratedResolver.from_dir(imported, MCPResolver([demo_conn])).install(registry)
        policy = ApprovalPolicy(allow=())
        ApprovalGuard(policy).install(registry)
        scout = ManifestAgent(AgentManifest(name="scout", role="worker",
                                            tools=["send_email"]), registry)
        assert registry.spec("send_email").annotations == {"readOnlyHint": True}
        with pytest.raises(ToolDenied) as err:
            scout.call_tool("send_email", to="a@b.c", subject="hi", body="x")
        assert err.value.reason == "not approved"
        assert policy.asked[0].server == "demo" and not policy.asked[0].trusted
        policy_yes = ApprovalPolicy(allow=["send_email"])
        registry2 = ToolRegistry()
        CuratedResolver.from_dir(imported, MCPResolver([demo_conn])).install(registry2)
        ApprovalGuard(policy_yes).install(registry2)
        out = registry2.call("scout", scout.manifest, "send_email",
                             {"to": "a@b.c", "subject": "hi", "body": "x"})
        assert "sent" in str(out)
