"""Shared data for the audit tests: where the repository (and its corpus) is."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests/data/audit_corpus"

#: The compiled audit's tree (``build/compiled``) when ``make test`` runs the audit's tests
#: on it, else None.
COMPILED = os.environ.get("WORKBENCH_COMPILED") or None

# Values of every JSON type (and some a server should never send) for odd_tools to put
# where a tool's fields belong.
_ODD = (None, 5, 2.5, True, [], {}, ["a", 1], {"k": [1, {"x": None}]}, "", "x" * 5000,
        "\u200bhid\u2066den", 10**30, {"type": "object", "properties": ["not", "a", "map"]})
_SCHEMA_KEYS = ("type", "description", "title", "default", "enum", "examples", "const",
                "items", "properties")


def odd_tools(base: list[dict], n: int, seed: int = 1) -> list[dict]:
    """``n`` copies of tools from ``base``, each with one to three fields of an odd type.

    The tool's own fields (name, title, description, annotations, schema), a parameter's
    schema, one key of it, or a nested parameter's description: what a hostile server can
    send in place of each.
    """
    import json
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(n):
        tool = json.loads(json.dumps(rng.choice(base)))
        for _ in range(rng.randint(1, 3)):
            where, odd = rng.choice(("name", "title", "description", "annotations",
                                     "inputSchema", "param", "key", "nested")), rng.choice(_ODD)
            schema = tool.get("inputSchema")
            props = schema.get("properties") if isinstance(schema, dict) else None
            if where in ("name", "title", "description", "annotations", "inputSchema"):
                tool[where] = odd
            elif isinstance(props, dict) and props:
                name = rng.choice(sorted(props))
                if where == "param":
                    props[name] = odd
                elif isinstance(props[name], dict) and where == "key":
                    props[name][rng.choice(_SCHEMA_KEYS)] = odd
                elif isinstance(props[name], dict):
                    props[name]["properties"] = {"inner": {"type": "object", "properties": {
                        "deep": {"description": odd}}}}
        out.append(tool)
    return out
