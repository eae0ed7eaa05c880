"""Split the honest baseline ONCE into dev and test by repository; its output is committed.

Usage: ``python bench/make_baseline_split.py [--check]``. Writes
``tests/data/audit_corpus/baseline_split.json`` and refuses to overwrite it. ``--check``
rebuilds the split from the baseline's files and says whether the recorded halves match.

Until this split, no rule was written from the baseline (``bench_audit_baseline.py``).
From it on, a rule may be written from the dev half's false alarms, and only the test
half's rate counts as measured on text nobody tuned on.

How: by repository, so one team's way of writing (and a server's siblings) never spans
both halves. Repositories by tool count, largest first, each to the half with fewer tools
so far (dev on a tie). Nothing here reads a finding: the split depends only on which
repository holds how many tools.
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from _common import REPO

BASELINE = REPO / "tests/data/audit_corpus/baseline"
OUT = REPO / "tests/data/audit_corpus/baseline_split.json"


def build() -> dict[str, object]:
    """``{"method", "dev": [repository, ...], "test": [...]}``, each list sorted."""
    tools: Counter[str] = Counter()
    for path in sorted(BASELINE.glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        tools[data["repository"]] += len(data["tools"])
    halves: dict[str, list[str]] = {"dev": [], "test": []}
    sizes = {"dev": 0, "test": 0}
    for repo in sorted(tools, key=lambda r: (-tools[r], r)):
        half = "dev" if sizes["dev"] <= sizes["test"] else "test"
        halves[half].append(repo)
        sizes[half] += tools[repo]
    return {"method": "by repository: largest first, each to the half with fewer tools",
            "tools": sizes, "dev": sorted(halves["dev"]), "test": sorted(halves["test"])}


def main() -> int:
    made = build()
    if "--check" in sys.argv[1:]:
        recorded = json.loads(OUT.read_text("utf-8"))
        same = {k: recorded[k] for k in ("dev", "test")} == {k: made[k] for k in ("dev", "test")}
        print("the recorded split matches the baseline" if same else
              "the recorded split does not match the baseline's files")
        return 0 if same else 1
    if OUT.exists():
        print(f"{OUT} exists: the split is made once (use --check)", file=sys.stderr)
        return 1
    OUT.write_text(json.dumps(made, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: dev {made['tools']['dev']} tools in {len(made['dev'])} repositories, "
          f"test {made['tools']['test']} in {len(made['test'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
