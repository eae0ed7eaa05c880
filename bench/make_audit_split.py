"""Split the labelled audit corpus ONCE into dev and test; run once, its output is committed.

Usage: ``python bench/make_audit_split.py [--check | --add]``. Writes
``tests/data/audit_corpus/split.json`` and refuses to overwrite it (the split is made once:
moving a case after its score is known would make the test half a tuning set). ``--check``
rebuilds the split from the sets it was made from (``sets``) and says whether the recorded
halves still match. ``--add`` records the cases of a set merged later and moves nothing: a
known writer's items go to that writer's half, a new writer's to test, and an invented
server already in the other half is refused (namespace it, as ``score_audit_set`` does).

How: every labelled item's writer (:func:`workbench.surface.audit_corpus.writer_of`) and every
invented server (a ``server`` that is not a real one) are nodes; an item links its writer to
its invented server. Writers who invented the same server name are then one group, so no
writer and no invented server spans both halves. The largest group (the first corpus and
most early writers) is dev, every other group is test. Real servers (``real/``,
``archived/``) are split by server, each folder on its own: servers by tool count, largest
first, each to the half with fewer tools so far (dev on a tie). A rug pull goes with its
real server. Nothing here reads a score: the split depends only on who wrote what, where.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

from _common import REPO

from workbench.surface.audit_corpus import load_corpus, writer_of

CORPUS = REPO / "tests/data/audit_corpus"
OUT = CORPUS / "split.json"


def _find(parent: dict[str, str], x: str) -> str:
    while parent.setdefault(x, x) != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def _by_tools(servers: dict[str, list], prefix: str) -> dict[str, str]:
    halves, sizes = {}, {"dev": 0, "test": 0}
    for server in sorted(servers, key=lambda s: (-len(servers[s]), s)):
        half = "dev" if sizes["dev"] <= sizes["test"] else "test"
        halves[f"{prefix}/{server}"] = half
        sizes[half] += len(servers[server])
    return halves


def build(corpus: dict) -> dict:
    """The split of ``corpus``: ``{"writers", "servers", "cases"}``, each ``-> dev|test``."""
    real = set(corpus["real"])
    items = corpus["poisoned"] + corpus["lookalikes"]
    parent: dict[str, str] = {}
    for item in items:
        _find(parent, "w:" + writer_of(item))
        if item["server"] not in real:
            parent[_find(parent, "s:" + item["server"])] = _find(parent, "w:" + writer_of(item))
    groups: dict[str, list[str]] = defaultdict(list)
    for node in list(parent):
        groups[_find(parent, node)].append(node)
    size = defaultdict(int)
    for item in items:
        size[_find(parent, "w:" + writer_of(item))] += 1
    largest = max(groups, key=lambda g: (size[g], g))
    half_of = {node: "dev" if root == largest else "test"
               for root, nodes in groups.items() for node in nodes}
    servers = {**_by_tools(corpus["real"], "real"), **_by_tools(corpus["archived"], "archived")}
    servers.update({f"invented/{n[2:]}": h for n, h in sorted(half_of.items())
                    if n.startswith("s:")})
    cases = {item["id"]: half_of["w:" + writer_of(item)] for item in items}
    cases.update({p["id"]: servers[f"real/{p['server']}"] for p in corpus["rugpulls"]})
    return {
        "sets": sorted({i["split"] for i in items}),
        "about": "Dev/test split of the labelled audit corpus, made once by "
                 "bench/make_audit_split.py before any score was read; rules are written "
                 "from dev only, the README reports test. See the corpus README.",
        "writers": {n[2:]: h for n, h in sorted(half_of.items()) if n.startswith("w:")},
        "servers": dict(sorted(servers.items())),
        "cases": dict(sorted(cases.items())),
    }


def _made_from(corpus: dict, recorded: dict) -> dict:
    """``corpus`` as it was when ``recorded`` was made: its sets, servers and rug pulls."""
    servers = recorded["servers"]
    return dict(corpus, **{
        key: [i for i in corpus[key] if i["split"] in recorded["sets"]]
        for key in ("poisoned", "lookalikes")},
        real={s: t for s, t in corpus["real"].items() if f"real/{s}" in servers},
        archived={s: t for s, t in corpus["archived"].items() if f"archived/{s}" in servers},
        rugpulls=[p for p in corpus["rugpulls"] if p["id"] in recorded["cases"]])


def add(corpus: dict, recorded: dict) -> dict:
    """``recorded`` with the cases of later sets added; no recorded case moves."""
    out = json.loads(json.dumps(recorded))
    for item in corpus["poisoned"] + corpus["lookalikes"]:
        if item["id"] in out["cases"]:
            continue
        half = out["writers"].setdefault(writer_of(item), "test")
        if item["server"] not in corpus["real"]:
            key = f"invented/{item['server']}"
            if out["servers"].setdefault(key, half) != half:
                raise SystemExit(f"{item['id']}: server {item['server']!r} is in the "
                                 f"{out['servers'][key]} half; rename the new set's server")
        out["cases"][item["id"]] = half
        if item["split"] not in out["sets"]:
            out["sets"].append(item["split"])
    for pair in corpus["rugpulls"]:
        out["cases"].setdefault(pair["id"], out["servers"].get(f"real/{pair['server']}", "test"))
    for server in corpus["real"]:
        out["servers"].setdefault(f"real/{server}", "test")
    for server in corpus["archived"]:
        out["servers"].setdefault(f"archived/{server}", "test")
    return out


def main(argv: list[str]) -> int:
    corpus = load_corpus(CORPUS)
    if "--check" in argv or "--add" in argv:
        if not OUT.exists():
            print(f"{OUT} is missing: make the split first", file=sys.stderr)
            return 1
        recorded = json.loads(OUT.read_text("utf-8"))
        if "--add" in argv:
            OUT.write_text(json.dumps(add(corpus, recorded), indent=1, ensure_ascii=False)
                           + "\n", "utf-8")
            return 0
        rebuilt = build(_made_from(corpus, recorded))
        same = all(rebuilt[k] == {n: recorded[k][n] for n in rebuilt[k]}
                   for k in ("writers", "servers", "cases")) and rebuilt["sets"] == \
            recorded["sets"]
        print("split.json matches a rebuild" if same else "split.json differs from a rebuild")
        return 0 if same else 1
    split = build(corpus)
    if OUT.exists():
        print(f"{OUT} exists: the split is made once (use --check)", file=sys.stderr)
        return 1
    OUT.write_text(json.dumps(split, indent=1, ensure_ascii=False) + "\n", "utf-8")
    for half in ("dev", "test"):
        print(half, sum(h == half for h in split["cases"].values()), "cases,",
              sum(h == half for h in split["writers"].values()), "writers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
