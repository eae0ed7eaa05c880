"""A host's ``tools/call`` answered on the serving loop reads exactly as the SDK's answer.

The gateway answers a plain call itself (``GatewayServer.fast_call``) and hands everything
else to the SDK's server. A host must not be able to tell which answered: the raw host
below sends the same call twice on one stdio session, the first before the gateway knows
the session's version (so the SDK answers it) and the second after (so the loop does),
and compares the two answers and the two ledger events. The in-process tests pin what
``fast_call`` takes and what it hands on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gateway_helpers import (
    FLAKY,
    gateway_argv,
    gateway_env,
    ledger_lines,
    wait_until_called,
    write_config,
)
from mcp_helpers import free_port, wait_for_port

from workbench.engine.ledger import JsonlLedgerStore
from workbench.gateway import Gateway

GRANTS = ["echo", "banner", "fail", "rpc_error", "whoami", "sleep"]
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(mid: Any, tool: str, arguments: dict[str, Any] | None = None,
         **extra: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": tool, **extra}
    if arguments is not None:
        params["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": mid, "method": "tools/call", "params": params}


@pytest.fixture
def flaky_config(tmp_path: Path) -> Path:
    """An agent granted six of the flaky server's tools (not ``grow``)."""
    return write_config(tmp_path, servers=[{"name": "flaky",
                                            "command": f"{sys.executable} {FLAKY}"}],
                        grants=GRANTS)


class RawHost:
    """One stdio session with ``workbench gateway``, a line at a time."""

    def __init__(self, config: Path, ledger: Path, *extra: str):
        self.proc = subprocess.Popen(gateway_argv(config, ledger, *extra),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=gateway_env())

    def send(self, *messages: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        self.proc.stdin.flush()

    def ready(self) -> None:
        """The handshake and a ``tools/list``: the SDK has answered a tools request, so the
        loop knows the session's version and answers plain calls from here on."""
        self.send(INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": "ready",
                                            "method": "tools/list"})
        self.answers({1, "ready"})

    def answers(self, ids: set[Any]) -> dict[Any, dict[str, Any]]:
        """Read until every id in ``ids`` is answered (notifications are skipped)."""
        assert self.proc.stdout is not None
        found: dict[Any, dict[str, Any]] = {}
        while not ids <= set(found):
            raw = self.proc.stdout.readline()
            assert raw, f"the gateway closed its stdout; answered so far: {found}"
            reply = json.loads(raw)
            if "id" in reply:
                found[reply["id"]] = reply
        return found

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(30)


@contextlib.contextmanager
def ready_host(config: Path, ledger: Path) -> Iterator[RawHost]:
    """A raw host that approves everything, past :meth:`RawHost.ready`; it must close
    cleanly (exit 0) at the end."""
    host = RawHost(config, ledger, "--approve", "*")
    try:
        host.ready()
        yield host
    finally:
        assert host.close() == 0


def sdk_then_loop(config: Path, ledger: Path, request: dict[str, Any]) -> tuple[dict, dict]:
    """The answers to ``request`` sent twice: first the SDK's, then the loop's."""
    host = RawHost(config, ledger, "--approve", "*")
    try:
        host.send(INITIALIZE, INITIALIZED, {**request, "id": "first"})
        first = host.answers({1, "first"})["first"]
        host.send({**request, "id": "second"})
        second = host.answers({"second"})["second"]
    finally:
        assert host.close() == 0
    return first, second


pytestmark = [pytest.mark.subprocess, pytest.mark.slow]


