"""``workbench sweep``: a grid of runs on local processes or a Dask cluster, one table out."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add ``sweep`` to the ``workbench`` sub-commands."""
    p = sub.add_parser("sweep", help="run a grid of seeds x variants in parallel, one table out")
    p.add_argument("scenario", help="scenario name (see `workbench scenarios`)")
    p.add_argument("--config", default="config", help="config directory (default: config)")
    p.add_argument("--seeds", default=None,
                   help="seeds: N, N-M or a comma-separated mix (default: the scenario's)")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                   help="override a scenario field (governor.max_ticks=50) or an agent's "
                        "(agents.NAME.tools=[]); the same KEY again adds an alternative, "
                        "other keys multiply the grid")
    p.add_argument("--surface", dest="surfaces", action="append", default=[], metavar="DIR",
                   help="a curated surface to try in place of the scenario's (repeatable)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=None,
                       help="local worker processes (default: the CPU count)")
    where.add_argument("--dask", default=None, metavar="ADDRESS",
                       help="run on the Dask cluster whose scheduler is at ADDRESS "
                            "(tcp://HOST:PORT)")
    p.add_argument("--out", required=True,
                   help="output directory or fsspec URL: ledgers, runs.parquet, events.parquet"
                        " (a sweep run again there skips the runs already complete)")
    p.add_argument("--cassette", default=None, metavar="FILE",
                   help="a cassette every run's openai agents replay (sweeps never call a "
                        "live model; record one with `workbench run --cassette`)")
    p.add_argument("--approve", action="append", default=[], metavar="TOOL",
                   help="approve calls to TOOL ahead, as for `workbench run` (repeatable; "
                        "'*' approves all); nobody is asked during a sweep")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table",
                   help="how to print the runs (default: table)")
    p.add_argument("--quiet", action="store_true",
                   help="draw no progress bar (none is drawn when stderr is not a terminal)")
    p.set_defaults(func=_cmd_sweep)


def _cmd_sweep(args: argparse.Namespace) -> int:
    from workbench.sweeps.runner import sweep

    progress = None if args.quiet or not sys.stderr.isatty() else _progress(sys.stderr)
    frame = sweep(args.config, args.scenario, seeds=args.seeds, sets=args.sets,
                      surfaces=args.surfaces, out=args.out, workers=args.workers,
                      dask=args.dask, cassette=args.cassette, approve=args.approve,
                      progress=progress)
    if args.format == "json":
        rows = [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict("records")]
        json.dump(rows, sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif args.format == "csv":
        frame.to_csv(sys.stdout, index=False, lineterminator="\n")
    else:
        shown = frame[["run", "variant", "seed", "final_hash", "events", "violations",
                       "tool_errors", "agent_failures", "error"]].copy()
        shown["final_hash"] = shown["final_hash"].map(lambda h: h[:12] if isinstance(h, str)
                                                      else "-")
        shown["error"] = shown["error"].map(lambda e: e if isinstance(e, str) else "")
        print(shown.to_string(index=False))
    failed = int(frame["error"].notna().sum())
    print(f"sweep finished: {len(frame)} runs, {failed} failed, out={args.out}",
          file=sys.stderr)
    return 1 if failed else 0


def _plain(value: Any) -> Any:
    """Turn numpy scalars and NaN into JSON values."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _progress(stream: Any):
    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] runs {done}/{total}")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show
