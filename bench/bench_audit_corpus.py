"""Audit quality on the labelled corpus (tests/data/audit_corpus), and speed on real tools.

First the corpus's two halves side by side (``split.json``, made once: rules are written from
dev, test is the figure to report): recall at warning or above overall and per class, and
false alarms on real tools, archived servers and honest look-alikes; the targets are judged
on test (<= 1 in 25 look-alikes, issue 26's). Then the whole corpus (rows ``all:``), and each
set it was written in (rows ``set``; the set called ``dev`` is the first corpus, not the half):

Per attack class: recall at warning or above and at high. False alarms (tools flagged at
warning or above) on the real reference-server tools, on GitHub's published tools and on
the honest look-alikes. Paired score: poisoned variants ranked above their clean original
(risk score). Rug pulls and renames detected by the pin comparison. Each set is reported
as it scores now; every ``fresh*`` set was scored once before any tuning on it, and those
first scores, the honest measure of unseen phrasings, are in the corpus README. Twelve
archived reference servers are an honest baseline audited on their own.

Speed: the real corpus (169 tools) renamed and repeated to 10,000 tools over three servers,
beside canonical JSON of the same tools; and the first audit of the real corpus in a fresh
process, where every word is new to the audit's memos, by the pure-Python audit and by the
audit compiled with mypyc (``make compiled``, which ``make bench`` builds), alternating.
Targets on the whole corpus: recall >= 95% overall and >= 80% per class; 0 reference tools
flagged; <= 10% of look-alikes; rug pulls 100%; >= 5,000 tools/s (steady, and the first
audit compiled).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

from _common import REPO, audit_speed_row, report

from workbench.surface.audit_corpus import REFERENCE_SERVERS, load_corpus, score, score_halves

CORPUS = REPO / "tests/data/audit_corpus"
N = 10_000


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _of(n: int, total: int) -> str:
    return f"{_pct(n / total) if total else '-'} ({n}/{total})"


def halves_rows(corpus: dict) -> list[dict]:
    """Dev and test side by side: value is test (the reported half), baseline is dev."""
    halves = score_halves(corpus)
    dev, test = halves["dev"], halves["test"]
    rows = []
    for cls, r in test["recall"].items():
        d = dev["recall"][cls]
        hit = round(r["warning"] * r["n"])
        rows.append({"figure": f"test|dev recall {cls} at warning+",
                     "value": f"test {_of(hit, r['n'])}",
                     "baseline": f"dev {_of(round(d['warning'] * d['n']), d['n'])}",
                     "target": ">= 95%" if cls == "overall" else ">= 80%",
                     "met": r["warning"] >= (0.95 if cls == "overall" else 0.80)})

    def flagged(s: dict, key: str) -> tuple[int, int, str]:
        servers = s[key]
        return (sum(len(r["flagged"]) for r in servers.values()),
                sum(r["tools"] for r in servers.values()), ", ".join(sorted(servers)))

    for key, label in (("real", "real tools"), ("archived", "archived servers' tools")):
        t, d = flagged(test, key), flagged(dev, key)
        rows.append({"figure": f"test|dev false alarms, {label}",
                     "value": f"test {t[0]}/{t[1]}", "baseline": f"dev {d[0]}/{d[1]}",
                     "target": "0", "met": t[0] == 0})
    t, d = test["lookalikes"], dev["lookalikes"]
    rows.append({"figure": "test|dev false alarms, honest look-alikes",
                 "value": f"test {_of(len(t['flagged']), t['n'])}",
                 "baseline": f"dev {_of(len(d['flagged']), d['n'])}",
                 "target": "<= 1 in 25", "met": t["rate"] <= 1 / 25})
    t, d = test["rugpulls"], dev["rugpulls"]
    rows.append({"figure": "test|dev rug pulls and renames detected",
                 "value": f"test {t['detected']}/{t['n']}",
                 "baseline": f"dev {d['detected']}/{d['n']}", "target": "100%",
                 "met": t["detected"] == t["n"]})
    return rows


def quality_rows(corpus: dict) -> list[dict]:
    rows = []
    full = score(corpus)
    splits = sorted({i["split"] for i in corpus["poisoned"]},
                    key=lambda s: (not s.startswith(("dev", "held")), len(s), s))
    for split in splits:
        s = score(corpus, split)
        o = s["recall"]["overall"]
        rows.append({"figure": f"recall, set {split} ({o['n']} poisoned)",
                     "value": f"{_pct(o['warning'])} warning+, {_pct(o['high'])} high",
                     "baseline": f"look-alikes flagged {len(s['lookalikes']['flagged'])}/"
                                 f"{s['lookalikes']['n']}", "target": "", "met": None})
    for cls, r in full["recall"].items():
        rows.append({"figure": f"all: recall {cls} (n={r['n']})",
                     "value": f"{_pct(r['warning'])} warning+, {_pct(r['high'])} high",
                     "target": ">= 95% warning+" if cls == "overall" else ">= 80% warning+",
                     "met": r["warning"] >= (0.95 if cls == "overall" else 0.80)})
    ref = [full["real"][s] for s in REFERENCE_SERVERS if s in full["real"]]
    ref_tools, ref_flagged = sum(r["tools"] for r in ref), sum(len(r["flagged"]) for r in ref)
    rows.append({"figure": f"all: false alarms, reference servers ({len(ref)})",
                 "value": f"{ref_flagged}/{ref_tools}", "target": "0", "met": ref_flagged == 0})
    for server, r in sorted(full["real"].items()):
        if server not in REFERENCE_SERVERS:
            rows.append({"figure": f"false alarms, {server} (reported)",
                         "value": f"{len(r['flagged'])}/{r['tools']}", "met": None})
    archived = full["archived"]
    rows.append({"figure": f"false alarms, {len(archived)} archived reference servers",
                 "value": f"{sum(len(r['flagged']) for r in archived.values())}/"
                          f"{sum(r['tools'] for r in archived.values())}", "met": None})
    look = full["lookalikes"]
    rows.append({"figure": "all: false alarms, honest look-alikes",
                 "value": f"{len(look['flagged'])}/{look['n']} ({_pct(look['rate'])})",
                 "baseline": f"name clashes with real tools, apart: {len(look['collisions'])}",
                 "target": "<= 10%", "met": look["rate"] <= 0.10})
    paired = full["paired"]
    rows.append({"figure": "paired: poisoned ranked above its original",
                 "value": f"{paired['ranked_above']}/{paired['n']}", "met": None})
    rug = full["rugpulls"]
    rows.append({"figure": "rug pulls and renames detected",
                 "value": f"{rug['detected']}/{rug['n']}", "target": "100%",
                 "met": rug["detected"] == rug["n"]})
    return rows


def speed_row(corpus: dict) -> dict:
    base = [t for tools in corpus["real"].values() for t in tools]
    return audit_speed_row(f"audit speed, {N} real tools", base, N)[0]


# One fresh process: the audit's memos (words' gates, name indexes) start empty.
_FIRST_AUDIT = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import workbench
from workbench.contracts.canonical import canonical_json
from workbench.surface import audit
from workbench.surface.audit_corpus import load_corpus
real = load_corpus(sys.argv[2])["real"]
start = time.perf_counter()
audit(real)
took = time.perf_counter() - start
start = time.perf_counter()
for tools in real.values():
    for t in tools:
        canonical_json(t)
print(json.dumps([sum(map(len, real.values())), took, time.perf_counter() - start,
                  workbench.__file__]))
"""


