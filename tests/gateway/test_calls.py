"""Errors stay apart through the gateway, and nothing an upstream does stops it.

Each test drives a gateway in-process (its call path, as the MCP server runs it) over a
real misbehaving server: the flaky server (``isError``, a JSON-RPC error, dying mid-call)
and the hostile one (a 50 MB result, a call that hangs while the server is killed).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest
from gateway_helpers import FLAKY, hostile, write_config
from mcp_helpers import logged_requests

from workbench.gateway import Gateway
from workbench.gateway.calls import call_result

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]


def open_gateway(tmp_path, command, grants):
    config = write_config(tmp_path, servers=[{"name": "upstream", "command": command}],
                          grants=grants)
    return Gateway.open(config, "probe-house", "prober", ledger=tmp_path / "gw.jsonl",
                        approve=["*"], note=lambda line: None)


@pytest.fixture
def flaky(tmp_path):
    gateway = open_gateway(tmp_path, f"{sys.executable} {FLAKY}",
                           ["echo", "banner", "whoami", "fail", "rpc_error", "die", "ghost"])
    yield gateway
    gateway.close("test over")


def wait_for(predicate, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


class TestErrorsStayApart:
    def test_an_upstream_is_error_passes_through_as_is_error(self, flaky):
        outcome = flaky.calls.call("fail", {"message": "the vault is shut"})
        assert outcome.outcome == "tool_error"
        result = call_result(outcome)
        assert result["isError"] is True
        # The server's own words (the SDK server prefixes what the tool raised), unchanged.
        said = "Error executing tool fail: the vault is shut"
        assert result["content"][0]["text"] == said
        assert outcome.event.payload["error"] == {"kind": "tool_error", "message": said}

    def test_a_json_rpc_error_becomes_is_error_naming_it(self, flaky):
        outcome = flaky.calls.call("rpc_error", {"code": -32042, "message": "no such thing"})
        assert outcome.outcome == "protocol_error"
        text = call_result(outcome)["content"][0]["text"]
        assert text.startswith("protocol_error: the server answered with a JSON-RPC error")
        assert "no such thing" in text

    def test_a_structured_result_and_a_text_result_keep_their_shape(self, flaky):
        structured = call_result(flaky.calls.call("echo", {"text": "hi"}))
        assert structured["structuredContent"] == {"text": "hi"}
        assert structured["isError"] is False
        text = call_result(flaky.calls.call("banner", {"text": "hi"}))
        assert text == {"content": [{"type": "text", "text": "HI"}], "isError": False}

    def test_an_upstream_that_dies_mid_call_is_a_transport_error_then_reconnects(self, flaky):
        before = flaky.calls.call("whoami", {}).result["pid"]
        died = flaky.calls.call("die", {})
        assert died.outcome == "transport_error"
        assert call_result(died)["content"][0]["text"].startswith("transport_error:")
        after = flaky.calls.call("whoami", {})
        assert after.ok and after.result["pid"] != before

    def test_a_granted_tool_nothing_offers_is_recorded_as_a_run_records_it(self, flaky):
        outcome = flaky.calls.call("ghost", {})
        assert outcome.outcome == "not offered"
        assert outcome.event.kind == "agent.failed"
        assert outcome.event.payload["error"] == "ToolNotFound"
        assert call_result(outcome)["isError"] is True


class TestHostileUpstream:
    def test_a_50_mb_result_is_is_error_and_the_gateway_lives_on(self, tmp_path):
        log = tmp_path / "hostile.log"
        gateway = open_gateway(tmp_path, hostile("big", log), ["ok", "probe"])
        try:
            big = gateway.calls.call("probe", {})
            assert big.outcome == "tool_error"
            assert "result too large" in big.message
            assert len(big.event.payload["error"]["message"]) < 1000
            assert gateway.calls.call("ok", {"text": "still here"}).result == {
                "text": "still here"}
        finally:
            gateway.close("test over")

    def test_an_upstream_killed_mid_call_gives_transport_error_and_the_next_reconnects(
            self, tmp_path):
        log = tmp_path / "hostile.log"
        gateway = open_gateway(tmp_path, hostile("hang", log), ["whoami", "probe"])
        try:
            pid = gateway.calls.call("whoami", {}).result["pid"]
            outcomes = []
            hung = threading.Thread(target=lambda: outcomes.append(
                gateway.calls.call("probe", {})))
            hung.start()
            wait_for(lambda: any(r["tool"] == "probe" for r in logged_requests(log)))
            os.kill(pid, signal.SIGKILL)
            hung.join(30)
            assert outcomes[0].outcome == "transport_error"
            again = gateway.calls.call("whoami", {})
            assert again.ok and again.result["pid"] != pid
        finally:
            gateway.close("test over")
