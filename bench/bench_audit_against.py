"""The first audit of the real corpus, this checkout against another revision, side by side.

Usage: ``python bench/bench_audit_against.py REV [ROUNDS]`` (default 12 rounds). REV is
exported with ``git archive`` into a temporary directory; each round runs one fresh process
of each checkout, in turn, so both see the same machine. Prints the median time of each and
their ratio. This machine's timings drift by a fifth within minutes: compare a change with
its base this way, in one run, rather than two figures taken at different times.
"""

from __future__ import annotations

import io
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from _common import REPO, report
from bench_audit_corpus import first_audit


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2:
        print(__doc__)
        return 2
    rev, rounds = argv[0], int(argv[1]) if len(argv) > 1 else 12
    archive = subprocess.run(["git", "archive", rev, "workbench"], cwd=REPO, check=True,
                             capture_output=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        trees = {rev: Path(tmp), "this checkout": REPO}
        took: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(rounds):
            for name, tree in trees.items():
                n, seconds, _ = first_audit(tree)
                took[name].append(seconds)
    base, this = (statistics.median(took[name]) for name in trees)
    report("audit_against", [{
        "figure": f"first audit of the {n} real tools, fresh processes, median of {rounds}",
        "value": n / this, "unit": "tools/s", "baseline": rev, "baseline_value": n / base,
        "ratio": this / base, "target": "", "met": None}])
    print(f"\n{rev}: {base * 1000:.1f} ms; this checkout: {this * 1000:.1f} ms "
          f"({this / base:.2f}x the time)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
