"""An MCP server whose one tool has a side effect it counts, and can hold a call mid-flight.

Run as ``python tests/tools/servers/counting_server.py --count FILE [--hold-at K ...
--hold before|after --held FILE]``. Each execution of ``record(n)`` appends ``n`` as one
line to ``--count``: the side effect, so a test can compare what ran with what the ledger
says ran. With ``--hold-at K`` (repeatable) the K-th call (counting executions already in
the file) blocks, ``before`` or ``after`` its side effect, and writes this process's pid
to ``--held`` + ``.K``: a test then kills the workbench at exactly that point. Each K is
held once (its file marks it), so a resumed run's fresh server does not hold it again.

``oracle(seed)`` stands for a failing server under the fortune-teller: it dies mid-call
(a ``transport_error`` whose operator hint names the connection's log file).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from mcp.server import MCPServer

server = MCPServer("counting", log_level="WARNING")
ARGS = argparse.Namespace(count=None, hold_at=[], hold="after", held=None)


def _executed() -> int:
    try:
        with open(ARGS.count, encoding="utf-8") as fh:
            return sum(1 for _ in fh)
    except FileNotFoundError:
        return 0


def _hold(at: int) -> None:
    with open(f"{ARGS.held}.{at}", "w", encoding="utf-8") as fh:
        fh.write(str(os.getpid()))
    time.sleep(120)  # the test kills the workbench (and this server) long before
    os._exit(3)


@server.tool(description="Record n: appends it to the count file (a side effect).")
def record(n: int) -> dict[str, Any]:
    at = _executed() + 1
    holding = at in ARGS.hold_at and not os.path.exists(f"{ARGS.held}.{at}")
    if holding and ARGS.hold == "before":
        _hold(at)
    with open(ARGS.count, "a", encoding="utf-8") as fh:
        fh.write(f"{n}\n")
        fh.flush()
        os.fsync(fh.fileno())
    if holding:
        _hold(at)
    return {"recorded": n}


@server.tool(description="Read an omen; this server dies while reading it.")
def oracle(seed: str) -> dict[str, Any]:
    os._exit(1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", required=True)
    parser.add_argument("--hold-at", type=int, action="append", default=[])
    parser.add_argument("--hold", choices=("before", "after"), default="after")
    parser.add_argument("--held", default=None)
    parser.parse_args(namespace=ARGS)
    server.run()


if __name__ == "__main__":
    main()
