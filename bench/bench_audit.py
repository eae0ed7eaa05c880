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

from _common import REPO, audit_speed_row, report

from workbench.surface.demo_server import TOOLS

N = 10_000


def corpus() -> list[dict]:
    pins = json.loads((REPO / "config/surfaces/watch-house/pins.json").read_text())["tools"]
    base = [p["wire"] for p in pins]
    return base + [{"name": n, "title": t, "description": d, "inputSchema": s, "annotations": a}
                   for n, (t, d, s, a, _) in TOOLS.items()]


def main() -> None:
    row, findings = audit_speed_row("audit", corpus(), N)
    row["figure"] = f"audit, {N} tools, {findings} findings"
    report("audit", [row])



if __name__ == "__main__":
    main()
