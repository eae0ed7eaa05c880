"""The ``workbench`` command line: every command, one module each, and the edge they share.

Commands (``workbench COMMAND --help`` for each)::

    workbench run | resume | validate | verify | scenarios     (cli/run.py)
    workbench serve [--http PORT]                              (cli/serve.py)
    workbench surface ... | mcp-tool | audit                   (cli/surface.py)
    workbench sweep SCENARIO ...                               (cli/sweep.py)
    workbench eval DIR ...                                     (cli/eval.py)
    workbench test [CONFIG] ...                                (cli/test.py)

Each module has ``register(subparsers)``, listed in :data:`COMMANDS`, and keeps its imports
inside the command functions, so ``workbench --help`` never pays for ``mcp``, pandas or
``jsonschema``.

Bad input is one line on stderr, ``error: ...``, and exit code 2: flags are checked as they
are parsed (:mod:`workbench.cli.args`), files by their loaders (which raise
:class:`~workbench.errors.ConfigError` naming the file, key and what is allowed), and here,
at the edge, any :class:`~workbench.errors.WorkbenchError` or an OS error on a named path
(a read-only or full file system) becomes that one line (:func:`run_parsed`). Tables are
printed by one printer (:mod:`workbench.cli.tables`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from workbench.cli.args import OneLineParser
from workbench.errors import WorkbenchError

__all__ = ["COMMANDS", "main", "run_parsed"]

#: Modules that add sub-commands, in the order ``--help`` lists them: each has
#: ``register(subparsers)``.
COMMANDS: list[str] = [
    "workbench.cli.run",
    "workbench.cli.serve",
    "workbench.cli.surface",
    "workbench.cli.sweep",
    "workbench.cli.eval",
    "workbench.cli.test",
    "workbench.cli.gateway",
]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 a check failed, 2 an error)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return run_parsed(args)


def run_parsed(args: argparse.Namespace) -> int:
    """Run a parsed command (``args.func``), turning its errors into one line and exit 2.

    Shared by ``workbench`` and the standalone ``mcp-tool`` script.
    """
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # `workbench run ... | head`
        return 0
    except WorkbenchError as exc:
        return _fail(str(exc))
    except OSError as exc:
        from workbench._files import STORAGE_ERRNOS, describe_os_error

        if exc.filename is not None:  # a path the user named (or one derived from it)
            return _fail(f"{exc.filename}: {describe_os_error(exc.filename, exc)}")
        if exc.errno in STORAGE_ERRNOS:  # a write to an open file: the disk, not a bug
            return _fail(f"cannot write: {describe_os_error(None, exc)}")
        raise  # anything else is a bug: show it whole


def _fail(message: str) -> int:
    """Print ``message`` as one ``error:`` line (newlines in it folded) and return 2."""
    print("error: " + " ".join(message.split()), file=sys.stderr)
    return 2


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="workbench",
        description="Design multi-agent scenarios and see exactly what agents may call, "
                    "what they did call, and what an MCP server offers them.",
    )
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for module in COMMANDS:
        importlib.import_module(module).register(sub)
    return parser
