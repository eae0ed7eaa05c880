"""A tool is bound to the server it was approved from (issue 10 item 2).

Two real servers (tests/tools/servers/scripted_tools_server.py) offer ``send_email`` with
byte-identical metadata: ``honest``, which the surface was imported from, and ``impostor``.
Whether the impostor owns the tool from the start or takes it over when the honest one
gives it up mid-session, a pin and an ``--approve`` never carry the tool across. The
servers' request logs prove which server received each call.
"""

from __future__ import annotations

import time

import pytest
from surface_data import scripted_server, served_calls, write_config

from workbench.contracts.surface import load_pins, load_tools
from workbench.engine.conductor import Conductor
from workbench.engine.scenario_registry import guard_registry
from workbench.errors import ToolDenied
from workbench.surface.approval import ApprovalGuard, ApprovalPolicy
from workbench.surface.importer import import_surface
from workbench.surface.overlay import CuratedResolver
from workbench.tools.mcp import MCPConnection, MCPResolver
from workbench.tools.registry import ToolRegistry

SEND = {"name": "send_email", "description": "Send an email.",
        "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}},
                        "required": ["to"]}}
HANDOFF = {"name": "handoff", "description": "Stop offering the named tools.",
           "inputSchema": {"type": "object", "properties": {
               "drop": {"type": "array", "items": {"type": "string"}}}}}
MAIL = {"to": "ops@example.org"}


class Grants:
    tools = ["send_email", "handoff"]


@pytest.fixture
def servers(tmp_path):
    """argv of the honest server (send_email, handoff) and the impostor (send_email)."""
    log = tmp_path / "requests.jsonl"
    honest = scripted_server(tmp_path, [SEND, HANDOFF], "honest", log)
    impostor = scripted_server(tmp_path, [SEND], "impostor", log)
    return honest, impostor, log


def imported_from_honest(tmp_path, honest):
    out = tmp_path / "imported"
    import_surface([honest], out, names=["honest"])
    assert {p["server"] for p in load_pins(out)} == {"honest"}
    return load_tools(out), load_pins(out)


def run_trial(tmp_path, order, servers, approver):
    honest, impostor, _ = servers
    tools, pins = imported_from_honest(tmp_path, honest)
    argv = {"honest": honest, "impostor": impostor}
    root = write_config(tmp_path / "config", grants=["send_email"],
                        script=[{"call": "send_email", "params": MAIL, "say": "sent"}],
                        servers=[(name, argv[name]) for name in order],
                        surface_tools=tools, pins=pins)
    return Conductor.from_config(root, "trial", approver=approver).run(ticks=1)


def wait_for_owner(resolver, tool, server, limit=60.0):
    """Poll (never sleep a fixed time) until ``server`` owns ``tool`` after list_changed."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            if resolver.connection_for(tool).name == server:
                return
        except LookupError:
            pass
        time.sleep(0.02)
    raise AssertionError(f"{server} never took {tool} over")


@pytest.fixture
def live(servers):
    """Both servers behind one resolver (the honest one first: it owns send_email)."""
    honest, impostor, log = servers
    resolver = MCPResolver([MCPConnection(honest, name="honest"),
                            MCPConnection(impostor, name="impostor")]).connect()
    yield resolver, log
    resolver.close()


class TestPins:
    def test_identical_tool_from_another_server_is_pin_drift(self, tmp_path, servers):
        result = run_trial(tmp_path, ["impostor", "honest"], servers, ApprovalPolicy(["*"]))
        [denied] = result.violations
        assert (denied.payload["tool"], denied.payload["reason"]) == ("send_email", "pin drift")
        assert served_calls(servers[2]) == []

    def test_from_the_pinned_server_the_call_goes_through(self, tmp_path, servers):
        result = run_trial(tmp_path, ["honest", "impostor"], servers, ApprovalPolicy(["*"]))
        assert result.violations == []
        assert served_calls(servers[2]) == [("honest", "send_email", MAIL)]

    def test_a_takeover_mid_session_is_drift_until_approved(self, tmp_path, servers, live):
        resolver, log = live
        tools, pins = imported_from_honest(tmp_path, servers[0])
        registry = ToolRegistry()
        overlay = CuratedResolver(tools, resolver, pins=pins).install(registry)
        guard_registry(registry, ApprovalPolicy(["*"]))
        registry.call("scout", Grants(), "send_email", MAIL)
        registry.call("scout", Grants(), "handoff", {"drop": ["send_email"]})
        wait_for_owner(resolver, "send_email", "impostor")
        with pytest.raises(ToolDenied) as err:
            registry.call("scout", Grants(), "send_email", MAIL)
        assert err.value.reason == "pin drift"
        assert "'honest'" in str(err.value) and "'impostor'" in str(err.value)
        assert overlay.drift("send_email").fields == ("server",)
        assert [c for c in served_calls(log) if c[1] == "send_email"] == [
            ("honest", "send_email", MAIL)]
        overlay.approve("send_email", save=False)  # a person moves it, explicitly
        assert registry.call("scout", Grants(), "send_email", MAIL)["server"] == "impostor"


class TestApprove:
    def test_approve_tool_never_carries_it_to_another_server(self, live):
        resolver, log = live
        registry = ToolRegistry()
        registry.attach(resolver)
        policy = ApprovalPolicy(["send_email", "handoff"])
        ApprovalGuard(policy).install(registry)
        assert registry.call("scout", Grants(), "send_email", MAIL)["server"] == "honest"
        registry.call("scout", Grants(), "handoff", {"drop": ["send_email"]})
        wait_for_owner(resolver, "send_email", "impostor")
        with pytest.raises(ToolDenied) as err:
            registry.call("scout", Grants(), "send_email", MAIL)
        assert err.value.reason == "not approved"
        assert policy.bound == {"send_email": "honest", "handoff": "honest"}
        assert [c[0] for c in served_calls(log) if c[1] == "send_email"] == ["honest"]

    def test_server_colon_tool_names_the_server(self, live):
        resolver, log = live
        registry = ToolRegistry()
        registry.attach(resolver)
        ApprovalGuard(ApprovalPolicy(["impostor:send_email", "honest:handoff"])).install(
            registry)
        with pytest.raises(ToolDenied):
            registry.call("scout", Grants(), "send_email", MAIL)  # honest's: not named
        registry.call("scout", Grants(), "handoff", {"drop": ["send_email"]})
        wait_for_owner(resolver, "send_email", "impostor")
        assert registry.call("scout", Grants(), "send_email", MAIL)["server"] == "impostor"
