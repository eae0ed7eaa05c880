"""CLI commands for curating toolsets: ``mcp-tool``, ``surface ...`` and ``audit``.

Registered through :data:`workbench.cli.COMMANDS`; imports stay inside the command
functions so ``workbench --help`` never pays for ``mcp`` or ``jsonschema``::

    workbench mcp-tool --path DIR
    workbench surface validate DIR
    workbench surface apply DIR EDITS.json        (EDITS.json: a list of edits, or - for stdin)
    workbench surface import --server "CMD or URL"... --out DIR [--name N]... [--settle S]
                             [--force]
    workbench surface diff DIR (--server "CMD or URL" [--name N] | --against DIR2)
                           [--format table|json]
    workbench surface approve DIR TOOL... --server "CMD or URL" [--name N] [--settle S]
                              [--force]
    workbench audit (--tools-json FILE | --server "CMD or URL")... [--format table|json]
                    [--short] [--fail-on warning|high]
    workbench audit --explain RULE_ID | all

The audit prints its findings fitted to the terminal's width (the reason and the evidence
cut to fit; ``--format json`` keeps every finding whole) and then a summary line, both on
stdout: they are its result. Each finding names its rule (``rule`` in ``--format json``);
``--explain RULE_ID`` prints that rule with its attack and honest examples.

Exit codes: 0 fine, 1 the check failed (invalid surface, refused edit, drift, findings at
or above ``--fail-on``), 2 an error (bad file, missing directory, unreachable server), as
one ``error: ...`` line. A surface directory must exist: a typo is an error, never an empty
surface that validates, diffs as "all removed" or gets created by ``approve``.

``mcp-tool --path DIR`` is also a console script of its own (:func:`mcp_tool_main`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench._files import read_text, require_dir
from workbench.cli.args import OneLineParser, seconds, server_target
from workbench.cli.tables import print_table

__all__ = ["mcp_tool_main", "register"]

_SURFACE_DIR = "a surface directory (tools.json, policy.json, pins.json)"


def register(subparsers: Any) -> None:
    """Add ``mcp-tool``, ``surface`` and ``audit`` to the ``workbench`` parser."""
    mt = subparsers.add_parser("mcp-tool", help="print a surface's candidate, policy and "
                               "validity as JSON (exit 1 when invalid)")
    _mcp_tool_arguments(mt)

    surface = subparsers.add_parser("surface", help="validate, edit, import or diff a "
                                    "curated toolset")
    sub = surface.add_subparsers(title="surface commands", metavar="ACTION")
    surface.set_defaults(func=lambda args: surface.error(
        "give an action: validate, apply, import, diff or approve"))

    val = sub.add_parser("validate", help="report every problem of a surface")
    val.add_argument("dir", help="surface directory")
    val.set_defaults(func=_cmd_validate)

    app = sub.add_parser("apply", help="apply edits under the surface's policy")
    app.add_argument("dir", help="surface directory")
    app.add_argument("edits", help='JSON file with a list of {"tool", "kind", "value"} '
                     "(- reads stdin)")
    app.set_defaults(func=_cmd_apply)

    imp = sub.add_parser("import", help="snapshot a live server's tools into a surface, pinned")
    imp.add_argument("--server", required=True, action="append", metavar="CMD_OR_URL",
                     type=server_target,
                     help="stdio command line or http(s) URL (repeatable: one surface over "
                          "several servers)")
    imp.add_argument("--out", required=True, help="surface directory to write")
    imp.add_argument("--name", action="append", default=None,
                     help="server name for pins, once per --server (default: derived)")
    imp.add_argument("--settle", type=seconds, default=0.0,
                     help="seconds to wait for tools added right after connecting")
    imp.add_argument("--force", action="store_true", help="replace a surface that has tools")
    imp.set_defaults(func=_cmd_import, parser=imp)

    diff = sub.add_parser("diff", help="compare a surface's pins with a live server or "
                          "another surface (exit 1 on any change)")
    diff.add_argument("dir", help="surface directory (its pins.json, else its tools.json)")
    src = diff.add_mutually_exclusive_group(required=True)
    src.add_argument("--server", type=server_target, help="stdio command line or http(s) URL")
    src.add_argument("--against", help="another surface directory")
    diff.add_argument("--name", default=None,
                      help="the name a scenario gives the --server: a tool pinned to another "
                           "server name is drift (field 'server'), as a run would refuse it")
    diff.add_argument("--settle", type=seconds, default=0.0,
                      help="seconds to wait for tools added right after connecting")
    diff.add_argument("--format", choices=("table", "json"), default="table")
    diff.set_defaults(func=_cmd_diff, parser=diff)

    ap = sub.add_parser("approve", help="re-pin tools after reviewing their drift (refuses "
                        "new text the audit flags high unless --force; exit 1 when refused)")
    ap.add_argument("dir", help="surface directory (its pins.json is rewritten)")
    ap.add_argument("tools", nargs="+", metavar="TOOL", help="tools to approve as they are now")
    ap.add_argument("--server", required=True, type=server_target,
                    help="stdio command line or http(s) URL")
    ap.add_argument("--name", default=None,
                    help="pin the tools to this server name (the name the scenario gives the "
                         "server; default: the name each pin has, or one derived from "
                         "--server for a tool without a pin)")
    ap.add_argument("--settle", type=seconds, default=0.0,
                    help="seconds to wait for tools changed right after connecting")
    ap.add_argument("--force", action="store_true",
                    help="approve even when the audit flags the new definition high")
    ap.set_defaults(func=_cmd_approve)

    aud = subparsers.add_parser("audit", help="flag hidden characters, injected instructions, "
                                "secret requests, shadowing and bad names in tool metadata")
    aud.add_argument("--tools-json", action="append", default=[], metavar="FILE",
                     help="tools as JSON: a tools/list result, a tools.json, a list of tools, "
                          "or {server: [tools]} (repeatable)")
    aud.add_argument("--server", action="append", default=[], metavar="CMD_OR_URL",
                     type=server_target,
                     help="a live server to read tools from (repeatable)")
    aud.add_argument("--settle", type=seconds, default=0.0,
                     help="seconds to wait for tools added right after connecting")
    aud.add_argument("--format", choices=("table", "json"), default="table",
                     help="table: fitted to the terminal, evidence cut (default); json: every "
                          "finding whole")
    aud.add_argument("--short", action="store_true",
                     help="one line per finding (severity, server/tool, code, field) and the "
                          "summary")
    aud.add_argument("--fail-on", choices=("warning", "high"), default=None,
                     help="exit 1 when a finding at or above this severity exists")
    aud.add_argument("--explain", metavar="RULE_ID", default=None,
                     help="print one rule (what it looks for, what excuses it, its attack and "
                          "honest examples; the id is a finding's rule, like AUD-SECRET-002) "
                          "and exit; 'all' lists every rule")
    aud.set_defaults(func=_cmd_audit, parser=aud)


def _mcp_tool_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--path", required=True, help="surface directory (tools.json, "
                        "policy.json)")
    parser.add_argument("--tasks", default=None, metavar="FILE",
                        help="also print a 'score': the candidate's top-1 rate on these "
                             "tool-selection tasks (see `workbench eval`)")
    parser.set_defaults(func=_cmd_mcp_tool)


def mcp_tool_main(argv: Sequence[str] | None = None) -> int:
    """The ``mcp-tool`` console script: ``mcp-tool --path DIR``, as ``workbench mcp-tool``.

    Prints ``{"candidate", "policy", "valid"}`` as JSON (and ``"score"`` with ``--tasks``);
    exit 0 when valid, 1 when not, 2 on an error (one ``error: ...`` line).
    """
    from workbench.cli import run_parsed

    parser = OneLineParser(prog="mcp-tool", description="Print a curated surface's "
                           "candidate, policy and validity as JSON (exit 1 when invalid).")
    _mcp_tool_arguments(parser)
    return run_parsed(parser.parse_args(argv))


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


# -- commands -----------------------------------------------------------------------------
def _cmd_mcp_tool(args: argparse.Namespace) -> int:
    from workbench.contracts.surface import load_policy
    from workbench.errors import ConfigError
    from workbench.surface.candidate import Candidate
    from workbench.surface.validate import validate

    require_dir(args.path, _SURFACE_DIR)
    report = validate(args.path)
    try:
        candidate: Any = Candidate.from_dir(args.path).to_dict()
        policy: Any = load_policy(args.path)
    except ConfigError as exc:
        candidate, policy = None, {"error": str(exc)}
    out = {"candidate": candidate, "policy": policy, "valid": report}
    if args.tasks is not None:
        from workbench.selection import load_tasks
        from workbench.surface.scoring import evaluate_surface

        tasks = load_tasks(args.tasks)  # a bad task file is an error, valid or not
        out["score"] = evaluate_surface(args.path, tasks).top1 if report["ok"] else None
    _print_json(out)
    return 0 if report["ok"] else 1


def _cmd_validate(args: argparse.Namespace) -> int:
    from workbench.surface.validate import validate

    require_dir(args.dir, _SURFACE_DIR)
    report = validate(args.dir)
    _print_json(report)
    return 0 if report["ok"] else 1


def _cmd_apply(args: argparse.Namespace) -> int:
    from workbench.surface.edits import apply

    require_dir(args.dir, _SURFACE_DIR)
    edits = _load_edits(args.edits)
    try:
        result = apply(args.dir, edits)
    except OSError as exc:  # a read-only or full file system: name the file, not a temp file
        from workbench._files import describe_os_error
        from workbench.errors import ConfigError

        raise ConfigError(Path(args.dir) / "tools.json", "", f"could not save the edits: "
                          f"{describe_os_error(None, exc)} (saves are atomic: the file is "
                          f"never left half-written)") from None
    _print_json(result)
    return 1 if result["refused"] else 0


_EDITS = 'a JSON list of {"tool", "kind", "value"} objects'


def _load_edits(source: str) -> list[dict[str, Any]]:
    """The edits in a JSON file (``-``: stdin): a list of edit objects, or one object."""
    from workbench.errors import ConfigError

    if source == "-":
        source = "<stdin>"
        # Decode the bytes ourselves: under a C locale Python's stdin would smuggle bad
        # bytes through as surrogates instead of failing.
        raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
        try:
            text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        except UnicodeDecodeError as exc:
            raise ConfigError(source, "", f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at "
                              f"offset {exc.start}); give {_EDITS}") from None
        if not text.strip():
            raise ConfigError(source, "", f"is empty; expected {_EDITS}")
    else:
        text = read_text(source, _EDITS, allow_empty=False)
    try:
        edits = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(source, "", f"not valid JSON ({exc.msg}); give {_EDITS}",
                          exc.lineno) from None
    if isinstance(edits, dict):
        edits = [edits]
    if not isinstance(edits, list):
        raise ConfigError(source, "", f"expected {_EDITS}, got {type(edits).__name__}")
    for i, edit in enumerate(edits):
        if not isinstance(edit, dict):
            raise ConfigError(source, f"[{i}]", f"an edit is an object "
                              f'{{"tool", "kind", "value"}}, got {type(edit).__name__}')
    return edits


def _check_out_dir(out: str) -> None:
    """Refuse an ``--out`` that is a file or lies under one, before any server starts."""
    from workbench._files import check_new_file
    from workbench.errors import ConfigError

    path = Path(out)
    if path.is_dir():
        return  # its tools.json is checked by loading it
    if path.exists():
        raise ConfigError(path, "", "is a file; --out takes a surface directory (new, or "
                          "one to replace with --force)")
    check_new_file(path, "--out")  # a new directory: refused under a file


def _cmd_import(args: argparse.Namespace) -> int:
    from workbench.contracts.surface import is_empty
    from workbench.surface.importer import import_surface

    if args.name is not None and len(args.name) != len(args.server):
        args.parser.error(f"{len(args.name)} --name for {len(args.server)} --server; give "
                          f"one --name per --server, in the same order, or none (names are "
                          f"then derived)")
    _check_out_dir(args.out)
    if not args.force and Path(args.out).is_dir():
        is_empty(args.out)  # a broken tools.json is an error before any server starts
    _print_json(import_surface(args.server, args.out, names=args.name, settle=args.settle,
                               force=args.force))
    return 0


def _cmd_diff(args: argparse.Namespace) -> int:
    from workbench.contracts.characters import distinguishable
    from workbench.contracts.surface import load_pins
    from workbench.surface.pins import drift_detail, nameless, pin_changes

    if args.name is not None and args.against is not None:
        args.parser.error("--name names the --server; with --against the pins of both "
                          "surfaces are compared as they are")
    require_dir(args.dir, _SURFACE_DIR)
    if args.against is not None:
        require_dir(args.against, _SURFACE_DIR)
    before = _snapshot_of(args.dir)
    if args.server:
        from workbench.surface.importer import fetch_tools

        after = fetch_tools(args.server, settle=args.settle)[1]
    else:
        after = _snapshot_of(args.against)
    skipped = nameless(after)
    if skipped:
        print(f"skipped {skipped} tool(s) without a name (empty or missing): they cannot be "
              f"compared, pinned or called", file=sys.stderr)
    changes = pin_changes(before, after)
    # Which server each tool is pinned to, where that differs from the name a run gives it.
    pinned = {p["name"]: p["server"] for p in load_pins(args.dir)} if args.name else {}
    moved = {c.tool: pinned[c.tool] for c in changes
             if c.status in ("same", "drift") and pinned.get(c.tool, args.name) != args.name}
    changes = [_moved(c) if c.tool in moved else c for c in changes]
    details = {tool: drift_detail(tool, server, args.name, next(
        c.fields for c in changes if c.tool == tool), surface=args.dir)
        for tool, server in moved.items()}
    if args.format == "json":
        _print_json([{**c.to_dict(), **({"servers": {"pinned": moved[c.tool],
                                                     "offered": args.name},
                                         "detail": details[c.tool]}
                                        if c.tool in moved else {})} for c in changes])
    else:
        print_table(("tool", "status", "fields", "previous"),
               [(distinguishable(c.tool), c.status, ", ".join(c.fields),
                 distinguishable(c.previous or "")) for c in changes])
        from workbench.textsafe import escape

        for tool, detail in details.items():  # names come from servers and files: escaped
            print(escape(f"{distinguishable(tool)}: {detail}"))
    return 1 if skipped or any(c.status != "same" for c in changes) else 0


def _moved(change: Any) -> Any:
    """``change`` (same or drift) as drift with field ``server``: another server offers it."""
    from workbench.surface.pins import PinChange

    return PinChange(change.tool, "drift", tuple(sorted({"server", *change.fields})),
                     before=change.before, after=change.after)


def _cmd_approve(args: argparse.Namespace) -> int:
    from workbench.audit import audit
    from workbench.contracts.surface import load_pins, save_pins
    from workbench.surface.importer import fetch_tools
    from workbench.surface.pins import pin, pin_changes

    require_dir(args.dir, _SURFACE_DIR)
    pins = {p["name"]: p for p in load_pins(args.dir)}  # a broken file fails before connecting
    server, live = fetch_tools(args.server, name=args.name, settle=args.settle)
    offered = {tool.get("name"): tool for tool in live}
    rows, refused = [], 0
    for name in args.tools:
        tool = offered.get(name)
        if tool is None:
            rows.append((name, "missing", "", f"{server} does not offer it; nothing approved"))
            refused += 1
            continue
        before = [pins[name]["wire"]] if name in pins else []
        change = pin_changes(before, [tool])[0]
        was = pins[name]["server"] if name in pins else None
        server_name = args.name or was or server
        if was is not None and was != server_name:
            change = _moved(change)
        high = [f for f in audit({server: [tool]}) if f.severity == "high"]
        if high and not args.force:
            rows.append((name, change.status, ", ".join(change.fields),
                         "refused: the audit flags the new text high ("
                         + "; ".join(f"{f.code} in {f.field}" for f in high)
                         + "); read it, then --force if you still trust it"))
            refused += 1
            continue
        pins[name] = pin(tool, server_name)
        moved = (f", pinned to server {server_name!r} (was {was!r})"
                 if was is not None and was != server_name else "")
        rows.append((name, change.status, ", ".join(change.fields), "approved" + moved))
    if len(rows) > refused:
        save_pins(args.dir, list(pins.values()))
    print_table(("tool", "status", "fields", "outcome"), rows)
    return 1 if refused else 0


def _snapshot_of(dir: str) -> list[dict[str, Any]]:
    """A surface's pinned wire tools, or its tools.json in wire form if it has no pins."""
    from workbench.contracts.surface import entry_to_wire, load_pins, load_tools

    pins = load_pins(dir)
    return [p["wire"] for p in pins] if pins else [entry_to_wire(t) for t in load_tools(dir)]


