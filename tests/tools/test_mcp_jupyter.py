"""MCP calls from a real Jupyter kernel (ipykernel, driven by jupyter_client): sync calls
inside the kernel's running event loop, reuse across cells, top-level await, a kernel
interrupt during a call, and no server left behind when the kernel dies."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator

import pytest
from mcp_helpers import FLAKY, flaky_requests, wait_gone


class Kernel:
    """A real kernel; ``run`` executes one cell and returns its stdout and status."""

    def __init__(self) -> None:
        from jupyter_client.manager import start_new_kernel

        env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}
        self.manager, self.client = start_new_kernel(kernel_name="python3", env=env)

    def run(self, code: str, timeout: float = 60.0) -> tuple[str, dict]:
        out: list[str] = []

        def hook(msg: dict) -> None:
            if msg["msg_type"] == "stream" and msg["content"]["name"] == "stdout":
                out.append(msg["content"]["text"])

        reply = self.client.execute_interactive(code, output_hook=hook, timeout=timeout)
        return "".join(out), reply["content"]

    def value(self, code: str) -> object:
        """Run a cell whose last line prints JSON; return the decoded value."""
        out, reply = self.run(code)
        assert reply["status"] == "ok", reply
        return json.loads(out.strip().splitlines()[-1])


#: Starts processes (a kernel, servers): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def flaky_log(tmp_path_factory: pytest.TempPathFactory):
    """Where the kernel's flaky server logs each request it receives."""
    return tmp_path_factory.mktemp("kernel-flaky") / "requests.jsonl"


def wait_until(predicate, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.fixture(scope="module")
def kernel() -> Iterator[Kernel]:
    k = Kernel()
    try:
        yield k
    finally:
        k.client.stop_channels()
        k.manager.shutdown_kernel(now=True)


class TestInAKernel:
    def test_sync_calls_inside_the_kernels_loop_and_reuse_across_cells(self, kernel,
                                                                         flaky_log):
        setup = f"""
import asyncio, json, sys
from workbench.tools.mcp import MCPConnection
conn = MCPConnection([sys.executable, {str(FLAKY)!r}], name="flaky",
                     env={{"FLAKY_LOG": {str(flaky_log)!r}}})
loop_running = asyncio.get_event_loop().is_running()
print(json.dumps([loop_running, conn.call_tool("echo", {{"text": "cell 1"}})]))
"""
        running, first = kernel.value(setup)
        assert running is True  # the cell ran inside a live event loop
        assert first == {"text": "cell 1"}
        second = kernel.value('print(json.dumps([conn.call_tool("echo", {"text": "cell 2"}),'
                              ' conn.connects, conn.call_tool("whoami")["pid"]]))')
        assert second[0] == {"text": "cell 2"} and second[1] == 1
        awaited = kernel.value('r = await conn.acall_tool("echo", {"text": "awaited"})\n'
                               'print(json.dumps(r))')
        assert awaited == {"text": "awaited"}

    def test_an_interrupted_call_leaves_the_session_usable(self, kernel, flaky_log):
        pid = kernel.value('print(json.dumps(conn.call_tool("whoami")["pid"]))')
        # stop_on_error=False: an errored cell makes ipykernel abort execute requests
        # that reach it before its "stop aborting" marker does; on a loaded machine the
        # next cell below could be one ("aborted", never run). What is tested here is our
        # session after the interrupt, not that ipykernel policy.
        kernel.client.execute('conn.call_tool("sleep", {"seconds": 60})', stop_on_error=False)
        # Interrupt only once the call is really waiting on the server (a fixed sleep
        # could fire before the cell even started on a busy machine).
        assert wait_until(lambda: any(r["tool"] == "sleep" for r in flaky_requests(flaky_log)))
        kernel.manager.interrupt_kernel()
        reply = kernel.client.get_shell_msg(timeout=60)
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        after = kernel.value('print(json.dumps([conn.call_tool("echo", {"text": "next"}),'
                             ' conn.connects, conn.call_tool("whoami")["pid"]]))')
        assert after == [{"text": "next"}, 1, pid]

    def test_no_server_outlives_a_killed_kernel(self, kernel):
        pid = kernel.value('print(json.dumps(conn.call_tool("whoami")["pid"]))')
        kernel.client.stop_channels()
        kernel.manager.shutdown_kernel(now=True)  # SIGKILL: no atexit, no close()
        # The server reads EOF on its stdin when its client process dies, and exits.
        assert wait_gone(pid, timeout=10.0)

