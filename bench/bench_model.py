"""Benchmark: what the workbench's model loop costs over a bare openai client call.

Run ``python bench/bench_model.py`` (``--quick`` for a smoke run). Against the loopback
OpenAI-compatible server of the tests (``tests/agents/chat_server.py``, run as its own
process so it does not share this interpreter's GIL), it measures:

* per model call, a run of an ``openai`` agent through the conductor (prompt, function
  definitions, the tool loop, fingerprint, the ledger, the calls' telemetry) against the
  same request made with the ``openai`` client directly, interleaved in rounds so machine
  noise hits both alike. Target: ratio of medians <= 1.10;
* replaying a 1,000-call cassette (recorded here from the same server) as a whole run
  with no network. Target: <= 1 s. Recording it live is the baseline beside it.

It prints a table and writes ``bench/results/model.json``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, report

from workbench.agents.cassette import Cassette
from workbench.agents.openai_model import models_for_run
from workbench.agents.render import function_definitions
from workbench.contracts.config import ConfigTree
from workbench.engine.conductor import Conductor
from workbench.tools.builtins import register_builtins
from workbench.tools.registry import ToolRegistry

KEY = "sk-bench"
TARGET_RATIO = 1.10
TARGET_REPLAY_S = 1.0


def write_config(root: Path, url: str) -> ConfigTree:
    (root / "agents").mkdir(parents=True)
    (root / "scenarios").mkdir()
    (root / "agents" / "teller.yaml").write_text(
        "name: teller\nrole: worker\npersona: Counts coins and says how many.\n"
        "may_emit: [coins.counted]\nschedule:\n  tick_every: 1\n"
        f"model:\n  backend: openai\n  model: bench-model\n  base_url: {url}\n"
        "  api_key_env: BENCH_KEY\nmemory:\n  window: 4\ntools: [oracle]\n")
    (root / "scenarios" / "bench.yaml").write_text(
        "name: bench\ncast: [teller]\ngovernor:\n  max_ticks: 1000\n")
    return ConfigTree.load(root)


def start_server() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(REPO / "tests/agents/chat_server.py"),
                             "--brain", "echo", "--api-key", KEY],
                            stdout=subprocess.PIPE, text=True, cwd=REPO)
    url = proc.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise SystemExit(f"the loopback server did not start (said {url!r})")
    return proc, url


def conductor(tree: ConfigTree, cassette: Cassette | None = None) -> Conductor:
    spec = tree.scenario("bench")
    cast = tree.cast_of(spec)
    return Conductor(spec, cast, register_builtins(ToolRegistry()),
                     models=models_for_run(cast, cassette=cassette))


def per_call(tree: ConfigTree, url: str, calls: int, rounds: int) -> tuple[float, float]:
    """Median microseconds per model call: through a run, and with the bare client."""
    import openai

    client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0)
    probe = conductor(tree)
    probed = probe.run(1)
    # The very request the agent sent at its first tick, made directly.
    agent = probe.agents[0]
    body = agent.model.request_body(probed.transcripts[0]["messages"][:2],
                                    function_definitions(agent.available_tools()))

    def direct() -> None:
        for _ in range(calls):
            client.chat.completions.create(**body)

    def workbench() -> None:
        conductor(tree).run(calls)

    ours, theirs = [], []
    direct()  # warm both paths: connections, imports
    workbench()
    for _ in range(rounds):
        for fn, samples in ((workbench, ours), (direct, theirs)):
            start = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - start) / calls * 1e6)
    client.close()
    return statistics.median(ours), statistics.median(theirs)


def replay_1000(tree: ConfigTree, folder: Path, calls: int) -> tuple[float, float, int]:
    """Seconds to record ``calls`` model calls live, and to replay them from the cassette."""
    path = folder / "bench.cassette.jsonl"
    start = time.perf_counter()
    tape = Cassette(path, "record")
    recorded = conductor(tree, tape).run(calls)
    tape.close()
    record_s = time.perf_counter() - start
    start = time.perf_counter()
    tape = Cassette(path, "replay")
    replayed = conductor(tree, tape).run(calls)
    replay_s = time.perf_counter() - start
    if replayed.final_hash != recorded.final_hash:
        raise SystemExit("replay gave another ledger than the recording")
    return record_s, replay_s, len(tape)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run, not a measurement")
    args = parser.parse_args()
    import os

    os.environ["BENCH_KEY"] = KEY
    calls, rounds, tape_calls = (20, 3, 100) if args.quick else (200, 7, 1000)
    proc, url = start_server()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            tree = write_config(Path(tmp) / "config", url)
            ours, theirs = per_call(tree, url, calls, rounds)
            record_s, replay_s, recorded = replay_1000(tree, Path(tmp), tape_calls)
    finally:
        proc.kill()
        proc.wait()
    ratio = ours / theirs
    report("model", [
        {"figure": "per model call: workbench run (loop, ledger, telemetry)", "value": ours,
         "unit": "us", "baseline": "openai client call", "baseline_value": theirs,
         "ratio": ratio, "target": f"<= {TARGET_RATIO}", "met": ratio <= TARGET_RATIO},
        {"figure": f"replay a {recorded:,}-call cassette (whole run)", "value": replay_s,
         "unit": "s", "baseline": "recording it live", "baseline_value": record_s,
         "ratio": replay_s / record_s, "target": f"<= {TARGET_REPLAY_S} s",
         "met": replay_s <= TARGET_REPLAY_S},
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())
