"""Scoring the audit on a labelled corpus: recall per attack class, false alarms, rug pulls.

A corpus is a directory (the project's is ``tests/data/audit_corpus``) holding:

- ``real/<server>.json``: ``{"server", "source", "tools"}``, real tool definitions copied
  from public servers, with where they came from. These are the honest baseline.
- ``poisoned.json``: ``[{"id", "class", "split", "server", "base", "tool"}]``, one attack
  each; ``base`` (``"server/tool"``) names the real tool it was made from, if any.
- ``lookalikes.json``: ``[{"id", "kind", "split", "server", "tool"}]``, honest tools written
  to look suspicious (negations, credential parameters, sibling references, imperatives
  aimed at a caller). Tools of one ``server`` are one server's list.
- ``rugpulls.json``: ``[{"id", "kind", "server", "before", "after"}]``: a ``rug_pull`` must
  compare as ``drift``, a ``rename`` as ``rename``.
- ``archived/<server>.json`` (optional): more real servers, same shape as ``real/``, audited
  as an environment of their own: an honest baseline no rule was tuned on, kept out of the
  labelled items' context.
- ``split.json`` (optional): the corpus split once into ``dev`` and ``test``
  (``{"writers", "servers", "cases"}``, each name ``-> dev|test``; servers as
  ``real/<server>``, ``archived/<server>``, ``invented/<server>``). Rules are written from
  dev; :func:`score_halves` scores both, and test is the figure to report.

Every item is audited in context: the real servers are present, a poisoned variant replaces
its base in its server's list (so sibling and foreign tool names are real ones).
:func:`score` returns plain numbers (of one half with ``half=``); ``make bench`` prints them
and the tests assert them.

Example:
    >>> s = score(load_corpus("tests/data/audit_corpus"))  # doctest: +SKIP
    >>> s["recall"]["overall"]["warning"] >= 0.95  # doctest: +SKIP
    True
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.audit import Finding, audit, risk
from workbench.errors import ConfigError
from workbench.surface.pins import pin_changes

__all__ = ["HALVES", "REFERENCE_SERVERS", "load_corpus", "score", "score_halves", "writer_of"]

#: The reference servers of modelcontextprotocol/servers: the zero-false-alarm target.
REFERENCE_SERVERS = ("everything", "fetch", "filesystem", "git", "memory",
                     "sequentialthinking", "time")


#: The two halves of ``split.json``: rules are written from ``dev``; ``test`` is reported.
HALVES = ("dev", "test")
# Sets written by one writer each whose ids carry no writer prefix ("directive-01",
# "polite-f2"); "dev" and "held_out" are the two parts of the first corpus.
_UNPREFIXED = {"dev": "first", "held_out": "first", "fresh": "fresh", "fresh2": "fresh2"}


def writer_of(item: Mapping[str, Any]) -> str:
    """Who wrote a labelled item: ``first``, ``fresh``, ``fresh2``, or its id's prefix.

    Items carry no writer field; the set (``split``) and the id's prefix name it: from
    ``fresh3`` on every id starts with its writer (``fresh3-``, ``fresh11a-``, ``fresh11b-``).

    Example:
        >>> writer_of({"id": "fresh11b-polite-03", "split": "fresh11"})
        'fresh11b'
    """
    return _UNPREFIXED.get(item["split"]) or item["id"].split("-", 1)[0]


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise ConfigError(str(path), "", f"cannot read the corpus file ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(str(path), "", f"not valid JSON: {exc.msg}", exc.lineno) from None


def _servers(folder: Path, sources: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """``{server: tools}`` from a folder of server files; their sources go into ``sources``."""
    out: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(folder.glob("*.json")):
        data = _read(path)
        if not isinstance(data, dict) or not isinstance(data.get("tools"), list):
            raise ConfigError(str(path), "tools", "a server file is "
                              '{"server", "source", "tools": [...]}')
        out[data.get("server") or path.stem] = data["tools"]
        sources[data.get("server") or path.stem] = data.get("source")
    return out


def load_corpus(directory: str | Path) -> dict[str, Any]:
    """Read a corpus directory: ``{"real": {server: [tools]}, "sources", "poisoned", ...}``."""
    root = Path(directory)
    sources: dict[str, Any] = {}
    real, archived = _servers(root / "real", sources), _servers(root / "archived", sources)
    out: dict[str, Any] = {"real": real, "archived": archived, "sources": sources,
                           "split": _read(root / "split.json") if (root / "split.json").exists()
                           else None}
    for name in ("poisoned", "lookalikes", "rugpulls"):
        items = _read(root / f"{name}.json")
        if not isinstance(items, list):
            raise ConfigError(str(root / f"{name}.json"), "", "expected a list of items")
        out[name] = items
    return out


def _with(env: Mapping[str, list[dict[str, Any]]], server: str, tools: Sequence[dict[str, Any]],
          replace: str | None = None) -> dict[str, list[dict[str, Any]]]:
    toolsets = {s: list(ts) for s, ts in env.items()}
    mine = [t for t in toolsets.get(server, []) if t.get("name") != replace]
    toolsets[server] = mine + list(tools)
    return toolsets


def _of(findings: Sequence[Finding], server: str, name: str) -> list[Finding]:
    return [f for f in findings if f.server == server and f.tool == name]


def _worst(findings: Sequence[Finding]) -> str | None:
    order = {"info": 0, "warning": 1, "high": 2}
    return max((f.severity for f in findings), key=order.__getitem__, default=None)


def _baseline(toolsets: Mapping[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Per server: tools, and which are flagged at warning or above."""
    found = audit(toolsets) if toolsets else []
    return {server: {"tools": len(tools), "flagged": sorted({
        f.tool for f in found if f.server == server and f.severity != "info"})}
        for server, tools in toolsets.items()}


