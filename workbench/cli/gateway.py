"""``workbench gateway SCENARIO --agent AGENT``: one agent's contract as an MCP server.

::

    workbench gateway SCENARIO --agent AGENT [--config DIR] [--ledger FILE] [--overwrite]
                      [--approve TOOL]... [--http PORT [--host HOST]]
                      [--print-config claude|cursor|vscode]

Stdio by default (a host starts it like any server); Streamable HTTP at
``http://127.0.0.1:PORT/mcp`` with ``--http PORT``, held to the bounds of
:mod:`workbench.tools.mcp.http_server`. The ledger's path is printed on stderr at start.
``--print-config HOST`` prints the host's JSON snippet for these same arguments and exits.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from typing import Any

from workbench.cli.args import host, port

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add ``workbench gateway``."""
    parser = subparsers.add_parser(
        "gateway", help="serve one agent's contract (grants, curated surface, pins, "
                        "approval, ledger) as an MCP server for any host",
        description="Serve exactly the tools AGENT has in a run of SCENARIO as an MCP server "
                    "(stdio by default): every call is checked by the run's registry and "
                    "recorded on a hash-chained ledger.",
    )
    parser.add_argument("scenario", help="scenario name (see `workbench scenarios`)")
    parser.add_argument("--agent", required=True,
                        help="the agent of the scenario's cast whose grants are served")
    parser.add_argument("--config", default="config", help="config directory (default: config)")
    parser.add_argument("--ledger", default=None, metavar="FILE",
                        help="write the ledger here (default: a new file under "
                             "$WORKBENCH_GATEWAY_LEDGER_DIR or ~/.local/state/workbench/"
                             "gateway); the calls log goes beside it")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the --ledger file if it exists (otherwise an error)")
    parser.add_argument("--approve", action="append", default=[], metavar="TOOL",
                        help="let calls to TOOL through without asking (repeatable; "
                             "SERVER:TOOL names the server, '*' approves all). Otherwise a "
                             "host that supports elicitation asks the person, and without "
                             "one such calls are refused")
    parser.add_argument("--http", type=port, metavar="PORT",
                        help="serve Streamable HTTP on 127.0.0.1:PORT at /mcp instead of "
                             "stdio (1-65535)")
    parser.add_argument("--host", default="127.0.0.1", type=host,
                        help="interface for --http (default 127.0.0.1; anything else "
                             "exposes the tools)")
    parser.add_argument("--print-config", choices=("claude", "cursor", "vscode"),
                        metavar="HOST", default=None,
                        help="print the JSON snippet that makes HOST (claude, cursor or "
                             "vscode) start this gateway, and exit")
    parser.set_defaults(func=_cmd_gateway)


def _cmd_gateway(args: argparse.Namespace) -> int:
    if args.print_config is not None:
        return _print_config(args)
    from workbench.gateway.approval import approval_timeout
    from workbench.gateway.running import Gateway
    from workbench.tools.mcp.http_server import HttpBounds

    # Settings first: a bad WORKBENCH_* value is refused before anything starts.
    bounds = HttpBounds.from_env()
    wait = approval_timeout()
    gateway = Gateway.open(args.config, args.scenario, args.agent, ledger=args.ledger,
                           approve=args.approve, overwrite=args.overwrite, approval_wait=wait)
    note = gateway.calls.note
    note(f"ledger: {gateway.record.path} (calls log: {gateway.record.calls_log_path})")
    reason = "stopped"
    # A host stops its server with SIGTERM: end as cleanly as Ctrl+C does.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        if args.http is None:
            note(gateway.describe("serving stdio"))
            reason = gateway.serve_stdio()
        else:
            reason = gateway.serve_http(
                args.http, args.host, bounds=bounds,
                bound=lambda url: note(gateway.describe(f"serving {url}")))
    except KeyboardInterrupt:
        reason = "interrupted"
    finally:
        gateway.close(reason)
        counts = dict(sorted(gateway.record.counts.items()))
        note(f"stopped ({reason}): {sum(counts.values())} calls {json.dumps(counts)}; "
             f"ledger {gateway.record.path}")
    return 0


def _print_config(args: argparse.Namespace) -> int:
    from workbench.contracts.config import ConfigTree
    from workbench.gateway.contract import agent_of
    from workbench.gateway.hosts import gateway_command, host_config, server_name

    tree = ConfigTree.load(args.config)  # a snippet that cannot start is refused now
    spec = tree.scenario(args.scenario)
    agent_of(tree, spec, args.agent)
    argv = gateway_command(spec.name, args.agent, config=args.config, ledger=args.ledger,
                           approve=args.approve, overwrite=args.overwrite)
    url = None if args.http is None else f"http://{args.host}:{args.http}/mcp"
    snippet = host_config(args.print_config, argv, name=server_name(spec.name, args.agent),
                          url=url)
    json.dump(snippet, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0
