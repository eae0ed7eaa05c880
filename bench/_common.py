"""Shared helpers for the benchmarks: medians of repeated runs, a table, JSON results.

Benchmarks measure a figure and its baseline side by side in one run and report the ratio,
because these machines are noisy and absolute times drift from run to run.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def per_call_us(fn: Callable[[], Any], number: int, repeat: int = 7) -> float:
    """Median over ``repeat`` runs of the time per call of ``fn``, in microseconds."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number * 1e6)
    return statistics.median(samples)


def interleaved_us(fns: dict[str, Callable[[], Any]], number: int, repeat: int = 9
                   ) -> dict[str, float]:
    """Per-call medians of several functions, measured in alternation so drift hits all."""
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(number):
                fn()
            samples[name].append((time.perf_counter() - start) / number * 1e6)
    return {name: statistics.median(values) for name, values in samples.items()}


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def audit_speed_row(figure: str, base: list[dict[str, Any]], n: int = 10_000,
                    ) -> tuple[dict[str, Any], int]:
    """Audit ``base`` renamed and repeated to ``n`` tools over three servers, best of 5.

    Renaming keeps the cross-server checks (collisions, confusables, shadowing) working on a
    full-size name table. Baseline: canonical JSON of the same tools, a floor for anything
    that reads every field once. Returns the row and the number of findings.
    """
    from workbench.audit import audit
    from workbench.contracts.canonical import canonical_json

    servers: dict[str, list[dict[str, Any]]] = {"alpha": [], "beta": [], "gamma": []}
    for i in range(n):
        tool = dict(base[i % len(base)])
        tool["name"] = f"{tool['name']}_{i // len(base)}"
        servers[("alpha", "beta", "gamma")[i % 3]].append(tool)
    best, findings = float("inf"), 0
    for _ in range(5):
        start = time.perf_counter()
        findings = len(audit(servers))
        best = min(best, time.perf_counter() - start)
    start = time.perf_counter()
    for tools in servers.values():
        for t in tools:
            canonical_json(t)
    floor = time.perf_counter() - start
    rate = n / best
    return {"figure": figure, "value": rate, "unit": "tools/s",
            "baseline": "canonical_json of each tool", "baseline_value": n / floor,
            "ratio": best / floor, "target": ">= 5,000 tools/s", "met": rate >= 5000}, findings


def report(name: str, rows: list[dict[str, Any]]) -> None:
    """Print rows as a table and write them to ``bench/results/<name>.json``.

    Each row: figure, value, unit, baseline, baseline_value, ratio, target, met.
    """
    cols = ["figure", "value", "baseline", "ratio", "target", "met"]
    table = []
    for row in rows:
        table.append([
            row["figure"],
            f"{_fmt(row['value'])} {row.get('unit', '')}".strip(),
            f"{row.get('baseline', '')}"
            + (f" = {_fmt(row['baseline_value'])} {row.get('unit', '')}"
               if row.get("baseline_value") is not None else ""),
            "" if row.get("ratio") is None else f"{row['ratio']:.3f}",
            row.get("target", ""),
            {True: "yes", False: "NO", None: ""}[row.get("met")],
        ])
    widths = [max(len(str(r[i])) for r in [cols, *table]) for i in range(len(cols))]
    print(f"\n== {name} ==")
    for r in [cols, *table]:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps({
        "benchmark": name, "python": sys.version.split()[0], "machine": platform.machine(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"), "rows": rows,
    }, indent=2))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 100 else f"{value:,.0f}"
    return str(value)
