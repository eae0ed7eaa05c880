"""``workbench validate`` grows linearly with the number of problems it reports.

A manifest grants 10, 100 and 1,000 tools that nothing provides, so validate reports 10,
100 and 1,000 problems, each naming its file and line. Measured side by side in one run
(in-process ``cli.main``, output discarded). Target: 1,000 problems in under 2 s, and the
time per problem at 1,000 no more than 3x the time per problem at 100 (linear, not
quadratic: before the loader composed each file once, 1,000 bad grants took 25-46 s).
"""

from __future__ import annotations

import contextlib
import io
import shutil
import tempfile
import time
from pathlib import Path

from _common import REPO, report

from workbench.cli import main as cli

SIZES = (10, 100, 1000)


def config_with(root: Path, bad: int) -> Path:
    d = root / f"config{bad}"
    shutil.copytree(REPO / "config", d)
    grants = ", ".join(f"missing_{i}" for i in range(bad))
    (d / "agents" / "gossip.yaml").write_text(
        f"name: gossip\nrole: worker\ntools: [{grants}]\n", encoding="utf-8")
    return d


def seconds(path: Path, bad: int) -> float:
    best = float("inf")
    for _ in range(3):
        out = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = cli(["validate", str(path)])
        best = min(best, time.perf_counter() - start)
        assert code == 1 and out.getvalue().count("is granted but") == bad
    return best


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {n: config_with(Path(tmp), n) for n in SIZES}
        seconds(dirs[10], 10)  # warm the imports
        times = {n: seconds(dirs[n], n) for n in SIZES}
    per = {n: times[n] / n for n in SIZES}
    rows = [
        {"figure": f"validate, {n} bad grants", "value": times[n], "unit": "s",
         "baseline": "10 bad grants", "baseline_value": times[10],
         "ratio": times[n] / times[10]} for n in SIZES
    ]
    growth = per[1000] / per[100]
    rows.append({"figure": "time per problem, 1000 vs 100", "value": growth, "unit": "x",
                 "target": "<= 3 (linear)", "met": growth <= 3})
    rows.append({"figure": "validate, 1000 bad grants", "value": times[1000], "unit": "s",
                 "target": "< 2 s", "met": times[1000] < 2.0})
    report("config", rows)


if __name__ == "__main__":
    main()
