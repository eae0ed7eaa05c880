"""The gateway's stdio: a request line over the cap is answered with an error, never held.

The host's side is written by hand here (raw JSON-RPC lines on the gateway's stdin), so a
line can be what no client library would send: 2 MB of arguments, or not JSON at all.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import pytest
from gateway_helpers import FLAKY, gateway_argv, gateway_env, kinds, write_config

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]


def line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"}}}


@pytest.fixture
def raw_host(tmp_path):
    """``send(lines, wait_for=ids) -> replies``: what the gateway wrote until those answered.

    The gateway's stdin stays open until every id in ``wait_for`` is answered (a host that
    closes it has gone away, and its calls in flight with it).
    """
    config = write_config(tmp_path, servers=[{"name": "flaky",
                                              "command": f"{sys.executable} {FLAKY}"}],
                          grants=["echo"])
    ledger = tmp_path / "gw.jsonl"

    def send(lines: list[bytes], wait_for: set) -> list[dict]:
        env = {**gateway_env(), "WORKBENCH_HTTP_MAX_REQUEST": "65536"}
        proc = subprocess.Popen(gateway_argv(config, ledger, "--approve", "echo"),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=env)
        replies = []
        reader = threading.Thread(target=lambda: replies.extend(
            json.loads(raw) for raw in iter(proc.stdout.readline, b"") if raw.strip()))
        reader.start()
        try:
            proc.stdin.write(b"".join(lines))
            proc.stdin.flush()
            deadline = time.monotonic() + 60
            while not wait_for <= {r.get("id") for r in list(replies)}:
                assert time.monotonic() < deadline, f"no answer to {wait_for}: {replies}"
                time.sleep(0.05)
        finally:
            proc.stdin.close()
            assert proc.wait(30) == 0
            reader.join(10)
        return replies

    return send, ledger


class TestBoundedStdio:
    def test_a_request_over_the_cap_is_answered_with_an_error_and_not_sent(self, raw_host):
        send, ledger = raw_host
        big = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": "echo", "arguments": {"text": "x" * 2_000_000}}}
        small = {"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                 "params": {"name": "echo", "arguments": {"text": "small"}}}
        replies = send([line(INITIALIZE),
                        line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                        line(big), line(small)], wait_for={1, 7, 8})
        by_id = {reply.get("id"): reply for reply in replies}
        assert by_id[7]["error"]["message"].startswith("request too large: 2000")
        assert "WORKBENCH_HTTP_MAX_REQUEST" in by_id[7]["error"]["message"]
        assert by_id[8]["result"]["structuredContent"] == {"text": "small"}
        assert kinds(ledger).count("tool.called") == 1  # only the small one

    def test_a_line_that_is_not_json_leaves_the_gateway_serving(self, raw_host):
        send, _ = raw_host
        ping = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
        replies = send([line(INITIALIZE),
                        line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                        b"\xff\xfe not json\n", line(ping)], wait_for={1, 9})
        assert any(reply.get("id") == 9 and "result" in reply for reply in replies)
