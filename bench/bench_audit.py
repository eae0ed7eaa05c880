"""Audit throughput: tools audited per second over a realistic mixed corpus.

Target: >= 5,000 tools/s. The corpus is the real descriptions pinned in
config/surfaces/watch-house (mcp-server-time, server-everything) plus every tool of the
untrusted demo server (hidden characters, injections, look-alike names), renamed and
repeated to 10,000 tools over three servers, so the cross-server checks (collisions,
confusables, shadowing) work on a full-size name table. Baseline: canonical JSON of the
same tools, a floor for anything that reads every field once.
"""

from __future__ import annotations

import json
import time

from _common import REPO, report

from workbench.contracts.events import canonical_json
from workbench.surface.audit import audit
from workbench.surface.demo_server import TOOLS

N = 10_000


def corpus() -> dict[str, list[dict]]:
    pins = json.loads((REPO / "config/surfaces/watch-house/pins.json").read_text())["tools"]
    base = [p["wire"] for p in pins]
    base += [{"name": n, "title": t, "description": d, "inputSchema": s, "annotations": a}
             for n, (t, d, s, a, _) in TOOLS.items()]
    servers: dict[str, list[dict]] = {"alpha": [], "beta": [], "gamma": []}
    for i in range(N):
        tool = dict(base[i % len(base)])
        tool["name"] = f"{tool['name']}_{i // len(base)}"
        servers[("alpha", "beta", "gamma")[i % 3]].append(tool)
    return servers


def main() -> None:
    tools = corpus()
    best = float("inf")
    findings = 0
    for _ in range(5):
        start = time.perf_counter()
        findings = len(audit(tools))
        best = min(best, time.perf_counter() - start)
    flat = [t for ts in tools.values() for t in ts]
    start = time.perf_counter()
    for t in flat:
        canonical_json(t)
    floor = time.perf_counter() - start
    rate = N / best
    report("audit", [
        {"figure": f"audit, {N} tools, {findings} findings", "value": rate, "unit": "tools/s",
         "baseline": "canonical_json of each tool", "baseline_value": N / floor,
         "ratio": best / floor, "target": ">= 5,000 tools/s", "met": rate >= 5000},
    ])


if __name__ == "__main__":
    main()
