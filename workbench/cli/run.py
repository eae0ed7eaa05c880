"""``workbench run``, ``resume``, ``validate``, ``verify`` and ``scenarios``: a scenario's runs.

::

    workbench run SCENARIO [--seed N] [--ticks N] [--config DIR] [--ledger PATH]
                           [--format table|jsonl|csv] [--model-url URL] [--model NAME]
                           [--cassette PATH] [--cassette-mode auto|record|replay]
    workbench resume LEDGER [--config DIR] [--format table|jsonl|csv] [--retry-interrupted]
    workbench validate [DIR]
    workbench verify LEDGER [--hash FINAL_HASH]
    workbench scenarios [--config DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import math
import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any, TextIO

from workbench.cli.args import count
from workbench.cli.tables import print_table
from workbench.errors import ConfigError, WorkbenchError

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add ``run``, ``resume``, ``validate``, ``verify`` and ``scenarios``."""
    run = sub.add_parser("run", help="run a scenario and print its ledger")
    run.add_argument("scenario", help="scenario name (see `workbench scenarios`)")
    run.add_argument("--seed", type=int, default=None, help="seed (default: the scenario's)")
    run.add_argument("--ticks", type=count, default=None,
                     help="ticks to run, a whole number >= 0 (default: the governor's "
                          "max_ticks)")
    run.add_argument("--config", default="config", help="config directory (default: config)")
    run.add_argument("--ledger", default=None,
                     help="also write the ledger to this JSONL file (and the calls' latencies "
                          "and times beside it, to NAME.calls.jsonl)")
    run.add_argument("--overwrite", action="store_true",
                     help="replace the --ledger file if it exists (otherwise that is an error)")
    run.add_argument("--format", choices=("table", "jsonl", "csv"), default="table",
                     help="how to print the ledger (default: table)")
    run.add_argument("--approve", action="append", default=[], metavar="TOOL",
                     help="approve calls to TOOL from an MCP server without asking "
                          "(repeatable; '*' approves all). TOOL is bound to the server of "
                          "its first approved call; SERVER:TOOL names the server. Otherwise "
                          "a terminal is asked, and without one such calls are refused")
    run.add_argument("--model-url", default=None, metavar="URL",
                     help="point every openai agent at this OpenAI-compatible API "
                          "(like http://127.0.0.1:11434/v1 for Ollama)")
    run.add_argument("--model", default=None, metavar="NAME",
                     help="use this model for every openai agent")
    run.add_argument("--cassette", default=None, metavar="PATH",
                     help="record the model calls to PATH, or replay them from it when it "
                          "exists (no network, the same ledger)")
    run.add_argument("--cassette-mode", choices=("auto", "record", "replay"), default="auto",
                     help="force recording or replaying (default auto: replay if PATH exists)")
    run.add_argument("--quiet", action="store_true",
                     help="draw no progress bar (none is drawn when stderr is not a terminal)")
    run.set_defaults(func=_cmd_run)

    res = sub.add_parser("resume", help="continue a run that was cut short, from its ledger")
    res.add_argument("ledger", help="the JSONL ledger the run was writing (--ledger)")
    res.add_argument("--config", default="config", help="config directory (default: config)")
    res.add_argument("--format", choices=("table", "jsonl", "csv"), default="table",
                     help="how to print the ledger (default: table)")
    res.add_argument("--approve", action="append", default=[], metavar="TOOL",
                     help="as for `workbench run`")
    res.add_argument("--retry-interrupted", action="store_true",
                     help="send again a call that was in flight when the run was killed "
                          "(by default it is recorded as interrupted and not re-sent)")
    res.add_argument("--quiet", action="store_true",
                     help="draw no progress bar (none is drawn when stderr is not a terminal)")
    res.set_defaults(func=_cmd_resume)

    val = sub.add_parser("validate", help="check a config directory and report every problem")
    val.add_argument("dir", nargs="?", default="config", help="config directory")
    val.set_defaults(func=_cmd_validate)

    ver = sub.add_parser("verify", help="verify a ledger file's hash chain")
    ver.add_argument("ledger", help="a JSONL ledger written by `workbench run --ledger`")
    ver.add_argument("--hash", default=None, metavar="FINAL_HASH",
                     help="also require this final hash (detects a truncated file)")
    ver.epilog = ("A ledger written with WORKBENCH_LEDGER_KEY set (a keyed chain) verifies "
                  "only with the same key set.")
    ver.set_defaults(func=_cmd_verify)

    sc = sub.add_parser("scenarios", help="list the scenarios of a config directory")
    sc.add_argument("--config", default="config", help="config directory (default: config)")
    sc.set_defaults(func=_cmd_scenarios)