class TestTheSameAnswer:
    @pytest.mark.parametrize("request_", [
        call(0, "echo", {"text": "structured ünïcode"}),
        call(0, "banner", {"text": "a plain text block"}),
        call(0, "fail", {"message": "broken on purpose"}),
        call(0, "rpc_error", {"code": -32042, "message": "no such thing"}),
        call(0, "echo", {"text": 5}),  # the input schema refuses it: nothing is sent
        call(0, "grow", {"name": "x"}),  # not granted
        call(0, "echo"),  # no arguments at all
    ], ids=["structured", "text-block", "tool-error", "json-rpc-error", "schema",
            "not-granted", "no-arguments"])
    def test_the_loop_answers_as_the_sdk_does_and_records_the_same(
            self, flaky_config: Path, tmp_path: Path, request_: dict[str, Any]) -> None:
        ledger = tmp_path / "gw.jsonl"
        first, second = sdk_then_loop(flaky_config, ledger, request_)
        assert {k: v for k, v in first.items() if k != "id"} == \
            {k: v for k, v in second.items() if k != "id"}
        events = [e for e in ledger_lines(ledger) if e["kind"] in
                  ("tool.called", "tool.denied", "agent.failed")]
        assert len(events) == 2
        assert events[0]["kind"] == events[1]["kind"]
        assert events[0]["payload"] == events[1]["payload"]
        assert JsonlLedgerStore.verify(ledger).complete

    def test_many_calls_in_flight_are_each_answered_once_and_recorded(
            self, flaky_config: Path, tmp_path: Path) -> None:
        ledger = tmp_path / "gw.jsonl"
        with ready_host(flaky_config, ledger) as host:
            host.send(*(call(100 + i, "sleep", {"seconds": 0.05 * (i % 4)})
                        for i in range(24)))
            found = host.answers({100 + i for i in range(24)})
        assert all(not reply["result"]["isError"] for reply in found.values())
        called = [e for e in ledger_lines(ledger) if e["kind"] == "tool.called"]
        assert len(called) == 24
        assert JsonlLedgerStore.verify(ledger).complete


class TestWhatTheLoopTakes:
    """``fast_call`` in-process, on the loop of the gateway's server session."""

    @pytest.fixture
    def gateway(self, flaky_config: Path, tmp_path: Path) -> Any:
        gateway = Gateway.open(flaky_config, "probe-house", "prober",
                               ledger=tmp_path / "gw.jsonl", approve=["echo"],
                               note=lambda line: None)
        gateway.server.build()
        try:
            yield gateway
        finally:
            gateway.close("test over")

    @staticmethod
    def fast(gateway: Any, request: dict[str, Any]) -> bytes | None:
        loop = gateway.contract.connections[0].loop
        return asyncio.run_coroutine_threadsafe(gateway.server.fast_call(request),
                                                loop).result(30)

    def test_a_legacy_call_waits_for_the_handshake_version(self, gateway: Any) -> None:
        assert self.fast(gateway, call(1, "echo", {"text": "x"})) is None
        gateway.server._legacy_version = "2025-11-25"
        reply = json.loads(self.fast(gateway, call(2, "echo", {"text": "x"})))
        assert reply == {"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": '{"text": "x"}'}],
            "structuredContent": {"text": "x"}, "isError": False}}

    def test_a_call_with_the_2026_envelope_is_answered_in_that_version(
            self, gateway: Any) -> None:
        from mcp_types import (
            CLIENT_CAPABILITIES_META_KEY,
            PROTOCOL_VERSION_META_KEY,
            SERVER_INFO_META_KEY,
        )

        meta = {PROTOCOL_VERSION_META_KEY: "2026-07-28", CLIENT_CAPABILITIES_META_KEY: {}}
        reply = json.loads(self.fast(gateway, call("m", "echo", {"text": "y"}, _meta=meta)))
        result = reply["result"]
        assert result["resultType"] == "complete"
        assert result["structuredContent"] == {"text": "y"}
        assert result["_meta"][SERVER_INFO_META_KEY]["name"] == "workbench-gateway"

    @pytest.mark.parametrize("request_", [
        call(3, "whoami", {}),  # needs a person's yes (not --approve'd): the SDK way asks
        call(3, "echo", {"text": "x"}, requestState="s"),  # a retry carrying an answer
        call(3, "echo", {"text": "x"}, task={"ttl": 5}),
        call(None, "echo", {"text": "x"}),
        call(3.5, "echo", {"text": "x"}),
        call(3, 7, {"text": "x"}),
        call(3, "echo", ["x"]),
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": "echo"},
    ], ids=["needs-a-person", "retry", "task", "null-id", "float-id", "name-not-text",
            "arguments-not-object", "params-not-object"])
    def test_what_it_hands_to_the_sdk_untouched(self, gateway: Any,
                                               request_: dict[str, Any]) -> None:
        gateway.server._legacy_version = "2025-11-25"
        before = len(gateway.record.ledger)
        assert self.fast(gateway, request_) is None
        assert len(gateway.record.ledger) == before  # nothing recorded, nothing sent


