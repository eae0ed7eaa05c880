"""MCPConnection and MCPResolver against real servers: the flaky test server over stdio and
the built-in server over Streamable HTTP. Nothing of ours is mocked."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from mcp_helpers import FLAKY, alive, flaky_requests, free_port, wait_for_port, wait_gone

from workbench.contracts.scenario import ServerSpec
from workbench.errors import CapabilityViolation, ToolCallError, ToolNotFound, WorkbenchError
from workbench.tools.builtins import oracle
from workbench.tools.defaults import default_tool_registry
from workbench.tools.mcp import (
    MCPConnection,
    MCPResolver,
    resolver_for_servers,
    split_servers,
)
from workbench.tools.registry import ToolRegistry

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess


class Grants:
    def __init__(self, *tools: str):
        self.tools = list(tools)


@pytest.fixture(scope="module")
def flaky_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("flaky") / "requests.jsonl"


@pytest.fixture(scope="module")
def flaky(flaky_log: Path, mcp_log_dir: Path):
    """One session to the flaky server for the module (tests that kill it reconnect it)."""
    conn = MCPConnection([sys.executable, str(FLAKY)], name="flaky", timeout=10,
                         env={"FLAKY_LOG": str(flaky_log)}, log_dir=mcp_log_dir)
    with conn:
        yield conn


def pid_of(conn: MCPConnection) -> int:
    return conn.call_tool("whoami")["pid"]


def wait_for(predicate, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    return predicate()


class TestSession:
    def test_lists_the_servers_tools_with_their_schemas(self, flaky):
        assert {"echo", "fail", "rpc_error", "sleep", "die", "grow"} <= set(flaky.tool_names())
        spec = flaky.get_spec("echo")
        assert spec.run is None
        assert spec.description == "Return the text you sent."
        assert spec.input_schema["required"] == ["text"]
        assert flaky.get_spec("no-such-tool") is None
        assert flaky.label == "stdio:flaky"

    def test_structured_result_is_returned_as_is(self, flaky):
        assert flaky.call_tool("echo", {"text": "hi"}) == {"text": "hi"}

    def test_unstructured_result_becomes_content_blocks(self, flaky):
        assert flaky.call_tool("banner", {"text": "hi"}) == {
            "content": [{"type": "text", "text": "HI"}]
        }

    def test_async_path(self, flaky):
        async def main():
            return await asyncio.gather(*(flaky.acall_tool("echo", {"text": str(i)})
                                          for i in range(5)))

        assert asyncio.run(main()) == [{"text": str(i)} for i in range(5)]

    def test_sync_call_inside_a_running_event_loop(self, flaky):
        async def cell():  # what a Jupyter cell is: code running inside a live loop
            asyncio.get_running_loop()
            first = flaky.call_tool("echo", {"text": "a"})
            second = flaky.call_tool("echo", {"text": "b"})
            return first, second

        assert asyncio.run(cell()) == ({"text": "a"}, {"text": "b"})

    def test_on_the_connections_own_loop_await_works_and_sync_refuses(self, flaky):
        async def on_its_loop():
            result = await flaky.acall_tool("echo", {"text": "home"})
            with pytest.raises(WorkbenchError, match="would deadlock"):
                flaky.call_tool("echo", {"text": "blocked"})
            return result

        future = asyncio.run_coroutine_threadsafe(on_its_loop(), flaky.loop)
        assert future.result(10) == {"text": "home"}

    def test_calls_from_many_threads_share_the_one_session(self, flaky):
        connects, pid = flaky.connects, pid_of(flaky)
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(lambda i: flaky.call_tool("echo", {"text": str(i)}),
                                    range(40)))
        assert results == [{"text": str(i)} for i in range(40)]
        assert flaky.connects == connects and pid_of(flaky) == pid

    def test_server_stderr_and_connection_events_go_to_a_log_file(self, flaky, mcp_log_dir):
        assert flaky.log_path is not None and flaky.log_path.parent == mcp_log_dir
        text = flaky.log_path.read_text()
        assert "connect #1" in text and str(FLAKY) in text


class TestErrorKinds:
    def test_an_exception_in_the_tool_is_a_tool_error_with_its_message(self, flaky):
        with pytest.raises(ToolCallError) as caught:
            flaky.call_tool("fail", {"message": "the well is dry"})
        assert caught.value.kind == "tool_error"
        assert "the well is dry" in caught.value.message
        assert caught.value.to_payload()["kind"] == "tool_error"

    def test_a_json_rpc_error_is_a_protocol_error(self, flaky):
        with pytest.raises(ToolCallError) as caught:
            flaky.call_tool("rpc_error", {"code": -32042, "message": "no such omen"})
        assert caught.value.kind == "protocol_error"
        assert caught.value.message == "no such omen (JSON-RPC error -32042)"

    def test_timeout_then_success_on_the_same_session(self, flaky, flaky_log):
        connects, pid = flaky.connects, pid_of(flaky)
        started = time.monotonic()
        with pytest.raises(ToolCallError) as caught:
            flaky.call_tool("sleep", {"seconds": 10}, timeout=0.3)
        assert caught.value.kind == "timeout"
        assert time.monotonic() - started < 3
        assert flaky.call_tool("echo", {"text": "still here"}) == {"text": "still here"}
        assert flaky.connects == connects and pid_of(flaky) == pid
        # The SDK told the server to stop working on the abandoned call.
        assert "notifications/cancelled" in [r["method"] for r in flaky_requests(flaky_log)]

    def test_server_killed_mid_call_is_a_transport_error_then_reconnects(self, flaky):
        connects, pid = flaky.connects, pid_of(flaky)
        outcome: dict = {}

        def long_call():
            try:
                flaky.call_tool("sleep", {"seconds": 20})
            except ToolCallError as exc:
                outcome["error"] = exc

        caller = threading.Thread(target=long_call)
        caller.start()
        time.sleep(0.3)  # the call is in flight on the server
        os.kill(pid, signal.SIGKILL)
        caller.join(10)
        assert outcome["error"].kind == "transport_error"
        assert "next call starts a new session" in outcome["error"].message
        # The next call reconnects: a new server process, the old one reaped.
        assert flaky.call_tool("echo", {"text": "back"}) == {"text": "back"}
        assert flaky.connects == connects + 1
        assert pid_of(flaky) != pid and wait_gone(pid)

    def test_server_exiting_during_a_call_is_a_transport_error_then_reconnects(self, flaky):
        pid = pid_of(flaky)
        with pytest.raises(ToolCallError) as caught:
            flaky.call_tool("die")
        assert caught.value.kind == "transport_error"
        # The ledger gets the message: nothing machine-specific (the log path is a hint).
        assert str(flaky.log_path) not in caught.value.message
        assert str(flaky.log_path) in str(caught.value)
        assert flaky.call_tool("echo", {"text": "again"}) == {"text": "again"}
        assert pid_of(flaky) != pid and wait_gone(pid)
        assert flaky.log_path.read_text().count("session lost") >= 1


class TestHttpReconnect:
    def test_an_http_server_that_goes_away_and_comes_back(self, tmp_path):
        port = free_port()
        command = [sys.executable, "-m", "workbench.cli", "serve", "--http", str(port)]

        def start() -> subprocess.Popen:
            proc = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            wait_for_port(port, proc)
            return proc

        proc = start()
        try:
            with MCPConnection(f"http://127.0.0.1:{port}/mcp", log_dir=tmp_path) as conn:
                assert conn.call_tool("oracle", {"seed": "a"}) == oracle("a")
                proc.kill()
                proc.wait(10)
                for _ in range(2):  # the lost session, then a server that is not there
                    with pytest.raises(ToolCallError) as caught:
                        conn.call_tool("oracle", {"seed": "b"})
                    assert caught.value.kind == "transport_error"
                assert "All connection attempts failed" in caught.value.message
                proc = start()
                assert conn.call_tool("oracle", {"seed": "c"}) == oracle("c")
        finally:
            proc.kill()
            proc.wait(10)


class TestListChanged:
    def test_added_and_removed_tools_are_relisted_and_recorded(self, flaky):
        flaky.drain_changes()
        flaky.call_tool("grow", {"name": "lantern"})
        changes = wait_for(lambda: "lantern" in flaky.tool_names() and flaky.drain_changes())
        assert changes == [{"server": "flaky", "cause": "list_changed", "added": ["lantern"],
                            "removed": [], "changed": []}]
        assert flaky.call_tool("lantern", {"text": "lit"}) == {"from": "lantern", "text": "lit"}
        flaky.call_tool("shrink", {"name": "lantern"})
        changes = wait_for(lambda: "lantern" not in flaky.tool_names() and flaky.drain_changes())
        assert changes[0]["removed"] == ["lantern"] and changes[0]["added"] == []
        assert flaky.drain_changes() == []

    def test_a_change_lands_on_the_ledger_of_the_run_in_progress(self, flaky, repo_root):
        from workbench.engine.conductor import Conductor
        from workbench.tools.builtins import register_builtins

        registry = register_builtins(ToolRegistry())
        registry.attach(MCPResolver([flaky]))  # not closed here: the module owns it
        flaky.drain_changes()

        def grow_after_tick_one(tick: int, total: int) -> None:
            if tick == 1:  # the server changes its tools while the run is going on
                flaky.call_tool("grow", {"name": "bell"})
                wait_for(lambda: "bell" in flaky.tool_names())

        conductor = Conductor.from_config(repo_root / "config", "oracle-grove",
                                          registry=registry, progress=grow_after_tick_one)
        result = conductor.run(ticks=3)
        events = result.ledger.of_kind("tool.list_changed")
        assert [e.payload for e in events] == [{"server": "flaky", "cause": "list_changed",
                                                "added": ["bell"], "removed": [],
                                                "changed": []}]
        assert events[0].tick == 2  # drained at the start of the next tick
        flaky.call_tool("shrink", {"name": "bell"})
        wait_for(lambda: "bell" not in flaky.tool_names())
        flaky.drain_changes()


class TestGrantBoundary:
    def test_an_ungranted_call_never_reaches_the_server(self, flaky, flaky_log):
        registry = ToolRegistry()
        registry.attach(MCPResolver([flaky]))
        before = len(flaky_requests(flaky_log))
        with pytest.raises(CapabilityViolation):
            registry.call("intruder", Grants("whoami"), "echo", {"text": "let me in"})
        assert flaky_requests(flaky_log)[before:] == []
        # The same call, granted, does reach it: the log is not simply empty.
        registry.call("friend", Grants("echo"), "echo", {"text": "hello"})
        seen = flaky_requests(flaky_log)[before:]
        assert [(r["method"], r["tool"]) for r in seen] == [("tools/call", "echo")]

    def test_schema_violating_args_never_reach_the_server_either(self, flaky, flaky_log):
        registry = ToolRegistry()
        registry.attach(MCPResolver([flaky]))
        before = len(flaky_requests(flaky_log))
        with pytest.raises(ToolCallError) as caught:
            registry.call("sloppy", Grants("echo"), "echo", {"text": 42})
        assert caught.value.kind == "tool_error"
        assert caught.value.message.startswith("invalid arguments")
        assert flaky_requests(flaky_log)[before:] == []


class TestResolver:
    def test_first_server_owns_a_shared_name_and_the_collision_is_reported(self, http_oracle):
        with MCPResolver([MCPConnection(http_oracle, name="first"),
                          MCPConnection(http_oracle, name="second")]) as resolver:
            assert resolver.tool_names() == ["oracle"]
            assert resolver.collisions == [
                {"tool": "oracle", "owner": "first", "shadowed": ["second"]}
            ]
            assert resolver.transport_label("oracle") == "http:first"
            assert resolver.connection_for("oracle").name == "first"
            assert resolver.call_tool("oracle", {"seed": "x"}) == oracle("x")

    def test_tools_of_several_servers_are_merged(self, flaky, http_oracle):
        resolver = MCPResolver([flaky, MCPConnection(http_oracle, name="web")])
        try:
            resolver.connect()
            names = resolver.tool_names()
            assert "oracle" in names and "echo" in names
            assert resolver.collisions == []
            assert resolver.transport_label("echo") == "stdio:flaky"
            assert resolver.transport_label("oracle") == "http:web"
            assert resolver.get_spec("missing") is None
            with pytest.raises(ToolNotFound, match="no MCP server offers tool 'missing'"):
                resolver.call_tool("missing", {})
            assert asyncio.run(resolver.acall_tool("oracle", {"seed": "y"})) == oracle("y")
        finally:
            resolver.connections[1].close()  # the flaky one belongs to the module

    def test_resolver_for_a_scenarios_servers(self, http_oracle):
        specs = [ServerSpec(name="grove", url=http_oracle, trusted=True)]
        with resolver_for_servers(specs) as resolver:
            assert resolver.transport_label("oracle") == "http:grove"
            assert resolver.connections[0].trusted is True
            assert resolver.call_tool("oracle", {"seed": "z"}) == oracle("z")


class TestEnvGate:
    def test_servers_are_split_on_double_colons_but_not_inside_ipv6_hosts(self):
        value = " python -m a :: http://[::1]:8000/mcp::https://x.example/mcp "
        assert split_servers(value) == [
            "python -m a", "http://[::1]:8000/mcp", "https://x.example/mcp"
        ]

    def test_mcp_servers_wins_over_mcp_oracle(self, http_oracle):
        registry = default_tool_registry({"MCP_SERVERS": http_oracle, "MCP_ORACLE": "1"})
        try:
            assert registry.local_names() == []
            assert [c.label for c in registry.resolver.connections] == [
                f"http:{http_oracle.split('/')[2]}"
            ]
            assert registry.call("seer", Grants("oracle"), "oracle", {"seed": "q"}) == oracle("q")
        finally:
            registry.resolver.close()

    def test_neither_variable_means_in_process(self):
        registry = default_tool_registry({})
        assert registry.resolver is None and registry.local_names() == ["oracle"]

    def test_importing_the_package_and_the_client_module_does_not_import_mcp(self):
        code = ("import sys, workbench, workbench.tools.mcp, workbench.tools.mcp.server;"
                "print('mcp' in sys.modules)")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True)
        assert out.stdout.strip() == "False"

    def test_bare_python_means_this_interpreter_and_names_are_derived(self):
        conn = MCPConnection("python -m mcp_server_time")
        assert conn.argv == [sys.executable, "-m", "mcp_server_time"]
        assert conn.name == "mcp_server_time" and conn.label == "stdio:mcp_server_time"
        node = MCPConnection("node external/node_modules/@x/server-everything/dist/index.js stdio")
        assert node.name == "server-everything"
        assert MCPConnection("/opt/bin/mcp-server-time --local-timezone UTC").name == (
            "mcp-server-time")
        assert MCPConnection("http://127.0.0.1:8765/mcp").label == "http:127.0.0.1:8765"
        assert not conn.connected and conn.connects == 0  # nothing started yet

    def test_configuration_mistakes_are_config_errors_that_say_what_to_do(self):
        from workbench.errors import ConfigError
        from workbench.tools.mcp import mcp_resolver_from_env

        with pytest.raises(ConfigError, match="WORKBENCH_MCP_TIMEOUT: 'soon' is not a number"):
            mcp_resolver_from_env({"MCP_ORACLE": "1", "WORKBENCH_MCP_TIMEOUT": "soon"})
        with pytest.raises(ConfigError, match="neither MCP_SERVERS nor MCP_ORACLE=1 is set"):
            mcp_resolver_from_env({"MCP_ORACLE": "0"})
        with pytest.raises(ConfigError, match="command: it is empty"):
            MCPConnection("   ")

    def test_a_server_that_cannot_start_is_a_transport_error_that_says_what_to_do(self, tmp_path):
        conn = MCPConnection(["/nonexistent/mcp-server", "--flag"], log_dir=tmp_path)
        with pytest.raises(ToolCallError) as caught:
            conn.connect()
        assert caught.value.kind == "transport_error"
        assert "could not start a session with MCP server 'mcp-server'" in caught.value.message
        assert "Check the command or URL" in caught.value.message
        conn.close()


class TestClose:
    """Last in the module on purpose: it closes the module's flaky connection."""

    def test_close_stops_the_server_and_is_idempotent(self, flaky):
        pid = pid_of(flaky)
        assert alive(pid)
        flaky.close()
        assert wait_gone(pid, timeout=1.0), "close() returned before the server was stopped"
        flaky.close()  # again: nothing happens
        with pytest.raises(ToolCallError, match="is closed"):
            flaky.call_tool("echo", {"text": "anyone?"})
        assert "closed" in repr(flaky) and not flaky.connected
        assert flaky.log_path.read_text().rstrip().endswith("closed")
