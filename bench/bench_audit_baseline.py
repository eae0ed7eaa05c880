"""False alarms of the audit on a large honest baseline: real tools no rule was written from.

The baseline (``tests/data/audit_corpus/baseline/``, one file per server, made by
``bench/extract_tool_definitions.py`` from public repositories) holds only real tool
definitions, so every finding at warning or above is a false alarm. Each server is audited
as its own environment under its own name (its siblings are its context, as in a client
connected to that one server); a second pass audits all of them at once and reports what
that adds (name collisions and other cross-server findings between unrelated servers).

Reported: tools, servers, tools flagged at warning or above (the false-alarm rate, also
split by repository family and for the tools whose schema was read), findings per code (with
how many distinct evidence texts and servers, since one server often repeats a parameter
across its tools), and every flagged tool with its evidence.
The full list is written to ``bench/results/audit_baseline_findings.json``. No target: this
set measures. It is split once by repository (``baseline_split.json``, made by
``make_baseline_split.py`` before any rule was written from it): a rule may be written
from the dev half's false alarms, and the test half's rate is the one measured on text
nobody tuned on. Examples and the listing of flagged tools come from the dev half only; the
test half is reported as counts.

Usage: ``python bench/bench_audit_baseline.py [--top N]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from _common import REPO, RESULTS, report

from workbench.audit import Finding, audit

BASELINE = REPO / "tests/data/audit_corpus/baseline"
WIRE = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
FLAGGED = ("warning", "high")


def load_baseline(folder: Path = BASELINE) -> dict[str, dict[str, Any]]:
    """``{server: its baseline file}``, each tool cut down to its wire fields."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        data["wire"] = [{k: t[k] for k in WIRE if k in t} for t in data["tools"]]
        out[data["server"]] = data
    return out


SPLIT = REPO / "tests/data/audit_corpus/baseline_split.json"


def half_of() -> dict[str, str]:
    """``{repository: "dev" or "test"}`` as recorded once."""
    split = json.loads(SPLIT.read_text("utf-8"))
    return {repo: half for half in ("dev", "test") for repo in split[half]}


def _family(data: dict[str, Any]) -> str:
    return "awslabs/mcp" if data["repository"] == "awslabs/mcp" else "other repositories"


