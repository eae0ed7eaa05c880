"""Benchmark: what the workbench's MCP transport costs over the raw SDK, measured in one run.

Run ``python bench/bench_mcp.py`` (``--quick`` for a smoke run). It measures, against the
built-in server (``python -m workbench.tools.mcp.server``):

* per-call latency through ``ToolRegistry.call`` (grant check, schema validation, the
  thread bridge, error mapping) over one persistent stdio session, against the raw SDK
  ``Client.call_tool`` to the same server command, interleaved in rounds so machine noise
  hits both alike. Target: ratio of medians <= 1.15;
* the same over Streamable HTTP (both clients talk to the same server process);
* the cost of starting a connection (spawn + handshake + first tools/list) and closing it;
* calls per second with 8 calls in flight: 8 threads on the sync path, 8 tasks on another
  loop, 8 tasks on the connection's own loop, 8 tasks on the raw SDK, interleaved in
  rounds, so the connection's cost and the thread hop's are read apart.

It prints a table and writes ``bench/results/mcp.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from workbench.tools.mcp import MCPConnection, MCPResolver, oracle_server_command
from workbench.tools.registry import ToolRegistry

RESULTS = Path(__file__).resolve().parent / "results" / "mcp.json"
REPO = Path(__file__).resolve().parent.parent
TARGET_RATIO = 1.15


class Grants:
    tools = ("oracle",)


class RawClient:
    """The raw SDK client, owned by one task on a loop this thread drives between rounds."""

    def __init__(self, target: Any):
        self.loop = asyncio.new_event_loop()
        self.target = target
        self._stop = asyncio.Event()
        self._ready: asyncio.Future[Any] = self.loop.create_future()
        self._owner = self.loop.create_task(self._own())
        self.client = self.loop.run_until_complete(self._ready)

    async def _own(self) -> None:
        from mcp import Client

        try:
            async with Client(self.target, cache=None) as client:
                await client.list_tools()
                self._ready.set_result(client)
                await self._stop.wait()
        except BaseException as exc:
            if not self._ready.done():
                self._ready.set_exception(exc)
            raise

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def close(self) -> None:
        self._stop.set()
        self.loop.run_until_complete(self._owner)
        self.loop.close()


def stdio_target() -> Any:
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    cmd = oracle_server_command()
    errlog = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the benchmark
    return stdio_client(StdioServerParameters(command=cmd[0], args=cmd[1:]), errlog=errlog)


def per_call(registry: ToolRegistry, conn: MCPConnection, raw: RawClient, block: int,
             rounds: int) -> dict[str, Any]:
    """Alternate small blocks of calls (ours, raw; then raw, ours) so noise hits both.

    A third series awaits ``acall_tool`` on the connection's own loop: the same session
    without the thread hop, which shows what the sync edge costs.
    """
    ours: list[float] = []
    sdk: list[float] = []
    same_loop: list[float] = []
    seeds = itertools.count()

    async def loop_block() -> None:
        for _ in range(block):
            seed = f"s{next(seeds)}"
            started = time.perf_counter()
            await conn.acall_tool("oracle", {"seed": seed})
            same_loop.append(time.perf_counter() - started)

    async def raw_block() -> None:
        for _ in range(block):
            seed = f"s{next(seeds)}"
            started = time.perf_counter()
            await raw.client.call_tool("oracle", {"seed": seed})
            sdk.append(time.perf_counter() - started)

    def our_block() -> None:
        for _ in range(block):
            seed = f"s{next(seeds)}"
            started = time.perf_counter()
            registry.call("bench", Grants, "oracle", {"seed": seed})
            ours.append(time.perf_counter() - started)

    # Warm both paths (first-call imports, caches) before measuring.
    our_block()
    raw.run(raw_block())
    ours.clear()
    sdk.clear()
    for r in range(rounds):
        if r % 2:
            raw.run(raw_block())
            our_block()
        else:
            our_block()
            raw.run(raw_block())
        asyncio.run_coroutine_threadsafe(loop_block(), conn.loop).result()
    med_ours, med_sdk = statistics.median(ours), statistics.median(sdk)
    return {
        "calls_each": len(ours),
        "registry_median_ms": med_ours * 1000,
        "registry_p90_ms": _pct(ours, 0.9) * 1000,
        "raw_sdk_median_ms": med_sdk * 1000,
        "raw_sdk_p90_ms": _pct(sdk, 0.9) * 1000,
        "ratio": med_ours / med_sdk,
        "same_loop_median_ms": statistics.median(same_loop) * 1000,
        "same_loop_ratio": statistics.median(same_loop) / med_sdk,
    }


def in_flight(registry: ToolRegistry, conn: MCPConnection, raw: RawClient, n: int,
              rounds: int = 3) -> dict:
    """Calls per second with 8 in flight, four ways, interleaved in rounds (medians).

    ``threads``: ToolRegistry.call from 8 threads (each call hops onto the connection's
    loop and back); ``async``: 8 tasks on another loop awaiting ``acall_tool`` (one hop
    each way); ``own loop``: 8 tasks on the connection's own loop (no hop); ``raw SDK``: 8
    tasks on the raw client's loop. ``own loop`` against ``raw SDK`` is the connection's
    cost; ``threads`` against ``own loop`` is the thread hop's.
    """
    width = 8
    pool = ThreadPoolExecutor(width)

    def one(i: int) -> None:
        registry.call("bench", Grants, "oracle", {"seed": f"p{i}"})

    def threads() -> float:
        started = time.perf_counter()
        list(pool.map(one, range(n)))
        return n / (time.perf_counter() - started)

    async def gathered(call: Any) -> float:
        sem = asyncio.Semaphore(width)

        async def bounded(i: int) -> None:
            async with sem:
                await call(i)

        t0 = time.perf_counter()
        await asyncio.gather(*(bounded(i) for i in range(n)))
        return n / (time.perf_counter() - t0)

    def ours(i: int) -> Any:
        return conn.acall_tool("oracle", {"seed": f"a{i}"})

    def theirs(i: int) -> Any:
        return raw.client.call_tool("oracle", {"seed": f"r{i}"})

    samples: dict[str, list[float]] = {"threads": [], "async": [], "own": [], "raw": []}
    try:
        threads()  # the pool's threads started, the session warm
        for _ in range(rounds):
            samples["threads"].append(threads())
            samples["async"].append(asyncio.run(gathered(ours)))
            samples["own"].append(asyncio.run_coroutine_threadsafe(
                gathered(ours), conn.loop).result())
            samples["raw"].append(raw.run(gathered(theirs)))
    finally:
        pool.shutdown()
    med = {k: statistics.median(v) for k, v in samples.items()}
    return {
        "in_flight": width,
        "calls": n,
        "rounds": rounds,
        "registry_threads_calls_per_s": med["threads"],
        "connection_async_calls_per_s": med["async"],
        "connection_own_loop_calls_per_s": med["own"],
        "raw_sdk_calls_per_s": med["raw"],
    }


def connection_start(times: int) -> dict[str, Any]:
    starts, closes = [], []
    for _ in range(times):
        t0 = time.perf_counter()
        conn = MCPConnection(oracle_server_command(), name="bench-start").connect()
        t1 = time.perf_counter()
        conn.close()
        closes.append(time.perf_counter() - t1)
        starts.append(t1 - t0)
    return {
        "connections": times,
        "start_median_s": statistics.median(starts),
        "start_min_s": min(starts),
        "close_median_s": statistics.median(closes),
    }


def connections_in_a_run(ticks: int) -> dict[str, Any]:
    """oracle-grove over MCP_ORACLE=1: how many sessions served how many calls."""
    from workbench.engine.conductor import Conductor
    from workbench.tools.defaults import default_tool_registry

    registry = default_tool_registry(env={"MCP_ORACLE": "1"})
    start = time.perf_counter()
    try:
        result = Conductor.from_config(REPO / "config", "oracle-grove",
                                       registry=registry).run(ticks=ticks)
        connections = sum(c.connects for c in registry.resolver.connections)
    finally:
        registry.resolver.close()
    calls = len(result.ledger.of_kind("tool.called"))
    return {"ticks": ticks, "tool_calls": calls, "connections": connections,
            "calls_per_connection": calls / max(connections, 1),
            "seconds": time.perf_counter() - start}


def http_server() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench.cli", "serve", "--http", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port}/mcp"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls, for a smoke run")
    args = parser.parse_args()
    block, rounds, flight, starts = (10, 6, 80, 2) if args.quick else (10, 80, 800, 5)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": _cpus(),
                    "platform": platform.platform()},
        "target_ratio": TARGET_RATIO,
    }

    # stdio: ours and the raw SDK each hold one session to their own server process.
    resolver = MCPResolver([MCPConnection(oracle_server_command(), name="workbench")]).connect()
    registry = ToolRegistry()
    registry.attach(resolver)
    raw = RawClient(stdio_target())
    try:
        results["stdio"] = per_call(registry, resolver.connections[0], raw, block, rounds)
        results["stdio_in_flight"] = in_flight(registry, resolver.connections[0], raw, flight)
    finally:
        raw.close()
        resolver.close()

    # Streamable HTTP: both clients talk to one server process.
    proc, url = http_server()
    try:
        resolver = MCPResolver([MCPConnection(url, name="workbench-http")]).connect()
        registry = ToolRegistry()
        registry.attach(resolver)
        raw = RawClient(url)
        try:
            results["http"] = per_call(registry, resolver.connections[0], raw, block, rounds)
            results["http_in_flight"] = in_flight(
                registry, resolver.connections[0], raw, flight)
        finally:
            raw.close()
            resolver.close()
    finally:
        proc.terminate()
        proc.wait(10)

    results["connection_start"] = connection_start(starts)
    results["run"] = connections_in_a_run(50 if args.quick else 500)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    report(results)


def report(r: dict[str, Any]) -> None:
    print(f"MCP transport benchmark ({r['machine']['cpus']} CPUs, Python "
          f"{r['machine']['python']})")
    print(f"{'per call (median)':<28}{'registry':>10}{'raw SDK':>10}{'ratio':>7}  target"
          f"{'same loop':>16}{'ratio':>7}")
    for key, label in (("stdio", "stdio, persistent session"), ("http", "Streamable HTTP")):
        row = r[key]
        verdict = "ok" if row["ratio"] <= TARGET_RATIO else "OVER"
        print(f"{label:<28}{row['registry_median_ms']:>8.2f}ms{row['raw_sdk_median_ms']:>8.2f}ms"
              f"{row['ratio']:>7.3f}  <= {TARGET_RATIO} {verdict:<4}"
              f"{row['same_loop_median_ms']:>8.2f}ms{row['same_loop_ratio']:>7.3f}")
    print("(registry: ToolRegistry.call from a plain thread, through the thread bridge; same "
          "loop: acall_tool awaited on the connection's own loop, no thread hop)")
    print(f"{'8 calls in flight (calls/s)':<34}{'threads':>11}{'async':>11}{'own loop':>11}"
          f"{'raw SDK':>11}{'threads/raw':>13}{'own/raw':>9}")
    for key, label in (("stdio_in_flight", "stdio"), ("http_in_flight", "Streamable HTTP")):
        row = r[key]
        raw = row["raw_sdk_calls_per_s"]
        print(f"{label:<34}{row['registry_threads_calls_per_s']:>11.0f}"
              f"{row['connection_async_calls_per_s']:>11.0f}"
              f"{row['connection_own_loop_calls_per_s']:>11.0f}{raw:>11.0f}"
              f"{row['registry_threads_calls_per_s'] / raw:>13.2f}"
              f"{row['connection_own_loop_calls_per_s'] / raw:>9.2f}")
    print("(own loop: the connection's own cost, no thread hop; threads against own loop: what "
          "hopping between threads costs with 8 in flight)")
    start = r["connection_start"]
    print(f"connection start (spawn + handshake + tools/list): median "
          f"{start['start_median_s']:.2f} s, min {start['start_min_s']:.2f} s; close median "
          f"{start['close_median_s'] * 1000:.0f} ms")
    run = r["run"]
    per_call_spawn = start["start_median_s"] * run["tool_calls"]
    print(f"oracle-grove, {run['ticks']} ticks over MCP_ORACLE=1: {run['tool_calls']} calls on "
          f"{run['connections']} connection(s) = {run['calls_per_connection']:.0f} calls per "
          f"connection (target: one connection per server per run); run took "
          f"{run['seconds']:.1f} s, a session per call would add ~{per_call_spawn:.0f} s")
    print(f"wrote {RESULTS}")


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


if __name__ == "__main__":
    threading.current_thread().name = "bench"
    sys.exit(main())
