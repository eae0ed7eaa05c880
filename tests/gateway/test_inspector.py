"""A host no one here wrote, on watch-house: the MCP Inspector CLI through the gateway.

The Inspector starts the gateway itself from the snippet ``workbench gateway --print-config
claude`` prints (its ``--config`` file format is Claude Desktop's), lists and calls over
stdio, then calls a gateway served over Streamable HTTP. It sees the timekeeper's granted
tools only, with the curated text and the servers' own schemas, as the servers themselves
give them to the same Inspector.
"""

from __future__ import annotations

import copy
import json
import signal
import subprocess
import sys

import pytest
from gateway_helpers import INSPECTOR, REPO, gateway_env, kinds, ledger_lines
from mcp_helpers import EVERYTHING, free_port, wait_for_port

pytestmark = [pytest.mark.external, pytest.mark.slow]

SERVER = "workbench-watch-house-timekeeper"


def inspector(*args: str, is_error: bool = False) -> dict:
    """What the Inspector CLI prints; it exits 5 (and still prints) for an isError result."""
    out = subprocess.run([str(INSPECTOR), "--cli", *args], capture_output=True, text=True,
                         timeout=90, cwd=REPO)
    assert out.returncode == (5 if is_error else 0), out.stderr
    return json.loads(out.stdout)


def snippet(tmp_path, ledger, *extra: str):
    out = subprocess.run([sys.executable, "-m", "workbench.cli", "gateway", "watch-house",
                          "--agent", "timekeeper", "--config", str(REPO / "config"),
                          "--ledger", str(ledger), *extra, "--print-config", "claude"],
                         capture_output=True, text=True, timeout=60, check=True,
                         env=gateway_env())
    path = tmp_path / f"{ledger.stem}.mcp.json"
    path.write_text(out.stdout)
    return path


def without_descriptions(schema):
    schema = copy.deepcopy(schema)
    for prop in schema.get("properties", {}).values():
        prop.pop("description", None)
    return schema


@pytest.fixture(scope="module")
def upstream(node):
    """What the two servers say of their tools, to the same Inspector, directly."""
    time_tools = inspector(sys.executable, "-m", "mcp_server_time", "--method", "tools/list")
    everything = inspector("node", str(EVERYTHING), "stdio", "--method", "tools/list")
    return {t["name"]: t for t in time_tools["tools"] + everything["tools"]}


class TestTheInspectorThroughTheGateway:
    def test_it_lists_only_the_granted_curated_tools_with_the_servers_schemas(
            self, node, tmp_path, upstream):
        config = snippet(tmp_path, tmp_path / "list.jsonl")
        tools = inspector("--config", str(config), "--server", SERVER, "--method",
                          "tools/list")["tools"]
        # get-env is granted too, but the surface hides it.
        assert [t["name"] for t in tools] == ["get_current_time", "echo"]
        curated = {t["name"]: t for t in json.loads(
            (REPO / "config/surfaces/watch-house/tools.json").read_text())["tools"]}
        for tool in tools:
            server = upstream[tool["name"]]
            assert tool["description"].startswith(curated[tool["name"]]["description"])
            assert tool["description"] != server["description"]
            assert tool.get("outputSchema") == server.get("outputSchema")
            assert tool["annotations"] == server["annotations"]
            assert without_descriptions(tool["inputSchema"]) == \
                without_descriptions(server["inputSchema"])

    def test_it_calls_over_stdio_and_the_call_is_on_the_ledger(self, node, tmp_path):
        ledger = tmp_path / "call.jsonl"
        config = snippet(tmp_path, ledger, "--approve", "echo")
        result = inspector("--config", str(config), "--server", SERVER, "--method",
                           "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi")
        assert result["isError"] is False
        assert "hi" in result["content"][0]["text"]
        assert kinds(ledger) == ["gateway.started", "approval.answered", "tool.called",
                                 "gateway.stopped"]

    def test_it_calls_over_http_and_a_refusal_is_an_is_error(self, node, tmp_path):
        ledger = tmp_path / "http.jsonl"
        port = free_port()
        with open(tmp_path / "gateway.log", "wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "workbench.cli", "gateway", "watch-house", "--agent",
                 "timekeeper", "--config", str(REPO / "config"), "--ledger", str(ledger),
                 "--approve", "echo", "--http", str(port)],
                stdout=subprocess.DEVNULL, stderr=err, env=gateway_env())
        try:
            wait_for_port(port, proc, timeout=60)
            url = f"http://127.0.0.1:{port}/mcp"
            echoed = inspector(url, "--method", "tools/call", "--tool-name", "echo",
                               "--tool-arg", "message=over http")
            # Listed, but not --approve'd, and the Inspector CLI cannot ask a person.
            refused = inspector(url, "--method", "tools/call", "--tool-name",
                                "get_current_time", "--tool-arg", "timezone=Europe/Oslo",
                                is_error=True)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(30)
        assert echoed["isError"] is False
        assert refused["isError"] is True
        assert "not approved" in refused["content"][0]["text"]
        events = ledger_lines(ledger)
        assert [e["kind"] for e in events] == [
            "gateway.started", "approval.answered", "tool.called", "tool.denied",
            "gateway.stopped"]
        assert "ledger:" in (tmp_path / "gateway.log").read_text()
        verified = subprocess.run([sys.executable, "-m", "workbench.cli", "verify",
                                   str(ledger)], capture_output=True, text=True, timeout=60)
        assert verified.returncode == 0, verified.stderr
