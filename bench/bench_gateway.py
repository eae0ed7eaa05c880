"""Benchmark: a call through ``workbench gateway`` against the same server called directly.

Run ``python bench/bench_gateway.py`` (``--quick`` for a smoke run). One host, the raw SDK
``Client``, calls the built-in server's ``oracle`` two ways in the same run:

* directly: the server over stdio (``python -m workbench.tools.mcp.server``), or over
  Streamable HTTP (``workbench serve --http``);
* through the gateway: ``workbench gateway`` over stdio, its upstream that same server
  command over stdio; or ``workbench gateway --http``, its upstream that same HTTP server
  process. The scenario puts a curated surface in front and marks the server trusted
  (``readOnlyHint`` believed, so no approval), so every call takes the whole contract path:
  grant check, overlay and pin check, approval rule, schema, dispatch, ledger and calls
  log flushed.

Beside them, a pass-through relay (``bench/_relay.py``): one more process that copies bytes
between host and server, over stdio or TCP, and reads nothing. What it adds is the floor
under any proxy on this machine, so the gateway's figures are shown against it too.

It measures, interleaved in small blocks so machine noise hits all alike:

* per-call latency (medians), target <= 1.15x direct, stdio and HTTP;
* calls per second with 8 calls in flight over HTTP (and stdio), target >= 0.9x direct;
* the same per-call figure for a server call that takes ~20 ms (the flaky test server's
  ``sleep``), to show the gateway's cost is a fixed one per call;
* where that fixed cost goes: the gateway's own work in-process (``GatewayCalls.call``)
  against ``ToolRegistry.call`` on the same connection.

It prints a table and writes ``bench/results/gateway.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_mcp import RawClient, _cpus, _pct  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "gateway.json"
REPO = Path(__file__).resolve().parent.parent
FLAKY = REPO / "tests" / "tools" / "servers" / "flaky_server.py"
RELAY = Path(__file__).resolve().parent / "_relay.py"
TARGET_RATIO = 1.15
TARGET_THROUGHPUT = 0.9
IN_FLIGHT = 8


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited ({proc.returncode}) before listening")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def write_config(root: Path, http_url: str) -> Path:
    """Agent ``bencher`` (granted oracle and sleep) in three scenarios, each with a surface."""
    from workbench.contracts.surface import entry_from_wire, save_tools
    from workbench.tools.builtins import register_builtins
    from workbench.tools.registry import ToolRegistry

    config = root / "config"
    (config / "agents").mkdir(parents=True)
    (config / "scenarios").mkdir()
    (config / "agents" / "bencher.yaml").write_text(
        "name: bencher\nrole: worker\ntools: [oracle, sleep]\n")
    oracle = register_builtins(ToolRegistry()).spec("oracle").to_wire()
    save_tools(config / "surfaces" / "oracle", [dict(entry_from_wire(oracle),
                                                     description="Curated: read an omen.")])
    sleep = {"name": "sleep", "description": "Curated: sleep, then answer.", "parameters": {
        "type": "object", "properties": {"seconds": {"type": "number"}},
        "required": ["seconds"]}}
    save_tools(config / "surfaces" / "flaky", [sleep])
    servers = {
        "bench-stdio": ({"name": "workbench", "command": "python -m workbench.tools.mcp.server"},
                        "surfaces/oracle"),
        "bench-http": ({"name": "workbench", "url": http_url, "trusted": True},
                       "surfaces/oracle"),
        "bench-slow": ({"name": "flaky", "command": f"python {FLAKY}", "trusted": True},
                       "surfaces/flaky"),
    }
    for name, (server, surface) in servers.items():
        (config / "scenarios" / f"{name}.yaml").write_text(
            f"name: {name}\ntitle: Bench\ndefault_seed: 1\ngenesis_text: 'bench {{seed}}'\n"
            f"cast: [bencher]\nservers: [{json.dumps(server)}]\nsurface: {surface}\n")
    return config


def gateway_argv(config: Path, scenario: str, ledger: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "workbench.cli", "gateway", scenario, "--agent", "bencher",
            "--config", str(config), "--ledger", str(ledger), "--approve", "sleep", *extra]


def stdio(argv: list[str]) -> Any:
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    errlog = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the benchmark
    return stdio_client(StdioServerParameters(command=argv[0], args=argv[1:], cwd=str(REPO)),
                        errlog=errlog)


def per_call(clients: dict[str, RawClient], tool: str, args: Any, block: int,
             rounds: int) -> dict[str, Any]:
    """Blocks of calls from each client in turn, the order rotated each round.

    ``clients`` holds ``direct`` and ``gateway``, and ``relay`` where the pass-through relay
    is measured too; each figure but direct's has its ratio to direct.
    """
    times: dict[str, list[float]] = {name: [] for name in clients}
    counter = iter(range(10**9))

    async def run_block(client: RawClient, into: list[float]) -> None:
        for _ in range(block):
            started = time.perf_counter()
            result = await client.client.call_tool(tool, args(next(counter)))
            into.append(time.perf_counter() - started)
            assert not result.is_error, result

    order = list(clients.items())
    for _name, client in order:  # warm each (first-call imports, caches)
        client.run(run_block(client, []))
    for r in range(rounds):
        shift = r % len(order)
        for name, client in order[shift:] + order[:shift]:
            client.run(run_block(client, times[name]))
    med = {k: statistics.median(v) for k, v in times.items()}
    row: dict[str, Any] = {"calls_each": len(times["direct"])}
    for name in clients:
        row[f"{name}_median_ms"] = med[name] * 1000
        row[f"{name}_p90_ms"] = _pct(times[name], 0.9) * 1000
    for name in clients.keys() - {"direct"}:
        row[f"{name}_added_ms"] = (med[name] - med["direct"]) * 1000
        row[f"{name}_ratio"] = med[name] / med["direct"]
    row["added_ms"], row["ratio"] = row.pop("gateway_added_ms"), row.pop("gateway_ratio")
    return row


def _stat(path: Path) -> list[str] | None:
    """The fields of a ``/proc/PID/stat`` file after the command name (None: it is gone).

    Field 0 is the state, 1 the parent's pid, 11 and 12 user and system time in ticks.
    """
    try:
        return path.read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a live process has used (Linux's ``/proc``; 0 elsewhere)."""
    fields = _stat(Path(f"/proc/{pid}/stat"))
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (Linux's ``/proc``; none elsewhere)."""
    return [int(entry.parent.name) for entry in Path("/proc").glob("[0-9]*/stat")
            if (fields := _stat(entry)) is not None and int(fields[1]) == pid]


def spawned(make: Any, front: str | None) -> tuple[RawClient, dict[str, int]]:
    """``make()``'s client, and the processes it started by role (``front``, then server).

    The client's child is the server, or with ``front`` the relay or gateway whose own
    child is the server.
    """
    before = set(_children(os.getpid()))
    client = make()
    roles: dict[str, int] = {}
    for child in set(_children(os.getpid())) - before:
        if front is None:
            roles["server"] = child
        else:
            roles[front] = child
            roles.update(("server", grandchild) for grandchild in _children(child)[:1])
    return client, roles


def throughput(clients: dict[str, RawClient], calls: int, rounds: int = 3,
               chains: dict[str, dict[str, int]] | None = None) -> dict[str, Any]:
    """Calls per second with :data:`IN_FLIGHT` calls in flight, best of ``rounds`` each.

    ``chains`` names, per client, the processes its calls pass through by role (the
    server, and the relay or gateway in front); the CPU each spends per call is reported,
    with the host's own, so the ratio can be read against what the cores can give.
    """

    async def burst(client: RawClient) -> float:
        sem = asyncio.Semaphore(IN_FLIGHT)

        async def one(i: int) -> None:
            async with sem:
                await client.client.call_tool("oracle", {"seed": f"f{i}"})

        started = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(calls)))
        return calls / (time.perf_counter() - started)

    best = dict.fromkeys(clients, 0.0)
    cpu: dict[str, dict[str, float]] = {name: {} for name in clients}
    for _ in range(rounds):
        for name, client in clients.items():
            roles = (chains or {}).get(name, {})
            before = {role: cpu_seconds(pid) for role, pid in roles.items()}
            host = time.process_time()
            best[name] = max(best[name], client.run(burst(client)))
            spent = cpu[name]
            spent["host"] = spent.get("host", 0.0) + time.process_time() - host
            for role, pid in roles.items():
                spent[role] = spent.get(role, 0.0) + cpu_seconds(pid) - before[role]
    row: dict[str, Any] = {"in_flight": IN_FLIGHT, "calls": calls}
    for name in clients:
        row[f"{name}_calls_per_s"] = best[name]
        if chains and name in chains:
            row[f"{name}_cpu_ms_per_call"] = {role: spent * 1000 / (calls * rounds)
                                              for role, spent in cpu[name].items()}
    for name in clients.keys() - {"direct"}:
        row[f"{name}_ratio"] = best[name] / best["direct"]
    row["ratio"] = row.pop("gateway_ratio")
    direct_cpu = row.get("direct_cpu_ms_per_call")
    if direct_cpu:
        # At the target rate the cores give each call cores/rate of CPU; the host and the
        # server take theirs (as measured directly): what is left is all a proxy may spend.
        row["proxy_cpu_budget_ms"] = (_cpus() * 1000 / (TARGET_THROUGHPUT * best["direct"])
                                      - sum(direct_cpu.values()))
    return row


