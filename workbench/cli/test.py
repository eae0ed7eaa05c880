"""``workbench test``: every scenario's ``expect:`` checked, as CI and a person run it.

::

    workbench test [CONFIG] [--scenario NAME]... [--junit FILE] [--format text|json]
    workbench test [CONFIG] --freeze NAME [--force]

Each failed expectation is one line (scenario, expectation, what was found instead, the
nearest event's seq). Exit 0 when every expectation holds, 1 when any fails (or a freeze
would change an existing block and ``--force`` was not given), 2 for bad input (a config
or ``expect:`` that does not load, an unknown scenario).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["register", "write_junit"]


def register(subparsers: Any) -> None:
    """Add ``workbench test`` to the CLI (an entry of ``cli.COMMANDS``)."""
    parser = subparsers.add_parser(
        "test", help="run every scenario that has an expect: block and check what it did")
    parser.add_argument("config", nargs="?", default="config",
                        help="config directory (default: config)")
    parser.add_argument("--scenario", action="append", default=[], metavar="NAME",
                        help="test only this scenario (repeatable)")
    parser.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--freeze", metavar="NAME",
                        help="run NAME and write what it did as its expect: block")
    parser.add_argument("--force", action="store_true",
                        help="with --freeze: overwrite an expect: block that would change")
    parser.set_defaults(func=_cmd_test)


def _cmd_test(args: argparse.Namespace) -> int:
    from workbench._files import check_new_file, require_dir
    from workbench.contracts.config import ConfigTree
    from workbench.errors import ConfigError
    from workbench.testing.runner import check_scenario, scenarios_with_expect

    require_dir(args.config, "a config directory (holding agents/ and scenarios/)")
    if args.force and not args.freeze:
        raise ConfigError("--force", "", "only goes with --freeze NAME")
    if args.junit:
        check_new_file(args.junit, "--junit")
    tree = ConfigTree.load(args.config)
    if args.freeze:
        return _freeze(tree, args.freeze, args.force)
    names = scenarios_with_expect(tree, args.scenario)
    started = time.perf_counter()
    verdicts = []
    for name in names:
        verdict = check_scenario(tree, name)
        verdicts.append(verdict)
        if args.format == "text":
            _print_verdict(verdict)
    total = time.perf_counter() - started
    failed = [v for v in verdicts if not v.ok]
    if args.format == "json":
        json.dump([_as_json(v) for v in verdicts], sys.stdout, indent=1)
        sys.stdout.write("\n")
    if args.junit:
        write_junit(args.junit, verdicts, total)
    if not names:
        print(f"no scenario in {args.config} has an expect: block; write one with "
              f"`workbench test --freeze NAME`", file=sys.stderr)
    else:
        print(f"{len(names)} scenario(s): {len(names) - len(failed)} passed, {len(failed)} "
              f"failed ({total:.1f} s)", file=sys.stderr)
    return 1 if failed else 0


def _print_verdict(verdict: Any) -> None:
    if verdict.ok:
        print(f"PASS {verdict.scenario} ({verdict.events} events, {verdict.seconds:.2f} s)")
        return
    print(f"FAIL {verdict.scenario}")
    for line in verdict.lines():
        print(f"  {line}")


def _as_json(verdict: Any) -> dict[str, Any]:
    return {"scenario": verdict.scenario, "ok": verdict.ok, "error": verdict.error,
            "failures": [{"expectation": f.expectation, "message": f.message, "seq": f.seq}
                         for f in verdict.failures],
            "final_hash": verdict.final_hash, "events": verdict.events,
            "seconds": round(verdict.seconds, 3)}


def _freeze(tree: Any, name: str, force: bool) -> int:
    from workbench.testing.freeze import freeze

    frozen = freeze(tree, name, force=force)
    if frozen.diff:
        sys.stdout.write(frozen.diff)
    where = Path(frozen.path)
    hashed = "with its final hash" if frozen.deterministic else (
        "without a final hash: two runs gave different ledgers")
    if frozen.written:
        print(f"froze {name} into {where} ({hashed})", file=sys.stderr)
        return 0
    if not frozen.diff:
        print(f"{where}: the expect: block already says what {name} does", file=sys.stderr)
        return 0
    print(f"{where}: the expect: block would change as shown; nothing was written. Run "
          f"again with --force to write it", file=sys.stderr)
    return 1


def write_junit(path: str | Path, verdicts: list[Any], seconds: float) -> Path:
    """Write a JUnit XML report: one testcase per scenario, its lines as the failure."""
    import xml.etree.ElementTree as ET

    from workbench.atomic import atomic_writer

    failures = sum(1 for v in verdicts if v.failures and v.error is None)
    errors = sum(1 for v in verdicts if v.error is not None)
    suite = ET.Element("testsuite", name="workbench", tests=str(len(verdicts)),
                       failures=str(failures), errors=str(errors), time=f"{seconds:.3f}")
    for verdict in verdicts:
        case = ET.SubElement(suite, "testcase", classname="workbench.scenario",
                             name=f"scenario::{verdict.scenario}",
                             time=f"{verdict.seconds:.3f}")
        if not verdict.ok:
            lines = verdict.lines()
            tag = "error" if verdict.error is not None else "failure"
            ET.SubElement(case, tag, message=lines[0]).text = "\n".join(lines)
    path = Path(path)
    with atomic_writer(path, mkdir=False) as fh:
        fh.write(ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n")
    return path