# -- run ----------------------------------------------------------------------------------
@contextlib.contextmanager
def _writing(ledger: str | None) -> Iterator[None]:
    """Name the ledger on an OS error that names no file (a failed write to it, open)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None and ledger is not None:
            exc.filename = ledger
        raise


def _cmd_run(args: argparse.Namespace) -> int:
    with _writing(args.ledger):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from workbench._files import check_new_file
    from workbench.engine.conductor import Conductor

    if args.cassette_mode != "auto" and args.cassette is None:
        raise WorkbenchError(f"--cassette-mode {args.cassette_mode} needs --cassette PATH "
                             f"(the file to {args.cassette_mode})")

    _check_env_servers()
    if args.ledger is not None:
        check_new_file(args.ledger, "--ledger")
    progress = _progress(args.quiet)
    conductor = Conductor.from_config(args.config, args.scenario, seed=args.seed,
                                      ledger_path=args.ledger, progress=progress,
                                      approver=_approver(args, progress),
                                      overwrite=args.overwrite, cassette=args.cassette,
                                      cassette_mode=args.cassette_mode,
                                      model_url=args.model_url, model_name=args.model)
    return _run_and_print(conductor, args, args.ticks)


def _cmd_resume(args: argparse.Namespace) -> int:
    with _writing(args.ledger):
        return _resume(args)


def _resume(args: argparse.Namespace) -> int:
    from workbench.engine.conductor import Conductor

    _check_env_servers()
    progress = _progress(args.quiet)
    conductor = Conductor.resume(args.config, args.ledger, progress=progress,
                                 approver=_approver(args, progress),
                                 retry_interrupted=args.retry_interrupted)
    replayed, cut = conductor.pending_replay, conductor.in_flight
    code = _run_and_print(conductor, args, None)
    # Said after the run, so a run that fails shows its error line and nothing else.
    print(f"resumed {args.ledger}: re-derived {replayed} recorded events without calling "
          f"any tool, then continued", file=sys.stderr)
    if cut is not None:
        what = "sent again" if args.retry_interrupted else "not sent again (--retry-interrupted)"
        print(f"a call of {cut.tool!r} by {cut.agent} was in flight at the kill: recorded "
              f"as interrupted, {what}", file=sys.stderr)
    return code


def _check_env_servers(env: Mapping[str, str] | None = None) -> None:
    """Refuse a malformed MCP gate before a run starts any server.

    ``MCP_SERVERS`` must name at least one server, each an http(s) URL or a command line
    that splits into words; ``WORKBENCH_MCP_TIMEOUT`` must be a finite number of seconds > 0.

    Raises:
        ConfigError: naming the variable, the part at fault and what is allowed.
    """
    from workbench.contracts.scenario import split_command

    env = os.environ if env is None else env
    raw = env.get("MCP_SERVERS", "")
    if raw.strip():
        from workbench.tools.mcp import split_servers

        parts = split_servers(raw)
        if not parts:
            raise ConfigError("environment", "MCP_SERVERS", f"{raw!r} names no server; give "
                              "'::'-separated command lines or http(s) URLs, or unset it")
        for i, part in enumerate(parts):
            if part.startswith(("http://", "https://")):
                continue
            try:
                split_command(part)
            except ValueError as exc:
                raise ConfigError("environment", f"MCP_SERVERS (server {i + 1})",
                                  str(exc)) from None
    timeout = env.get("WORKBENCH_MCP_TIMEOUT", "").strip()
    if timeout:
        try:
            value = float(timeout)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value <= 0:
            raise ConfigError("environment", "WORKBENCH_MCP_TIMEOUT", f"{timeout!r} is not a "
                              "finite number of seconds > 0; unset it or give e.g. 30")


def _progress(quiet: bool = False):
    """The tick bar on a terminal; none with ``--quiet`` or when stderr is a pipe or file."""
    return None if quiet or not sys.stderr.isatty() else _progress_bar(sys.stderr)


def _approver(args: argparse.Namespace, progress: Any = None):
    from workbench.surface.approval import ApprovalPolicy, prompt_approver

    if args.approve:
        return ApprovalPolicy(allow=args.approve)
    ask = prompt_approver()
    if progress is None:
        return ask

    def ask_on_a_fresh_line(request: Any) -> bool:
        # The bar's line is left open ("\r" redraws it); a question written after it
        # would be tangled with it. End the line first; the next tick redraws the bar.
        progress.break_line()
        return ask(request)

    return ask_on_a_fresh_line


def _run_and_print(conductor: Any, args: argparse.Namespace, ticks: int | None) -> int:
    try:
        result = conductor.run(ticks=ticks)
    finally:
        conductor.close()
    out = sys.stdout
    if args.format == "jsonl":
        out.write(result.ledger.to_jsonl())
    elif args.format == "csv":
        _write_csv(out, result.ledger)
    else:
        _write_table(out, result.ledger)
    summary = sys.stdout if args.format == "table" else sys.stderr
    _write_violations(summary, result.violations)
    hint = _approval_hint(result.violations)
    if hint:
        print(hint, file=summary)
    print(f"run finished: reason={result.reason} ticks={result.ticks} "
          f"events={len(result.ledger)} final_hash={result.final_hash}", file=summary)
    return 0


class _ProgressBar:
    r"""A one-line progress bar on a terminal, redrawn in place with ``\\r``."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.open = False  # the bar's line has no newline yet

    def __call__(self, tick: int, total: int) -> None:
        width = 30
        done = width * tick // max(total, 1)
        self.stream.write(f"\r[{'#' * done}{'.' * (width - done)}] tick {tick}/{total}")
        self.open = tick < total
        if not self.open:
            self.stream.write("\n")
        self.stream.flush()

    def break_line(self) -> None:
        """End the bar's line, so what is written next starts on its own."""
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False


