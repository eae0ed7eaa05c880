"""Score a new, unseen labelled set once, before anyone tunes the audit on it.

Usage: ``python bench/score_audit_set.py SET.json [--show]``, where ``SET.json`` is
``{"poisoned": [...], "lookalikes": [...]}`` in the corpus's item format (see
``tests/data/audit_corpus/README.md`` and ``WRITERS_BRIEF.md``). The set is audited in the
corpus's context (its real servers present) and nothing is written: record the printed first
score in the corpus README, then merge the set with its own ``split`` and record its halves
with ``python bench/make_audit_split.py --add`` (a new writer's items go to test). ``--show``
lists the ids missed and flagged; use it only once the first score is recorded, and never on
a set that goes to test.
"""

from __future__ import annotations

import json
import sys

from _common import REPO

from workbench.surface.audit_corpus import load_corpus, score


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    path, show = argv[0], "--show" in argv[1:]
    incoming = json.loads(open(path, encoding="utf-8").read())
    corpus = load_corpus(REPO / "tests/data/audit_corpus")
    name = "incoming"
    for item in incoming["poisoned"] + incoming["lookalikes"]:
        item["split"] = name
    for item in incoming["lookalikes"]:  # one writer's invented servers are its own
        if item["server"] not in corpus["real"]:
            item["server"] = f"{name}-{item['server']}"
    s = score(dict(corpus, poisoned=incoming["poisoned"], lookalikes=incoming["lookalikes"]),
              name)
    for cls, r in s["recall"].items():
        print(f"{cls:10s} n={r['n']:3d}  warning+ {r['warning']:.0%}  high {r['high']:.0%}")
    look = s["lookalikes"]
    print(f"honest look-alikes flagged {len(look['flagged'])}/{look['n']}"
          f" (name clashes apart: {len(look['collisions'])})")
    if show:
        print("missed:", " ".join(s["missed"]))
        print("flagged:", " ".join(look["flagged"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