def first_audit(tree: Path = REPO) -> tuple[int, float, float]:
    """One fresh process auditing the real corpus with the audit of ``tree`` (a checkout).

    Returns the number of tools, the seconds the audit took and those of canonical JSON.
    """
    n, took, floor, imported = json.loads(subprocess.run(
        [sys.executable, "-c", _FIRST_AUDIT, str(tree), str(CORPUS)], check=True,
        capture_output=True, text=True).stdout)
    if not Path(imported).resolve().is_relative_to(Path(tree).resolve()):
        raise RuntimeError(f"audited with {imported}, not the checkout at {tree}")
    return n, took, floor


COMPILED = REPO / "build/compiled"


def first_audit_rows(runs: int = 5) -> list[dict]:
    """The first audit of the real corpus in ``runs`` fresh processes each (medians).

    Pure Python (the checkout, as the editable install runs it) and compiled with mypyc
    (``make compiled``: ``build/compiled``), alternating so both meet the same load. The
    target is judged on the compiled audit; the pure-Python one is reported beside it.
    """
    trees = {"pure Python": REPO}
    if (COMPILED / ".built").exists():
        trees["compiled (make compiled)"] = COMPILED
    samples: dict[str, list[tuple[int, float, float]]] = {k: [] for k in trees}
    for _ in range(runs):
        for label, tree in trees.items():
            samples[label].append(first_audit(tree))
    rows = []
    for label, got in samples.items():
        n = got[0][0]
        took = statistics.median(s[1] for s in got)
        floor = statistics.median(s[2] for s in got)
        compiled = label != "pure Python"
        rows.append({"figure": f"audit speed, first audit of the {n} real tools (fresh "
                               f"process), {label}", "value": n / took, "unit": "tools/s",
                     "baseline": "canonical_json of each tool",
                     "baseline_value": n / floor, "ratio": took / floor,
                     "target": ">= 5,000 tools/s" if compiled else "",
                     "met": n / took >= 5000 if compiled else None})
    if len(trees) == 1:  # the compiled audit is not built
        rows.append({"figure": "audit speed, first audit, compiled: not built (make compiled)",
                     "value": "-", "target": ">= 5,000 tools/s", "met": False})
    return rows


def main() -> None:
    corpus = load_corpus(CORPUS)
    report("audit_corpus", [*halves_rows(corpus), *quality_rows(corpus), speed_row(corpus),
                            *first_audit_rows()])


if __name__ == "__main__":
    main()