def raw_exchange(server: list[str], n: int) -> dict[str, Any]:
    """A ``tools/call`` as one JSON line written to the server and one read back (median).

    No SDK on the client's side: what the upstream leg of a call costs at the least, to set
    beside the SDK client's direct call (``stdio``'s direct figure) in the same run.
    """
    proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=REPO)
    assert proc.stdin is not None and proc.stdout is not None

    def exchange(message: dict[str, Any]) -> dict[str, Any]:
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline()) if "id" in message else {}

    try:
        exchange({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"}}})
        exchange({"jsonrpc": "2.0", "method": "notifications/initialized"})
        times = []
        for i in range(1, n + 1):
            started = time.perf_counter()
            reply = exchange({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
                "name": "oracle", "arguments": {"seed": f"r{i}"}}})
            times.append(time.perf_counter() - started)
            assert "result" in reply, reply
    finally:
        proc.stdin.close()
        proc.wait(20)
    return {"calls": n, "median_ms": statistics.median(times[n // 10:]) * 1000}


def own_work(config: Path, root: Path, n: int) -> dict[str, Any]:
    """The gateway's own work per call, in-process: GatewayCalls.call vs ToolRegistry.call."""
    from workbench.gateway import Gateway

    gateway = Gateway.open(config, "bench-stdio", "bencher", ledger=root / "own.jsonl",
                           note=lambda line: None)
    try:
        registry, manifest = gateway.contract.registry, gateway.contract.manifest
        samples: dict[str, list[float]] = {"registry": [], "gateway": []}
        for i in range(n):
            for name in ("registry", "gateway"):
                started = time.perf_counter()
                if name == "registry":
                    registry.call("bencher", manifest, "oracle", {"seed": f"o{i}"})
                else:
                    gateway.calls.call("oracle", {"seed": f"o{i}"})
                samples[name].append(time.perf_counter() - started)
    finally:
        gateway.close("bench over")
    med = {k: statistics.median(v) * 1000 for k, v in samples.items()}
    return {"calls_each": n, "registry_median_ms": med["registry"],
            "gateway_calls_median_ms": med["gateway"],
            "added_ms": med["gateway"] - med["registry"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls, for a smoke run")
    args = parser.parse_args()
    block, rounds, flight, slow_rounds, own = (10, 6, 160, 2, 50) if args.quick else \
        (10, 60, 800, 8, 400)
    root = Path(tempfile.mkdtemp(prefix="bench-gateway-"))
    procs: list[subprocess.Popen[bytes]] = []
    results: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": _cpus(),
                    "platform": platform.platform()},
        "target_ratio": TARGET_RATIO, "target_throughput": TARGET_THROUGHPUT}
    try:
        up_port = free_port()
        upstream = subprocess.Popen([sys.executable, "-m", "workbench.cli", "serve", "--http",
                                     str(up_port)], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
        procs.append(upstream)
        wait_port(up_port, upstream)
        up_url = f"http://127.0.0.1:{up_port}/mcp"
        config = write_config(root, up_url)
        oracle = lambda i: {"seed": f"s{i}"}  # noqa: E731

        server = [sys.executable, "-m", "workbench.tools.mcp.server"]
        clients, chains = {}, {}
        for name, front, argv in (
                ("direct", None, server),
                ("relay", "relay", [sys.executable, str(RELAY), "stdio", "--", *server]),
                ("gateway", "gateway", gateway_argv(config, "bench-stdio",
                                                    root / "stdio.jsonl"))):
            clients[name], chains[name] = spawned(lambda argv=argv: RawClient(stdio(argv)),
                                                  front)
        try:
            results["stdio"] = per_call(clients, "oracle", oracle, block, rounds)
            results["stdio_in_flight"] = throughput(clients, flight, chains=chains)
        finally:
            for client in clients.values():
                client.close()

        gw_port, relay_port = free_port(), free_port()
        served = subprocess.Popen(
            gateway_argv(config, "bench-http", root / "http.jsonl", "--http", str(gw_port)),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
        procs.append(served)
        relay = subprocess.Popen([sys.executable, str(RELAY), "tcp", str(relay_port),
                                  str(up_port)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        procs.append(relay)
        wait_port(gw_port, served)
        wait_port(relay_port, relay)
        clients = {"direct": RawClient(up_url),
                   "relay": RawClient(f"http://127.0.0.1:{relay_port}/mcp"),
                   "gateway": RawClient(f"http://127.0.0.1:{gw_port}/mcp")}
        try:
            results["http"] = per_call(clients, "oracle", oracle, block, rounds)
            results["http_in_flight"] = throughput(clients, flight, chains={
                "direct": {"server": upstream.pid},
                "relay": {"relay": relay.pid, "server": upstream.pid},
                "gateway": {"gateway": served.pid, "server": upstream.pid}})
        finally:
            for client in clients.values():
                client.close()

        wait = lambda i: {"seconds": 0.02}  # noqa: E731
        clients = {"direct": RawClient(stdio([sys.executable, str(FLAKY)])),
                   "gateway": RawClient(stdio(gateway_argv(config, "bench-slow",
                                                           root / "slow.jsonl")))}
        try:
            results["stdio_20ms_server"] = per_call(clients, "sleep", wait, block,
                                                    slow_rounds)
        finally:
            for client in clients.values():
                client.close()
        results["gateway_own_work"] = own_work(config, root, own)
        results["stdio_raw_exchange"] = raw_exchange(server, 10 * own)
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(root, ignore_errors=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    report(results)


def report(r: dict[str, Any]) -> None:
    print(f"\n== gateway ({r['machine']['cpus']} CPUs, Python {r['machine']['python']}) ==")
    print("relay: a pass-through process that copies bytes (bench/_relay.py), the floor "
          "under any proxy")
    print(f"{'per call (median)':<30}{'direct':>9}{'relay':>9}{'gateway':>9}{'added':>9}"
          f"{'ratio':>7}{'relay':>7}  target")
    for key, label in (("stdio", "stdio"), ("http", "Streamable HTTP"),
                       ("stdio_20ms_server", "stdio, a ~20 ms server call")):
        row = r[key]
        verdict = "ok" if row["ratio"] <= TARGET_RATIO else "OVER"
        relay = row.get("relay_median_ms")
        relay_ms = f"{relay:>7.2f}ms" if relay is not None else f"{'':>9}"
        relay_ratio = f"{row['relay_ratio']:>7.3f}" if relay is not None else f"{'':>7}"
        print(f"{label:<30}{row['direct_median_ms']:>7.2f}ms{relay_ms}"
              f"{row['gateway_median_ms']:>7.2f}ms{row['added_ms']:>7.2f}ms{row['ratio']:>7.3f}"
              f"{relay_ratio}  <= {TARGET_RATIO} {verdict}")
    print(f"{f'{IN_FLIGHT} calls in flight (calls/s)':<30}{'direct':>9}{'relay':>9}"
          f"{'gateway':>9}{'':>9}{'ratio':>7}{'relay':>7}  target")
    for key, label in (("http_in_flight", "Streamable HTTP"), ("stdio_in_flight", "stdio")):
        row = r[key]
        verdict = "ok" if row["ratio"] >= TARGET_THROUGHPUT else "UNDER"
        print(f"{label:<30}{row['direct_calls_per_s']:>9.0f}{row['relay_calls_per_s']:>9.0f}"
              f"{row['gateway_calls_per_s']:>9.0f}{'':>9}{row['ratio']:>7.3f}"
              f"{row['relay_ratio']:>7.3f}  >= {TARGET_THROUGHPUT} {verdict}")
    for key, label in (("http_in_flight", "HTTP"), ("stdio_in_flight", "stdio")):
        for name in ("direct", "relay", "gateway"):
            spent = r[key].get(f"{name}_cpu_ms_per_call")
            if spent:
                parts = ", ".join(f"{role} {ms:.2f}" for role, ms in spent.items())
                print(f"  CPU ms per call, {label} {name}: {parts} "
                      f"(all: {sum(spent.values()):.2f})")
        budget = r[key].get("proxy_cpu_budget_ms")
        if budget is not None:
            print(f"  {label}: to reach {TARGET_THROUGHPUT}x the direct rate on "
                  f"{r['machine']['cpus']} cores, a proxy may spend at most {budget:.2f} ms "
                  f"of CPU per call (the host's and the server's own, as measured directly, "
                  f"take the rest)")
    raw = r["stdio_raw_exchange"]
    print(f"a raw JSON-RPC line exchange with the same stdio server (no client SDK): "
          f"{raw['median_ms']:.2f} ms a call, against {r['stdio']['direct_median_ms']:.2f} ms "
          f"through the SDK's client (the gateway's upstream leg uses the SDK's client)")
    own = r["gateway_own_work"]
    print(f"the gateway's own work per call (in-process, same connection): "
          f"{own['gateway_calls_median_ms']:.2f} ms against ToolRegistry.call's "
          f"{own['registry_median_ms']:.2f} ms (+{own['added_ms']:.2f} ms: ledger, calls "
          f"log, flush)")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    sys.exit(main())
