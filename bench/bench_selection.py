"""Tool selection speed: bm25 over 1,000 tools x 1,000 queries, and the embedding selector.

Target: bm25 ranks 1,000 queries over 1,000 tools in <= 1 s (index included). Reported:
the embedding selector on the same (model load apart), and its load time. The baseline
beside each is scoring one query, so the ratio is the per-query cost at scale.
"""

from __future__ import annotations

import random
import statistics
import time

from _common import report

from workbench.selection.rankers import BM25Selector, EmbeddingSelector
from workbench.tools.registry import ToolSpec

WORDS = ("read write list create delete update search fetch send convert compute render "
         "file folder issue branch commit message email calendar event time zone weather "
         "city price stock order invoice user account repository image audio video note "
         "task project page table row column chart map route ticket").split()


def corpus(n_tools: int, n_queries: int, seed: int = 7):
    rng = random.Random(seed)
    specs = []
    for i in range(n_tools):
        words = rng.sample(WORDS, 6)
        specs.append(ToolSpec(
            f"{words[0]}_{words[1]}_{i}", " ".join(rng.sample(WORDS, 14)).capitalize() + ".",
            input_schema={"type": "object", "properties": {
                words[2]: {"type": "string", "description": " ".join(rng.sample(WORDS, 5))}}}))
    queries = [" ".join(rng.sample(WORDS, 7)) for _ in range(n_queries)]
    return specs, queries


def timed(fn, repeat: int = 3) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    specs, queries = corpus(1000, 1000)
    bm25 = BM25Selector()
    one = timed(lambda: bm25.rank(queries[:1], specs))
    full = timed(lambda: bm25.rank(queries, specs))
    rows = [{"figure": "bm25: 1,000 queries x 1,000 tools", "value": full, "unit": "s",
             "baseline": "1 query", "baseline_value": one, "ratio": full / one,
             "target": "<= 1 s", "met": full <= 1.0}]
    emb = EmbeddingSelector()
    start = time.perf_counter()
    emb._load()
    load = time.perf_counter() - start
    e_one = timed(lambda: emb.rank(queries[:1], specs))
    e_full = timed(lambda: emb.rank(queries, specs))
    rows.append({"figure": "embedding: 1,000 queries x 1,000 tools", "value": e_full,
                 "unit": "s", "baseline": "1 query", "baseline_value": e_one,
                 "ratio": e_full / e_one, "target": "reported", "met": None})
    rows.append({"figure": "embedding: model load (offline, from the wheel)", "value": load,
                 "unit": "s", "target": "reported", "met": None})
    report("selection", rows)


if __name__ == "__main__":
    main()