class TestServedOnTheSessionLoop:
    """Serving runs on the server session's loop thread; a signal still ends it cleanly."""

    @pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["int", "term"])
    @pytest.mark.parametrize("transport", ["stdio", "http"])
    def test_a_signal_ends_the_gateway_with_its_last_event_recorded(
            self, flaky_config: Path, tmp_path: Path, transport: str, sig: int) -> None:
        ledger = tmp_path / "gw.jsonl"
        extra = ["--approve", "*"]
        if transport == "http":
            port = free_port()
            extra += ["--http", str(port)]
        host = RawHost(flaky_config, ledger, *extra)
        proc = host.proc
        try:
            if transport == "http":
                wait_for_port(port, proc, timeout=60)
            else:
                host.send(INITIALIZE, INITIALIZED, call(2, "echo", {"text": "before"}))
                assert host.answers({1, 2})[2]["result"]["structuredContent"] == {
                    "text": "before"}
            proc.send_signal(sig)
            assert proc.wait(30) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        last = ledger_lines(ledger)[-1]
        assert last["kind"] == "gateway.stopped"
        assert last["payload"]["reason"] == "interrupted"
        assert JsonlLedgerStore.verify(ledger).complete


def cancel(mid: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": mid, "reason": "the user pressed stop"}}


def ping(mid: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": mid, "method": "ping"}



class TestAHostThatCancels:
    """A host's ``notifications/cancelled`` stops the call and the ledger still records it.

    The call may already have reached the server, so a cancelled call that leaves no record
    would be a hole in the record. Whichever side answers (the SDK for a session's first
    call, the loop after), the call is not answered, the ledger says it was cancelled, and
    the session goes on.
    """

    @pytest.mark.parametrize("first", [True, False], ids=["sdk", "loop"])
    def test_a_cancelled_call_is_recorded_and_not_answered(
            self, tmp_path: Path, first: bool) -> None:
        ledger, log = tmp_path / "gw.jsonl", tmp_path / "flaky.log"
        config = write_config(tmp_path, servers=[{
            "name": "flaky", "command": f"env FLAKY_LOG={log} {sys.executable} {FLAKY}"}],
            grants=GRANTS)
        host = RawHost(config, ledger, "--approve", "*")
        try:
            if first:  # sent with the handshake: the SDK answers (and cancels) it
                host.send(INITIALIZE, INITIALIZED, call("slow", "sleep", {"seconds": 30}))
                host.answers({1})
            else:
                host.ready()
                host.send(call("slow", "sleep", {"seconds": 30}))
            wait_until_called(log, "sleep")  # the server has it: now the host gives up
            host.send(cancel("slow"), ping("after"), call("next", "echo", {"text": "on"}))
            found = host.answers({"after", "next"})
        finally:
            assert host.close() == 0
        assert "slow" not in found
        assert found["next"]["result"]["structuredContent"] == {"text": "on"}
        called = [e for e in ledger_lines(ledger) if e["kind"] == "tool.called"]
        assert [e["payload"]["tool"] for e in called] == ["sleep", "echo"]
        assert called[0]["payload"]["error"]["kind"] == "cancelled"
        assert "may have" in called[0]["payload"]["error"]["message"]
        assert JsonlLedgerStore.verify(ledger).complete

    def test_a_ping_is_answered_while_calls_wait_for_a_place(
            self, flaky_config: Path, tmp_path: Path) -> None:
        ledger = tmp_path / "gw.jsonl"
        with ready_host(flaky_config, ledger) as host:
            # One more than the 32 the loop runs at once: the 33rd must wait, not the ping.
            host.send(*(call(100 + i, "sleep", {"seconds": 10}) for i in range(33)))
            host.send(ping("busy"))
            started = time.monotonic()
            host.answers({"busy"})
            waited = time.monotonic() - started
            host.send(*(cancel(100 + i) for i in range(33)))
        assert waited < 5, f"the ping waited {waited:.1f} s behind 33 calls"

    def test_a_host_that_floods_is_slowed_not_buffered(self, flaky_config: Path,
                                                       tmp_path: Path) -> None:
        """Past 32 running and 32 waiting, reading waits: the 65th call and the ping behind
        it are read only once a call has ended, and every call is still answered once."""
        ledger = tmp_path / "gw.jsonl"
        with ready_host(flaky_config, ledger) as host:
            host.send(*(call(100 + i, "sleep", {"seconds": 4}) for i in range(65)))
            host.send(ping("behind"))
            started = time.monotonic()
            found = host.answers({"behind"})
            waited = time.monotonic() - started
            found.update(host.answers({100 + i for i in range(65)} - set(found)))
        assert waited >= 3, f"the ping was read after {waited:.1f} s: nothing held the flood"
        assert all(not found[100 + i]["result"]["isError"] for i in range(65))
        called = [e for e in ledger_lines(ledger) if e["kind"] == "tool.called"]
        assert len(called) == 65



class TestAHostThatSendsMalformedCalls:
    """A host may send anything. A call whose id is not a string or an integer, or whose
    name, arguments or params have the wrong shape, is the SDK's to refuse (or to ignore),
    a cancel that names nothing cancels nothing, and the session goes on."""

    MALFORMED = [
        call({}, "echo", {"text": "x"}), call([1], "echo", {"text": "x"}),
        call(None, "echo", {"text": "x"}), call(True, "echo", {"text": "x"}),
        call(1.5, "echo", {"text": "x"}), call(10 ** 40, "echo", {"text": "x"}),
        call("", "echo", {"text": "x"}), call(7, ["echo"], {"text": "x"}),
        call(8, "echo", [1, 2]), call(9, "echo", {"text": "x"}, _meta=[1]),
        {"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": "echo"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": {}}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [1]},
    ]

    def test_malformed_calls_do_not_stop_the_gateway(self, flaky_config: Path,
                                                     tmp_path: Path) -> None:
        """One session takes every malformed message in turn, each followed by a ping that
        must be answered (so a failure names the message that stopped the gateway)."""
        ledger = tmp_path / "gw.jsonl"
        with ready_host(flaky_config, ledger) as host:
            for index, bad in enumerate(self.MALFORMED):
                host.send(bad, ping(f"after-{index}"))
                try:
                    host.answers({f"after-{index}"})
                except AssertionError as exc:
                    raise AssertionError(f"the gateway stopped after {bad}") from exc
            host.send(call("next", "echo", {"text": "on"}))
            found = host.answers({"next"})
        assert found["next"]["result"]["structuredContent"] == {"text": "on"}
        assert JsonlLedgerStore.verify(ledger).complete

    def test_a_cancel_in_the_same_read_as_its_call_stops_it(self, tmp_path: Path) -> None:
        """The call and its cancel in one write: the call never reaches the server and is
        not answered, and a later call with the same id is answered as a new call."""
        ledger, log = tmp_path / "gw.jsonl", tmp_path / "flaky.log"
        config = write_config(tmp_path, servers=[{
            "name": "flaky", "command": f"env FLAKY_LOG={log} {sys.executable} {FLAKY}"}],
            grants=GRANTS)
        with ready_host(config, ledger) as host:
            host.send(call("slow", "sleep", {"seconds": 30}), cancel("slow"), ping("after"))
            found = host.answers({"after"})
            host.send(call("slow", "echo", {"text": "again"}))
            found.update(host.answers({"slow"}))
        assert found["slow"]["result"]["structuredContent"] == {"text": "again"}
        assert "sleep" not in log.read_text(), "the cancelled call was sent upstream"
        called = [e["payload"]["tool"] for e in ledger_lines(ledger)
                  if e["kind"] == "tool.called"]
        assert called == ["echo"]
