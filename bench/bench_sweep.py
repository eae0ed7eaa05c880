"""Sweeps: the speed-up of 2 local workers over 1, and the per-run cost of the Dask path.

Target: 2 local workers >= 1.7x faster than 1 on a CPU-bound sweep (2 cores; run it on an
otherwise idle machine: another busy process takes one of the two cores). Reported:
the Dask path's overhead per run against local processes, on the same tiny runs. Each
figure is measured side by side in this one run, alternating the two sides.
"""

from __future__ import annotations

import statistics
import tempfile
import time

from _common import REPO, report

from workbench.sweeps import sweep

CONFIG = REPO / "config"
# CPU-bound: 16 runs of ~0.5 s of conductor work each (oracle-grove, in-process tools), so
# the pool's start-up and the final Parquet join are small beside the work they spread.
HEAVY = dict(seeds="0-15", sets=["governor.max_ticks=4000"])
# Overhead: many runs that do almost nothing, so what remains is the executor's cost.
TINY = dict(seeds="0-39", sets=["governor.max_ticks=1"])


def _timed(**kwargs) -> float:
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        frame = sweep(CONFIG, "oracle-grove", out=out, **kwargs)
        elapsed = time.perf_counter() - start
    assert frame["error"].isna().all(), frame["error"].dropna().tolist()
    return elapsed


def main() -> None:
    from dask.distributed import Client, LocalCluster

    _timed(workers=2, **TINY)  # warm-up: imports, the forkserver
    one, two = [], []
    for _ in range(3):
        one.append(_timed(workers=1, **HEAVY))
        two.append(_timed(workers=2, **HEAVY))
    t1, t2 = statistics.median(one), statistics.median(two)
    rows = [{"figure": "sweep of 16 CPU-bound runs, 2 local workers", "value": t2, "unit": "s",
             "baseline": "1 worker", "baseline_value": t1, "ratio": t1 / t2,
             "target": "speed-up >= 1.7x", "met": t1 / t2 >= 1.7}]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        _timed(dask=client, **TINY)  # warm-up: workers import the workbench
        local, on_dask = [], []
        for _ in range(3):
            local.append(_timed(workers=2, **TINY))
            on_dask.append(_timed(dask=client, **TINY))
    runs = 40
    tl, td = statistics.median(local) / runs * 1e3, statistics.median(on_dask) / runs * 1e3
    rows.append({"figure": "per-run cost of 40 one-tick runs on Dask (2 workers)",
                 "value": td, "unit": "ms", "baseline": "2 local processes",
                 "baseline_value": tl, "ratio": td / tl, "target": "reported", "met": None})
    report("sweep", rows)


if __name__ == "__main__":
    main()