def _flagged(findings: list[Finding]) -> dict[tuple[str, str], list[Finding]]:
    by_tool: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for f in findings:
        if f.severity in FLAGGED:
            by_tool[(f.server, f.tool)].append(f)
    return by_tool


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=10, help="codes shown with an example")
    args = parser.parse_args(argv)
    baseline = load_baseline()
    tools = sum(len(d["wire"]) for d in baseline.values())
    unread = sum(1 for d in baseline.values() for t in d["tools"] if t.get("schema"))

    start = time.perf_counter()
    alone: list[Finding] = []
    for server, data in baseline.items():
        alone.extend(audit({server: data["wire"]}))
    took = time.perf_counter() - start
    together = audit({server: d["wire"] for server, d in baseline.items()})

    flagged = _flagged(alone)
    high = {k for k, fs in flagged.items() if any(f.severity == "high" for f in fs)}
    rows: list[dict[str, Any]] = [
        {"figure": "baseline tools (servers)", "value": f"{tools} ({len(baseline)})",
         "baseline": f"schema not extracted: {unread}"},
        {"figure": "false alarms: tools flagged at warning+, each server alone",
         "value": f"{len(flagged)}/{tools} ({100 * len(flagged) / tools:.1f}%)",
         "baseline": f"at high: {len(high)}"},
    ]
    for family in sorted({_family(d) for d in baseline.values()}):
        members = {s for s, d in baseline.items() if _family(d) == family}
        n = sum(len(baseline[s]["wire"]) for s in members)
        hit = sum(1 for (s, _t) in flagged if s in members)
        rows.append({"figure": f"  of which {family} ({len(members)} servers)",
                     "value": f"{hit}/{n} ({100 * hit / n:.1f}%)"})
    halves = half_of()
    for half in ("test", "dev"):
        members = {s for s, d in baseline.items() if halves[d["repository"]] == half}
        n = sum(len(baseline[s]["wire"]) for s in members)
        hit = sum(1 for (s, _t) in flagged if s in members)
        hit_high = sum(1 for (s, _t) in high if s in members)
        rows.append({"figure": f"  of which the {half} half ({len(members)} servers)",
                     "value": f"{hit}/{n} ({100 * hit / n:.1f}%)",
                     "baseline": f"at high: {hit_high}"
                                 + (" (rules may be written from it)" if half == "dev" else
                                    " (never tuned on)")})
    read = {(s, t["name"]) for s, d in baseline.items() for t in d["tools"] if not t.get("schema")}
    hit_read = sum(1 for k in flagged if k in read)
    rows.append({"figure": "  of which tools whose schema was read",
                 "value": f"{hit_read}/{len(read)} ({100 * hit_read / len(read):.1f}%)"})
    servers_hit = {s for s, _ in flagged}
    rows.append({"figure": "servers with a false alarm", "value":
                 f"{len(servers_hit)}/{len(baseline)}"})
    together_flagged = _flagged(together)
    extra = set(together_flagged) - set(flagged)
    extra_codes = Counter(f.code for k in extra for f in together_flagged[k])
    rows.append({"figure": "all servers in one environment: tools flagged at warning+",
                 "value": f"{len(together_flagged)}/{tools}",
                 "baseline": f"{len(extra)} more than alone: "
                             + ", ".join(f"{c} {n}" for c, n in extra_codes.most_common(4))})
    rows.append({"figure": "audit time, every server alone", "value": tools / took,
                 "unit": "tools/s"})
    report("audit_baseline", rows)

    test_codes = Counter(f.code for (s, _t), fs in flagged.items()
                         if halves[baseline[s]["repository"]] == "test" for f in fs)
    flagged = {k: fs for k, fs in flagged.items()
               if halves[baseline[k[0]]["repository"]] == "dev"}
    print("\n(below: the dev half only; the test half's findings per code: "
          + ", ".join(f"{c} {n}" for c, n in test_codes.most_common()) + ")")
    codes = Counter(f.code for fs in flagged.values() for f in fs)
    tools_per_code = Counter(c for fs in flagged.values() for c in {f.code for f in fs})
    distinct = Counter(code for code, _ in {(f.code, f.evidence) for fs in flagged.values()
                                             for f in fs})
    spread = {code: len({f.server for fs in flagged.values() for f in fs if f.code == code})
              for code in codes}
    print("\n== findings at warning+ per code, each server alone ==")
    print(f"  {'code':32s} {'findings':>8s} {'tools':>6s} {'texts':>6s} {'servers':>7s}")
    for code, n in codes.most_common():
        print(f"  {code:32s} {n:8d} {tools_per_code[code]:6d} {distinct[code]:6d} "
              f"{spread[code]:7d}")
    print(f"\n== the {args.top} most common codes, one example each ==")
    for code, _ in codes.most_common(args.top):
        f = next(f for fs in flagged.values() for f in fs if f.code == code)
        print(f"  {code} ({f.severity}): {f.server}/{f.tool} [{f.field}] {f.evidence!r}"
              f"\n      {f.reason}")
    print("\n== every flagged tool ==")
    for (server, tool), fs in sorted(flagged.items()):
        print(f"  {server}/{tool}")
        for f in fs:
            print(f"      {f.severity} {f.code} [{f.field}] {f.evidence!r}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "audit_baseline_findings.json").write_text(json.dumps({
        "tools": tools, "servers": len(baseline), "dev_flagged": len(flagged),
        "dev_per_code": dict(codes.most_common()),
        "test_per_code": dict(test_codes.most_common()),
        "dev_findings": [f.to_dict() for fs in flagged.values() for f in fs],
    }, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
