"""Conductor throughput, ledger store write/verify, and ledger_frame at scale.

Targets: conductor >= 20,000 events/s (oracle-grove in-process, 10,000 ticks);
JsonlLedgerStore >= 100,000 events/s written and >= 100,000 events/s reopened and verified
(1,000,000 events); ledger_frame of 1,000,000 events <= 3 s and <= 1.5 GB peak.
Each part runs in its own process (``bench_engine.py conductor|store|frame``) so peak
memory is the part's own.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from _common import REPO, peak_rss_mb, report

from workbench.engine.conductor import Conductor
from workbench.engine.ledger import JsonlLedgerStore, Ledger
from workbench.tools.builtins import register_builtins
from workbench.tools.registry import ToolRegistry

N_STORE = 1_000_000


def conductor() -> None:
    registry = register_builtins(ToolRegistry())
    build = lambda: Conductor.from_config(REPO / "config", "oracle-grove", registry=registry)  # noqa: E731
    build().run(ticks=200)  # warm-up: imports, schema compilation
    start = time.perf_counter()
    result = build().run(ticks=10_000)
    elapsed = time.perf_counter() - start
    events = len(result.ledger)
    # Memory per event: what the kept ledger costs, measured apart from the timed run.
    tracemalloc.start()
    kept = build().run(ticks=2_000)
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    per_event = current / len(kept.ledger)
    rate = events / elapsed
    report("conductor", [
        {"figure": "conductor: oracle-grove in-process, 10,000 ticks", "value": rate,
         "unit": "events/s", "baseline": f"{events} events in {elapsed:.2f} s",
         "target": ">= 20,000 events/s", "met": rate >= 20_000},
        {"figure": "memory per kept event", "value": per_event, "unit": "bytes",
         "baseline": "tracemalloc, 2,000 ticks", "target": "reported", "met": None},
    ])


def store() -> None:
    payload = {"tool": "oracle", "params": {"seed": "Rain begins, light and unhurried."},
               "result": {"omen": "A heron stands still in moving water.", "index": 0}}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        start = time.perf_counter()
        with JsonlLedgerStore(path) as st:
            ledger = Ledger("bench:0", st)
            append = ledger.append
            for i in range(N_STORE):
                append(i // 4, "tool.called", "fortune-teller", payload, i - 1 if i else None)
                if i % 4 == 3:
                    st.flush()  # the conductor flushes once per tick
        write_s = time.perf_counter() - start
        del ledger
        size_mb = path.stat().st_size / 1e6
        start = time.perf_counter()
        check = JsonlLedgerStore.verify(path)
        verify_s = time.perf_counter() - start
        assert check.count == N_STORE and check.torn is None
        start = time.perf_counter()
        found = JsonlLedgerStore.read(path)
        read_s = time.perf_counter() - start
        assert len(found.events) == N_STORE and found.torn is None
    report("ledger_store", [
        {"figure": f"JsonlLedgerStore write ({N_STORE:,} events, {size_mb:.0f} MB)",
         "value": N_STORE / write_s, "unit": "events/s", "baseline": f"{write_s:.2f} s",
         "target": ">= 100,000 events/s", "met": N_STORE / write_s >= 100_000},
        {"figure": "JsonlLedgerStore.verify: reopen + verify chain (streamed)",
         "value": N_STORE / verify_s, "unit": "events/s", "baseline": f"{verify_s:.2f} s",
         "target": ">= 100,000 events/s", "met": N_STORE / verify_s >= 100_000},
        {"figure": "JsonlLedgerStore.read: reopen + verify + load every event",
         "value": N_STORE / read_s, "unit": "events/s", "baseline": f"{read_s:.2f} s",
         "target": ">= 100,000 events/s", "met": N_STORE / read_s >= 100_000},
    ])


def frame() -> None:
    from workbench.frames import ledger_frame

    ledger = Ledger("bench:0")
    for i in range(N_STORE):
        ledger.append(i // 4, "oracle.spoke", "fortune-teller",
                      {"text": "Patience; the answer is nearly ripe.", "omen": "x", "seed": "y"},
                      i - 1 if i else None)
    before = peak_rss_mb()
    ledger_frame(ledger.events[:1000])  # warm-up: import pandas
    start = time.perf_counter()
    df = ledger_frame(ledger)
    elapsed = time.perf_counter() - start
    peak = peak_rss_mb()
    assert len(df) == N_STORE
    report("ledger_frame", [
        {"figure": f"ledger_frame of {N_STORE:,} events", "value": elapsed, "unit": "s",
         "baseline": f"ledger alone peak {before:.0f} MB", "target": "<= 3 s",
         "met": elapsed <= 3.0},
        {"figure": "ledger_frame peak memory (process)", "value": peak, "unit": "MB",
         "baseline": f"ledger alone {before:.0f} MB", "ratio": peak / before,
         "target": "<= 1,500 MB", "met": peak <= 1500},
    ])


PARTS = {"conductor": conductor, "store": store, "frame": frame}

if __name__ == "__main__":
    if len(sys.argv) > 1:
        PARTS[sys.argv[1]]()
    else:
        for part in PARTS:
            subprocess.run([sys.executable, __file__, part], check=True)
