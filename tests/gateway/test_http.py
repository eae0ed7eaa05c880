"""``workbench gateway --http``: the Streamable HTTP security rules, on real loopback HTTP.

The gateway serves through the workbench's one bounded HTTP server: loopback unless told,
a foreign ``Origin`` refused (403, the DNS-rebinding guard), a foreign ``Host`` refused
(421), a request body over the cap refused before it is read (413), a header that does
not arrive in time cut off (408).
"""

from __future__ import annotations

import http.client
import json
import signal
import socket
import subprocess
import sys
import time

import pytest
from gateway_helpers import (
    FLAKY,
    gateway_argv,
    gateway_env,
    kinds,
    ledger_lines,
    wait_until_called,
    write_config,
)
from mcp_helpers import free_port, wait_for_port

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}}
HEADERS = {"Content-Type": "application/json",
           "Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A gateway over the flaky server on a free loopback port, with small caps."""
    tmp = tmp_path_factory.mktemp("http")
    config = write_config(tmp, servers=[{"name": "flaky",
                                         "command": f"{sys.executable} {FLAKY}"}],
                          grants=["echo"])
    port = free_port()
    env = {**gateway_env(), "WORKBENCH_HTTP_MAX_REQUEST": "4096",
           "WORKBENCH_HTTP_HEADER_TIMEOUT": "1"}
    ledger = tmp / "gw.jsonl"
    err = open(tmp / "gateway.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([*gateway_argv(config, ledger, "--approve", "echo"),
                             "--http", str(port)], stdout=subprocess.DEVNULL, stderr=err,
                            env=env)
    try:
        wait_for_port(port, proc, timeout=60)
        yield port, ledger, tmp / "gateway.log"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        err.close()


def post(port: int, body: bytes, **headers: str) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/mcp", body=body, headers={**HEADERS, **headers})
    return conn.getresponse()


class TestStreamableHttpRules:
    def test_it_announces_a_loopback_url(self, served):
        port, _, log = served
        assert f"serving http://127.0.0.1:{port}/mcp" in log.read_text()

    def test_a_same_host_origin_is_served(self, served):
        port, _, _ = served
        response = post(port, json.dumps(INITIALIZE).encode(),
                        Origin=f"http://127.0.0.1:{port}")
        assert response.status == 200

    def test_a_foreign_origin_is_refused_with_403(self, served):
        port, _, _ = served
        response = post(port, json.dumps(INITIALIZE).encode(), Origin="http://evil.example")
        assert response.status == 403

    def test_a_foreign_host_is_refused_with_421(self, served):
        port, _, _ = served
        response = post(port, json.dumps(INITIALIZE).encode(), Host="evil.example")
        assert response.status == 421

    def test_a_body_over_the_cap_is_refused_with_413(self, served):
        port, _, _ = served
        big = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "echo", "arguments": {"text": "x" * 10_000}}}
        response = post(port, json.dumps(big).encode())
        assert response.status == 413
        assert "WORKBENCH_HTTP_MAX_REQUEST" in response.read().decode()

    def test_a_header_that_never_ends_is_cut_off(self, served):
        port, _, _ = served
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and no more
            answer = sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 408")
        assert time.monotonic() - started < 3 * 1 + 5

    def test_nothing_refused_here_reached_the_ledger_as_a_call(self, served):
        _, ledger, _ = served
        assert "tool.called" not in kinds(ledger)

    @pytest.mark.parametrize("bad", [{}, [1], True], ids=["object", "list", "bool"])
    def test_a_call_with_a_bad_id_is_refused_and_the_session_goes_on(self, served, bad):
        port, ledger, _ = served
        before = kinds(ledger).count("tool.called")
        opened = post(port, json.dumps(INITIALIZE).encode())
        session = opened.getheader("mcp-session-id")
        opened.read()
        headers = {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
        post(port, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}
                              ).encode(), **headers).read()
        refused = post(port, json.dumps({"jsonrpc": "2.0", "id": bad, "method": "tools/call",
                                         "params": {"name": "echo"}}).encode(), **headers)
        refused.read()
        assert refused.status in (202, 400)  # the SDK reads it as a notification: no answer
        answered = post(port, json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                          "params": {"name": "echo", "arguments": {
                                              "text": "on"}}}).encode(), **headers)
        body = answered.read().decode()
        assert answered.status == 200
        assert '"on"' in body
        assert kinds(ledger).count("tool.called") == before + 1  # the echo, and only it


class TestAHostThatCancelsOverHttp:
    def test_a_call_the_client_gives_up_on_is_recorded_as_cancelled(self, tmp_path):
        """The SDK's client sends ``notifications/cancelled`` when its caller gives up; the
        gateway's SDK server cancels the call, and the ledger keeps it (the server had it)."""
        import anyio
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        log = tmp_path / "flaky.log"
        config = write_config(tmp_path, servers=[{
            "name": "flaky", "command": f"env FLAKY_LOG={log} {sys.executable} {FLAKY}"}],
            grants=["echo", "sleep"])
        port = free_port()
        ledger = tmp_path / "gw.jsonl"
        proc = subprocess.Popen([*gateway_argv(config, ledger, "--approve", "*"),
                                 "--http", str(port)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=gateway_env())

        async def host() -> dict:
            url = f"http://127.0.0.1:{port}/mcp"
            async with Client(streamable_http_client(url), mode="legacy",
                              read_timeout_seconds=60) as client:
                async with anyio.create_task_group() as calls:
                    calls.start_soon(client.call_tool, "sleep", {"seconds": 30})
                    # The server has the call: now the client gives up on it.
                    await anyio.to_thread.run_sync(wait_until_called, log, "sleep")
                    calls.cancel_scope.cancel()
                with anyio.fail_after(30):  # the client's cancel reaches the gateway
                    while not [e for e in ledger_lines(ledger) if e["kind"] == "tool.called"]:
                        await anyio.sleep(0.05)
                result = await client.call_tool("echo", {"text": "on"})
                return result.structured_content

        try:
            wait_for_port(port, proc, timeout=60)
            answered = anyio.run(host)
            called = [e for e in ledger_lines(ledger) if e["kind"] == "tool.called"]
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
        assert answered == {"text": "on"}
        # On the ledger before the gateway stopped: the host's cancel, not the stop.
        assert [e["payload"]["tool"] for e in called] == ["sleep", "echo"]
        assert called[0]["payload"]["error"]["kind"] == "cancelled"

