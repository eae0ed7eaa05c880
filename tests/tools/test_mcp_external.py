"""Servers no one here wrote: mcp-server-time (PyPI) and server-everything (npm), started
from a scenario's ``servers:`` section, with their results and failures on the ledger."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest
from mcp_helpers import EVERYTHING

from workbench.contracts.config import ConfigTree
from workbench.engine.conductor import Conductor
from workbench.tools.mcp import resolver_for_servers
from workbench.tools.registry import ToolRegistry

pytestmark = pytest.mark.external

CLOCK_READER = """\
name: clock-reader
role: worker
persona: Reads the clock, and sometimes asks for a place that does not exist.
may_emit: [clock.read]
schedule:
  tick_every: 1
model:
  backend: scripted
tools: [get_current_time]
script:
  - call: get_current_time
    params: {timezone: Europe/Oslo}
    say: I read the clock in Oslo.
  - call: get_current_time
    params: {timezone: Mars/Olympus_Mons}
    say: I asked for the time on Mars.
"""

CRIER = """\
name: crier
role: worker
persona: Repeats what it is told.
may_emit: [crier.cried]
schedule:
  tick_every: 1
model:
  backend: scripted
tools: [echo]
script:
  - call: echo
    params: {message: hear ye}
    say: The crier cries.
"""


def scenario(name: str, cast: str, server: str, command: str) -> str:
    return (f"name: {name}\ncast: [{cast}]\ngovernor:\n  max_ticks: 2\n"
            f"servers:\n  - name: {server}\n    command: {command!r}\n")


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory, repo_root: Path) -> ConfigTree:
    root = tmp_path_factory.mktemp("external") / "config"
    shutil.copytree(repo_root / "config", root)
    (root / "agents" / "clock-reader.yaml").write_text(CLOCK_READER)
    (root / "agents" / "crier.yaml").write_text(CRIER)
    # As a scenario author writes them: a bare "python" (this interpreter) and a path
    # relative to the project directory (the resolver's cwd).
    (root / "scenarios" / "clock-tower.yaml").write_text(
        scenario("clock-tower", "clock-reader", "time", "python -m mcp_server_time"))
    everything = EVERYTHING.relative_to(repo_root)
    (root / "scenarios" / "crier-square.yaml").write_text(
        scenario("crier-square", "crier", "everything", f"node {everything} stdio"))
    return ConfigTree.load(root)


def run_with_servers(config: ConfigTree, name: str, resolver, ticks: int = 2):
    registry = ToolRegistry()
    registry.attach(resolver)
    return Conductor.from_config(config, name, registry=registry).run(ticks=ticks)


class TestMcpServerTime:
    def test_structured_result_and_a_bad_timezone_on_the_ledger(self, config, repo_root):
        servers = config.scenario("clock-tower").servers
        with resolver_for_servers(servers, cwd=repo_root) as resolver:
            assert resolver.connections[0].argv[0] == sys.executable
            assert resolver.transport_label("get_current_time") == "stdio:time"
            result = run_with_servers(config, "clock-tower", resolver)
        oslo, mars = (e.payload for e in result.ledger.of_kind("tool.called"))
        assert oslo["params"] == {"timezone": "Europe/Oslo"}
        assert set(oslo["result"]) == {"timezone", "datetime", "day_of_week", "is_dst"}
        assert oslo["result"]["timezone"] == "Europe/Oslo"
        assert mars["error"]["kind"] == "tool_error"
        assert "Invalid timezone" in mars["error"]["message"]
        assert "Mars/Olympus_Mons" in mars["error"]["message"]


@pytest.fixture(scope="module")
def everything(config: ConfigTree, node: str, repo_root: Path):
    servers = config.scenario("crier-square").servers
    with resolver_for_servers(servers, cwd=repo_root) as resolver:
        yield resolver


class TestServerEverything:
    def test_lists_its_tools(self, everything):
        names = everything.tool_names()
        assert {"echo", "get-sum", "get-env", "get-tiny-image",
                "trigger-long-running-operation"} <= set(names)
        echo = everything.get_spec("echo")
        assert echo.input_schema["required"] == ["message"]
        assert echo.annotations["readOnlyHint"] is True
        assert everything.transport_label("echo") == "stdio:everything"
        assert everything.connections[0].protocol_version == "2025-11-25"

    def test_its_list_changed_notification_is_handled_without_noise_on_the_ledger(
            self, everything, config):
        conn = everything.connections[0]
        # server-everything registers its capability-dependent tools when it receives
        # notifications/initialized, which the SDK sends before our first tools/list, and
        # then announces them with tools/list_changed. The connection re-lists ...
        deadline = time.monotonic() + 10
        while conn.list_changed_seen == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert conn.list_changed_seen >= 1
        assert "re-listed tools (list_changed): no difference" in conn.log_path.read_text()
        # ... the added tools are there, and since nothing differs from what it already
        # had, nothing is recorded: the ledger cannot depend on when the notice arrived.
        assert "simulate-research-query" in everything.tool_names()
        first = run_with_servers(config, "crier-square", everything, ticks=1)
        second = run_with_servers(config, "crier-square", everything, ticks=1)
        assert first.ledger.of_kind("tool.list_changed") == []
        assert first.final_hash == second.final_hash
        echo = first.ledger.of_kind("tool.called")[0].payload
        assert echo["result"] == {"content": [{"type": "text", "text": "Echo: hear ye"}]}

    def test_call_echo_and_get_sum_through_the_registry(self, everything):
        assert everything.call_tool("echo", {"message": "hi"}) == {
            "content": [{"type": "text", "text": "Echo: hi"}]
        }
        registry = ToolRegistry()
        registry.attach(everything)

        class Grants:
            tools = ("get-sum",)

        assert registry.call("adder", Grants, "get-sum", {"a": 1, "b": 2}) == {
            "content": [{"type": "text", "text": "The sum of 1 and 2 is 3."}]
        }
