"""Every shipped scenario's ledger, as bytes and a digest, to diff two versions of the code.

Usage: ``python bench/dump_ledgers.py OUT.txt``; prints a digest. Run it before and after a
change that must not change what runs record (a move of code, a rename), then ``diff`` the
two files. Each deterministic scenario (every one but watch-house, whose clock changes) runs
with every seed it lists, offline, as ``workbench test`` runs it (models replayed, the
``expect: approve`` list approved); a line holds scenario, seed, events and the sha256 of the
ledger's JSONL. To compare with another checkout, put it first on the path:
``PYTHONPATH=/path/to/other/checkout python bench/dump_ledgers.py base.txt``.
"""

from __future__ import annotations

import hashlib
import sys

from _common import REPO

from workbench.contracts.config import ConfigTree
from workbench.contracts.expect import Expectations
from workbench.errors import WorkbenchError

NOT_DETERMINISTIC = {"watch-house"}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    from workbench.testing.runner import run_offline

    tree = ConfigTree.load(REPO / "config")
    lines = []
    for name in sorted(set(tree.scenarios) - NOT_DETERMINISTIC):
        spec = tree.scenarios[name]
        base = spec.expect or Expectations()
        for seed in sorted({spec.default_seed, *spec.example_seeds}):
            expect = base.model_copy(update={"seed": seed})
            try:
                result = run_offline(tree, spec, expect)
            except WorkbenchError as exc:  # a seed its cassette was not recorded for
                lines.append(f"{name} seed={seed} {type(exc).__name__}")
                continue
            digest = hashlib.sha256(result.ledger.to_jsonl().encode()).hexdigest()
            lines.append(f"{name} seed={seed} events={len(result.ledger)} {digest}")
    text = "\n".join(lines) + "\n"
    with open(argv[0], "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"{len(lines)} ledgers, digest {hashlib.sha256(text.encode()).hexdigest()[:8]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
