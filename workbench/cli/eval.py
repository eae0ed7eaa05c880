"""``workbench eval``: how well tools are picked from a surface's descriptions, and A/B."""

from __future__ import annotations

import argparse
import json
from typing import Any

from workbench.selection.rankers import SELECTORS

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add ``eval`` to the ``workbench`` sub-commands."""
    p = sub.add_parser("eval", help="measure tool selection on a surface (and compare two)")
    p.add_argument("dir", help="a surface directory (tools.json)")
    p.add_argument("--tasks", default=None,
                   help="task file, JSONL or YAML of {query, tool or null} (default: "
                        "DIR/tasks.jsonl)")
    p.add_argument("--selector", default=None, choices=(*SELECTORS, "all"),
                   help="hybrid (bm25 and e5 mixed; the default with the encoder extra), "
                        "bm25 (the default without it), e5, model, or all (every offline "
                        "ranker installed, and how often they agree on top-1)")
    p.add_argument("--against", default=None, metavar="DIR2",
                   help="compare with another surface on the same tasks (A = DIR, B = DIR2)")
    p.add_argument("--threshold", type=float, default=None,
                   help="a ranker's best score at or under which it picks no tool")
    p.add_argument("--model", default=None, help="model name (--selector model)")
    p.add_argument("--model-url", default=None,
                   help="OpenAI-compatible API address, like http://127.0.0.1:11434/v1")
    p.add_argument("--cassette", default=None,
                   help="record the model's answers to this file, or replay them if it exists")
    p.add_argument("--gate", action="store_true",
                   help="hold DIR to its selection.yaml (min_top1, min_top3, must_not): "
                        "exit 1 when it falls short, printing which queries did it")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=_cmd_eval)


def _cmd_eval(args: argparse.Namespace) -> int:
    from workbench.errors import ConfigError
    from workbench.selection import compare, evaluate, load_tasks
    from workbench.surface.scoring import surface_specs

    if args.threshold is not None and not (args.threshold == args.threshold
                                           and abs(args.threshold) != float("inf")):
        raise ConfigError("--threshold", "", "must be a finite number")
    if args.gate:
        return _gate(args)
    if args.selector == "all":
        return _all(args)
    if args.selector is None:
        args.selector = _default_selector()
    options = dict(_model_options(args), selector=args.selector, threshold=args.threshold)
    specs = surface_specs(args.dir)  # a typo in DIR is named before the task file
    against = surface_specs(args.against) if args.against is not None else None
    tasks = load_tasks(args.tasks if args.tasks is not None else args.dir)
    a = evaluate(specs, tasks, label=args.dir, **options)
    if against is None:
        _print_one(a, args.format)
        return 0
    b = evaluate(against, tasks, label=args.against, **options)
    result = compare(a, b)
    if args.format == "json":
        print(json.dumps(result.to_dict(), indent=1))
    else:
        _print_ab(args, result)
    return 0


def _print_ab(args: argparse.Namespace, result: Any) -> None:
    a, b = result.a, result.b
    print(f"{a.selector}: A {args.dir}: top-1 {a.top1:.3f}   B {args.against}: top-1 "
          f"{b.top1:.3f}   change {result.delta_top1:+.3f}")
    print(f"fixed {len(result.fixed)}, broken {len(result.broken)}, unchanged "
          f"{result.unchanged}; exact McNemar p = {result.p_value:.4f}")
    for label, queries in (("fixed", result.fixed), ("broken", result.broken)):
        for query in queries:
            print(f"  {label}: {query}")


def _default_selector() -> str:
    """The best offline ranker installed; says so on stderr when that is bm25 alone."""
    import sys

    from workbench.selection.rankers import default_selector, missing

    chosen = default_selector()
    if chosen != "hybrid":
        print(f"note: ranking with bm25 alone: {missing('hybrid')}, for the hybrid of bm25 "
              f"and e5", file=sys.stderr)
    return chosen


def _all(args: argparse.Namespace) -> int:
    """Every offline ranker installed on the same tasks, and how often they agree."""
    import sys

    from workbench.errors import ConfigError
    from workbench.selection import compare, evaluate, load_tasks
    from workbench.selection.agreement import agreement
    from workbench.selection.rankers import OFFLINE_SELECTORS, missing
    from workbench.surface.scoring import surface_specs

    for flag, value in (("--threshold", args.threshold), ("--model", args.model),
                        ("--cassette", args.cassette)):
        if value is not None:
            raise ConfigError(flag, "", "does not go with --selector all: each ranker keeps "
                                        "its own threshold (give one --selector to set one)")
    skipped = {name: str(missing(name)) for name in OFFLINE_SELECTORS if missing(name)}
    names = [name for name in OFFLINE_SELECTORS if name not in skipped]
    specs = surface_specs(args.dir)
    against = surface_specs(args.against) if args.against is not None else None
    tasks = load_tasks(args.tasks if args.tasks is not None else args.dir)
    for name, why in skipped.items():
        print(f"note: {name} skipped: {why}", file=sys.stderr)
    runs = [evaluate(specs, tasks, selector=name, label=args.dir) for name in names]
    if against is not None:
        results = [compare(a, evaluate(against, tasks, selector=a.selector,
                                       label=args.against)) for a in runs]
        if args.format == "json":
            print(json.dumps({"selectors": {r.a.selector: r.to_dict() for r in results},
                              "skipped": skipped}, indent=1))
        else:
            for result in results:
                _print_ab(args, result)
        return 0
    agreed = agreement(runs)
    if args.format == "json":
        print(json.dumps({"selectors": {r.selector: r.to_dict() for r in runs},
                          "agreement": agreed.to_dict(), "skipped": skipped}, indent=1))
        return 0
    for run in runs:
        print(_summary(run))
    for line in agreed.lines():
        print(line)
    return 0


def _gate(args: argparse.Namespace) -> int:
    from workbench.errors import ConfigError
    from workbench.surface.gate import check_gate

    for flag, value in (("--against", args.against), ("--tasks", args.tasks),
                        ("--model", args.model), ("--cassette", args.cassette)):
        if value is not None:
            raise ConfigError(flag, "", "does not go with --gate: a gate scores the surface's "
                                        "own tasks.jsonl with the selector selection.yaml names")
    verdict = check_gate(args.dir)
    if args.format == "json":
        print(json.dumps({"surface": verdict.surface, "selector": verdict.selector,
                          "top1": verdict.top1, "top3": verdict.top3, "ok": verdict.ok,
                          "problems": list(verdict.problems)}, indent=1))
    else:
        print(f"{verdict.selector}: top-1 {verdict.top1:.3f}, top-3 {verdict.top3:.3f}: "
              f"{'gate holds' if verdict.ok else 'gate fails'}")
        for line in verdict.lines():
            print(f"  {line}")
    return 0 if verdict.ok else 1


def _model_options(args: argparse.Namespace) -> dict[str, Any]:
    if args.selector != "model":
        return {}
    from workbench.agents.cassette import Cassette
    from workbench.agents.openai_model import OpenAIModel
    from workbench.contracts.manifest import ModelSpec
    from workbench.errors import ConfigError

    if not args.model:
        raise ConfigError("--model", "", "--selector model needs --model NAME (and "
                                         "--model-url URL or --cassette FILE)")
    cassette = Cassette(args.cassette) if args.cassette else None
    spec = ModelSpec(backend="openai", model=args.model, base_url=args.model_url)
    return {"model": OpenAIModel(spec, cassette=cassette)}


def _print_one(result: Any, form: str) -> None:
    if form == "json":
        print(json.dumps(result.to_dict(), indent=1))
        return
    from workbench.textsafe import escape

    print(_summary(result))
    rows = [(escape(r["tool"]), str(r["cases"]), f"{r['top1']:.3f}",
             ", ".join(f"{escape(k)} x{v}" for k, v in r["confused_with"].items()) or "-")
            for r in result.per_tool()]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(("tool", "cases", "top1", "confused with"))]
    line = "  ".join(f"{{:{w}}}" for w in widths[:-1]) + "  {}"
    print(line.format("tool", "cases", "top1", "confused with").rstrip())
    for row in rows:
        print(line.format(*row).rstrip())
    print("needs work: " + (", ".join(escape(t) for t in result.needs_work()) or "none"))


def _summary(result: Any) -> str:
    abstention = "-" if result.abstention is None else f"{result.abstention:.3f}"
    return (f"{result.selector}: {len(result.cases)} cases, top-1 {result.top1:.3f}, "
            f"top-3 {result.top3:.3f}, MRR {result.mrr:.3f}, abstention {abstention}")