def _progress_bar(stream: TextIO) -> _ProgressBar:
    return _ProgressBar(stream)


def _write_table(out: TextIO, events: Any) -> None:
    from workbench.contracts.events import summarize

    rows = [(str(e.seq), str(e.tick), e.actor, e.kind, summarize(e, 100)) for e in events]
    print_table(("seq", "tick", "actor", "kind", "summary"), rows, out)


def _write_violations(out: TextIO, denied: list) -> None:
    print(f"violations: {len(denied)}", file=out)
    if denied:
        from workbench.contracts.canonical import canonical_json

        rows = [(str(e.seq), str(e.tick), e.actor, str(e.payload.get("tool")),
                 canonical_json(e.payload.get("params")), str(e.payload.get("reason"))
                 + (f": {e.payload['detail']}" if e.payload.get("detail") else ""))
                for e in denied]
        print_table(("seq", "tick", "agent", "tool", "params", "reason"), rows, out)


def _approval_hint(denied: list) -> str:
    """How to approve the calls a run refused as ``not approved`` ("" when there were none).

    Names the flag and each tool, so the next step is one edit of the command line.
    """
    from workbench.surface.approval import unapproved_tools
    from workbench.textsafe import escape

    tools = unapproved_tools(denied)
    if not tools:
        return ""
    calls = sum(tools.values())
    flags = " ".join(f"--approve {escape(tool)}" for tool in tools)
    return (f"{calls} call{'s' * (calls != 1)} refused as not approved: check what "
            f"{'they do' if len(tools) > 1 else 'it does'}, then run again with {flags} "
            f"(SERVER:TOOL binds a tool to one server; '*' approves every tool)")


def _write_csv(out: TextIO, events: Any) -> None:
    from workbench.contracts.canonical import canonical_json
    from workbench.textsafe import csv_cell

    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["seq", "tick", "kind", "actor", "caused_by", "payload", "hash"])
    for e in events:
        writer.writerow([csv_cell(cell) for cell in (
            e.seq, e.tick, e.kind, e.actor, "" if e.caused_by is None else e.caused_by,
            canonical_json(e.payload), e.hash)])


# -- validate, scenarios ------------------------------------------------------------------
def _cmd_validate(args: argparse.Namespace) -> int:
    from workbench.agents.handlers import build_agent
    from workbench.contracts.config import ConfigTree
    from workbench.tools.builtins import register_builtins
    from workbench.tools.registry import ToolRegistry

    registry = register_builtins(ToolRegistry())
    tree, problems = ConfigTree.inspect(args.dir, known_tools=registry.known_tools())
    for name, manifest in sorted(tree.agents.items()):
        try:
            build_agent(manifest, registry, source=str(tree.root / "agents" / f"{name}.yaml"))
        except WorkbenchError as exc:
            problems.append(exc)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) in {args.dir}", file=sys.stderr)
        return 1
    print(f"ok: {len(tree.agents)} agents, {len(tree.scenarios)} scenarios in {args.dir}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from workbench.engine.ledger import JsonlLedgerStore, ledger_key

    # LedgerTampered is a WorkbenchError: exit 2.
    check = JsonlLedgerStore.verify(args.ledger, key=ledger_key())
    print(check.report())
    print(f"final_hash={check.final_hash}")
    if not check.complete:
        print(f"{args.ledger} is not a complete ledger: "
              + ("it holds no event" if check.count == 0 else
                 f"line {check.torn_line} is not a complete event")
              + f"; `workbench resume {args.ledger}` finishes a killed run", file=sys.stderr)
        return 1
    if args.hash is not None and args.hash != check.final_hash:
        print(f"final hash differs from the expected {args.hash}: events are missing or "
              f"the ledger is another run's", file=sys.stderr)
        return 1
    return 0


def _cmd_scenarios(args: argparse.Namespace) -> int:
    from workbench.contracts.config import ConfigTree

    tree = ConfigTree.load(args.config)
    rows = [(s.name, str(s.governor.max_ticks), ", ".join(s.cast), s.title)
            for s in sorted(tree.scenarios.values(), key=lambda s: s.name)]
    print_table(("scenario", "ticks", "cast", "title"), rows, sys.stdout)
    return 0
