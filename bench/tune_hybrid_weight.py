"""Choose the hybrid's e5 weight on the DEV half of the real-tool task set (never on test).

Not part of ``make bench``: run it by hand when the rankers change, and put the weight it
prints into ``HYBRID_E5_WEIGHT`` (workbench/selection/rankers.py). bench_selection.py
reports the test half with that weight. The grid runs 0 to 1 by 0.05; the best top-1 wins,
ties go to the better top-3, then to the weight nearest 0.5 (neither ranker favoured).
"""

from __future__ import annotations

from _common import REPO

from workbench.selection import load_tasks
from workbench.selection.metrics import score
from workbench.selection.rankers import BM25Selector, E5Selector, _rankings, mix
from workbench.surface.scoring import surface_specs

SET = REPO / "tests" / "data" / "selection" / "mcp-servers"


def main() -> None:
    specs = surface_specs(SET)
    tasks = load_tasks(SET / "dev.jsonl")
    queries = [t.query for t in tasks]
    names = [s.name for s in specs]
    e5 = E5Selector().scores(queries, specs)
    bm25 = BM25Selector().scores(queries, specs)
    rows = []
    for step in range(21):
        weight = step / 20
        result = score(tasks, _rankings(names, mix(e5, bm25, weight)), selector="hybrid")
        rows.append((weight, result.top1, result.top3))
        print(f"w={weight:.2f}  dev top-1 {result.top1:.3f}  top-3 {result.top3:.3f}")
    best = max(rows, key=lambda r: (round(r[1], 9), round(r[2], 9), -abs(r[0] - 0.5)))
    print(f"best on dev ({len(tasks)} tasks): w={best[0]:.2f} (top-1 {best[1]:.3f}, "
          f"top-3 {best[2]:.3f})")


if __name__ == "__main__":
    main()
