"""Build the many-servers tool-selection set's tools from the audit's honest baseline (once).

The tools of ``tests/data/selection/many-servers/tools.json`` are a seeded sample of the real
tool definitions in ``tests/data/audit_corpus/baseline/`` (each file records its repository,
commit and licence): 45 servers with at least two tools, drawn in a seeded order, and up to
four tools of each. Names are prefixed with the server, as in ``mcp-servers/``. The requests
(``requests.jsonl``) were written afterwards by writers who saw only these tools; nothing is
ever chosen on this set, it is only reported.

Run ``python bench/make_selection_many.py`` to write the tools (it refuses to overwrite
them), ``--check`` to rebuild them and compare.
"""

from __future__ import annotations

import json
import random
import sys

from _common import REPO

BASELINE = REPO / "tests" / "data" / "audit_corpus" / "baseline"
OUT = REPO / "tests" / "data" / "selection" / "many-servers"
SEED, SERVERS, PER_SERVER = 27, 45, 4


def build() -> dict:
    files = sorted(BASELINE.glob("*.json"))
    sources = [json.loads(f.read_text(encoding="utf-8")) for f in files]
    sources = [s for s in sources if len({t["name"] for t in s["tools"]}) >= 2]
    rng = random.Random(SEED)
    rng.shuffle(sources)
    tools, servers = [], []
    for source in sorted(sources[:SERVERS], key=lambda s: s["server"]):
        unique = {t["name"]: t for t in source["tools"]}
        names = sorted(unique)
        picked = sorted(rng.sample(names, min(PER_SERVER, len(names))))
        servers.append({"server": source["server"], "repository": source["repository"],
                        "commit": source["commit"], "licence": source["licence"],
                        "tools": picked})
        for name in picked:
            tool = unique[name]
            entry = {"name": f"{source['server']}.{name}",
                     "description": tool.get("description") or "",
                     "parameters": tool.get("inputSchema") or {"type": "object",
                                                               "properties": {}}}
            if tool.get("annotations"):
                entry["annotations"] = tool["annotations"]
            tools.append(entry)
    return {"tools": tools, "sources": servers}


def main() -> None:
    built = build()
    target = OUT / "tools.json"
    text = json.dumps({"tools": built["tools"]}, indent=1, ensure_ascii=False) + "\n"
    sources = json.dumps(built["sources"], indent=1, ensure_ascii=False) + "\n"
    if "--check" in sys.argv:
        same = (target.read_text(encoding="utf-8") == text
                and (OUT / "sources.json").read_text(encoding="utf-8") == sources)
        print("same" if same else "DIFFERENT")
        sys.exit(0 if same else 1)
    if target.exists():
        sys.exit(f"{target} exists: the set is built once (use --check to compare)")
    OUT.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    (OUT / "sources.json").write_text(sources, encoding="utf-8")
    print(f"{len(built['tools'])} tools from {len(built['sources'])} servers -> {OUT}")


if __name__ == "__main__":
    main()
