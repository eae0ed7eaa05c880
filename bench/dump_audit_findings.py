"""Every finding the audit makes on the labelled corpus, one per line, to diff two versions.

Usage: ``python bench/dump_audit_findings.py OUT.txt``; prints the count and a digest. Run it
before and after a change that should only make the audit faster (or only touch one rule),
then ``diff`` the two files: a speed-up must leave them identical. Audited: the real and
archived servers together, every poisoned item in its server's context and alone, every
look-alike server, the demo server's tools, every baseline server alone and all of them in
one environment, and the corpus score.

Each line is a finding's JSON without its rule id (server, tool, code, severity, field,
evidence, reason, span), so a version that adds or renames rule ids dumps the same lines;
the rule ids, one per finding in the same order, go to ``OUT.txt.rules`` when findings
carry them.

To compare with another checkout, put it first on the path:
``PYTHONPATH=/path/to/other/checkout python bench/dump_audit_findings.py base.txt``.
"""

from __future__ import annotations

import hashlib
import json
import sys

from _common import REPO
from bench_audit import corpus as demo_corpus
from bench_audit_baseline import load_baseline

from workbench.surface import audit
from workbench.surface.audit_corpus import load_corpus, score


def _line(f: object) -> str:
    return json.dumps([f.server, f.tool, f.code, f.severity, f.field, f.evidence, f.reason,
                       [f.start, f.end]], ensure_ascii=False)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    corpus = load_corpus(REPO / "tests/data/audit_corpus")
    real = dict(corpus["real"])
    looks: dict[str, list] = {}
    for item in corpus["lookalikes"]:
        looks.setdefault(item["server"], []).append(item["tool"])
    baseline = {server: data["wire"] for server, data in load_baseline().items()}
    worlds = [real | {f"archived_{k}": v for k, v in corpus.get("archived", {}).items()},
              real | {"poison": [p["tool"] for p in corpus["poisoned"]]},
              real | {f"look_{k}": v for k, v in looks.items()},
              *({"solo": [p["tool"]]} for p in corpus["poisoned"]),
              {"demo": demo_corpus()},
              *({server: tools} for server, tools in baseline.items()),
              baseline]
    found = [f for world in worlds for f in audit(world)]
    lines = [_line(f) for f in found]
    lines.append(json.dumps(score(corpus), sort_keys=True, default=str))
    text = "\n".join(lines) + "\n"
    with open(argv[0], "w", encoding="utf-8") as out:
        out.write(text)
    if found and hasattr(found[0], "rule"):
        with open(argv[0] + ".rules", "w", encoding="utf-8") as out:
            out.write("\n".join(f.rule for f in found) + "\n")
    print(len(lines) - 1, "findings", hashlib.sha1(text.encode()).hexdigest())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