def _cmd_audit(args: argparse.Namespace) -> int:
    from workbench.audit import at_or_above, audit

    if args.explain is not None:
        from workbench.audit.rules import explain

        print(explain(args.explain))
        return 0
    if not args.tools_json and not args.server:
        args.parser.error("give --tools-json FILE or --server CMD_OR_URL (or several)")
    toolsets: dict[str, list[Any]] = {}
    for path in args.tools_json:
        for server, tools in _load_toolsets(path).items():
            toolsets.setdefault(server, []).extend(tools)
    if args.server:
        from workbench.surface.importer import fetch_tools

        for target in args.server:
            server, tools = fetch_tools(target, settle=args.settle)
            toolsets.setdefault(server, []).extend(tools)
    findings = audit(toolsets)
    if args.format == "json":
        _print_json([f.to_dict() for f in findings])
    else:
        _print_findings(findings, toolsets, args.short)
    if args.fail_on and at_or_above(findings, args.fail_on):
        return 1
    return 0


def _print_findings(findings: list[Any], toolsets: dict[str, list[Any]], short: bool) -> None:
    """The findings fitted to the terminal, then a summary: the audit's result, on stdout."""
    from workbench.cli.tables import fit_line, terminal_width
    from workbench.textsafe import escape

    width = terminal_width()
    if short:
        for f in findings:
            print(fit_line(f"{f.severity:<8} {escape(f.server)}/{escape(f.tool)}  {f.code}  "
                       f"{f.field}", width))
    else:
        # Names stay whole; the reason and the evidence are cut to fit (json keeps them).
        print_table(("severity", "server", "tool", "code", "field", "reason", "evidence"),
                    [(f.severity, f.server, f.tool, f.code, f.field, f.reason, f.evidence)
                     for f in findings], width=width, shrink=(5, 6, 2, 1))
    tools = sum(len(t) for t in toolsets.values())
    counts = {s: sum(f.severity == s for f in findings) for s in ("high", "warning", "info")}
    by = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "nothing flagged"
    more = "; every finding whole: --format json" if findings and not short else ""
    print(f"{_plural(len(findings), 'finding')} in {_plural(tools, 'tool')} from "
          f"{_plural(len(toolsets), 'server')}: {by}{more}")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _load_toolsets(path: str) -> dict[str, list[Any]]:
    """Tools from a JSON file, by server; see ``--tools-json`` for the accepted shapes."""
    from workbench.errors import ConfigError

    text = read_text(path, "tools as JSON", allow_empty=False)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(path, "", f"not valid JSON: {exc.msg}", exc.lineno) from None
    server = Path(path).stem
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        data = data["tools"]
    if isinstance(data, list):
        data = {server: data}
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise ConfigError(path, "", 'expected a list of tools, {"tools": [...]} or '
                          '{"server": [tools]}')
    for srv, tools in data.items():
        for i, tool in enumerate(tools):
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
                raise ConfigError(path, f"{srv}[{i}]" if len(data) > 1 else f"tools[{i}]",
                                  "a tool is an object with at least a string 'name'")
    return data