def _rate(hits: int, total: int) -> float:
    return hits / total if total else 0.0


def score(corpus: Mapping[str, Any], split: str | None = None,
          half: str | None = None) -> dict[str, Any]:
    """Audit every item of ``corpus`` in context and count what was caught.

    Args:
        corpus: What :func:`load_corpus` returns.
        split: A set's name (an item's ``split``: ``"fresh10"``...) to score only its
            labelled items (real tools and rug pulls are always scored in full).
        half: ``"dev"`` or ``"test"`` of the corpus's ``split.json``: only that half's
            items, real and archived servers and rug pulls are counted. Every item is
            still audited beside all the real servers (its context), whatever their half.

    Returns:
        ``recall`` (per class and ``overall``: ``warning`` and ``high`` rates, ``n``),
        ``missed`` (ids caught below warning), ``real`` (per server: tools, flagged at
        warning or above, and which), ``lookalikes`` (rate, flagged ids), ``paired``
        (poisoned variants that rank above their base), ``rugpulls`` (detected / total).
    """
    halves = _halves(corpus, half)
    env = corpus["real"]
    base_findings = audit(env)
    real = {server: {"tools": len(tools), "flagged": sorted({
        f.tool for f in base_findings if f.server == server and f.severity != "info"})}
        for server, tools in env.items()
        if half is None or halves["servers"].get(f"real/{server}") == half}

    def chosen(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [i for i in items if (split is None or i.get("split") == split)
                and (half is None or halves["cases"].get(i["id"]) == half)]

    classes: dict[str, dict[str, int]] = {}
    missed, paired_hits, paired_n = [], 0, 0
    for item in chosen(corpus["poisoned"]):
        tool = item["tool"]
        base_name = item["base"].split("/", 1)[1] if item.get("base") else None
        found = _of(audit(_with(env, item["server"], [tool], base_name),
                          focus={(item["server"], tool["name"])}), item["server"], tool["name"])
        worst = _worst(found)
        counts = classes.setdefault(item["class"], {"n": 0, "warning": 0, "high": 0})
        counts["n"] += 1
        counts["warning"] += worst in ("warning", "high")
        counts["high"] += worst == "high"
        if worst not in ("warning", "high"):
            missed.append(item["id"])
        if base_name is not None:
            paired_n += 1
            before = _of(base_findings, item["server"], base_name)
            paired_hits += risk(found) > risk(before)
    recall: dict[str, dict[str, float]] = {}
    total = {"n": 0, "warning": 0, "high": 0}
    for cls, c in sorted(classes.items()):
        recall[cls] = {"n": c["n"], "warning": _rate(c["warning"], c["n"]),
                       "high": _rate(c["high"], c["n"])}
        for k in total:
            total[k] += c[k]
    recall["overall"] = {"n": total["n"], "warning": _rate(total["warning"], total["n"]),
                         "high": _rate(total["high"], total["n"])}

    looks = chosen(corpus["lookalikes"])
    by_server: dict[str, list[dict[str, Any]]] = {}
    for item in looks:
        by_server.setdefault(item["server"], []).append(item)
    look_flagged, look_collisions = [], []
    for server, items in sorted(by_server.items()):
        found = audit(_with(env, server, [copy.deepcopy(i["tool"]) for i in items]),
                      focus={(server, i["tool"]["name"]) for i in items})
        for item in items:
            mine = _of(found, server, item["tool"]["name"])
            # A look-alike's writer named it without seeing the real servers; a collision
            # with one of them is true but says nothing about its text: counted apart.
            clashes = [f for f in mine if f.code == "name.collision"]
            if clashes:
                look_collisions.append(item["id"])
            if _worst([f for f in mine if f not in clashes]) in ("warning", "high"):
                look_flagged.append(item["id"])

    detected, pairs = 0, [p for p in corpus["rugpulls"]
                          if half is None or halves["cases"].get(p["id"]) == half]
    for pair in pairs:
        statuses = {c.status for c in pin_changes([pair["before"]], [pair["after"]])}
        want = "drift" if pair["kind"] == "rug_pull" else "rename"
        detected += statuses == {want}
    return {
        "recall": recall, "missed": missed,
        "real": real,
        "lookalikes": {"n": len(looks), "flagged": look_flagged,
                       "rate": _rate(len(look_flagged), len(looks)),
                       "collisions": look_collisions},
        "archived": {s: r for s, r in _baseline(corpus.get("archived") or {}).items()
                     if half is None or halves["servers"].get(f"archived/{s}") == half},
        "paired": {"n": paired_n, "ranked_above": paired_hits,
                   "rate": _rate(paired_hits, paired_n)},
        "rugpulls": {"n": len(pairs), "detected": detected,
                     "rate": _rate(detected, len(pairs))},
    }


def _halves(corpus: Mapping[str, Any], half: str | None) -> dict[str, Any]:
    if half is None:
        return {}
    if half not in HALVES:
        raise ConfigError("split.json", "half", f"{half!r} is not a half; use one of {HALVES}")
    if not corpus.get("split"):
        raise ConfigError("split.json", "", "the corpus has no split.json: score it whole "
                          "(half=None), or make the split once with bench/make_audit_split.py")
    return corpus["split"]


def score_halves(corpus: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """:func:`score` of each half of the corpus's ``split.json``: ``{"dev": ..., "test": ...}``.

    Example:
        >>> s = score_halves(load_corpus("tests/data/audit_corpus"))  # doctest: +SKIP
        >>> s["test"]["recall"]["overall"]["n"]  # doctest: +SKIP
        560
    """
    return {half: score(corpus, half=half) for half in HALVES}
