"""Run a sweep's tasks on an executor and gather one table out.

Local processes by default (:class:`concurrent.futures.ProcessPoolExecutor`), or a Dask
cluster when given a ``dask.distributed.Client`` or a scheduler address: the same
:class:`~workbench.sweeps.task.RunTask` objects go to either. A worker that dies costs only
its runs: the local pool is rebuilt and the unfinished runs sent again; Dask reschedules
them itself. A run's ledger reaches the output only complete and verified, under a name
fixed by its grid point and seed, so a run is never recorded twice, and a resumed sweep
skips every run whose ledger is already there and verifies.

Results: ``runs.parquet`` (one row per run) and ``events.parquet`` (every event of every
run, with its run id) under the output, so pandas or DuckDB can query a sweep. Rows are
sorted by grid position and seed, so the same sweep gives the same rows whatever the
worker count, the executor or the order runs finish in (``duration_s`` aside).

Before any run: the grid is counted from its axes (at most
:data:`~workbench.sweeps.grid.MAX_VARIANTS` variants and
:data:`~workbench.sweeps.grid.MAX_RUNS` runs), every variant's config is loaded by the
config's own loaders, and the output is locked for the sweep's life
(:mod:`workbench.sweeps.lock`), so a second sweep on it is refused at once.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError
from workbench.sweeps.bundle import ConfigBundle
from workbench.sweeps.cluster import check_address, run_on_dask
from workbench.sweeps.grid import MAX_RUNS, MAX_SEEDS, parse_seeds, variant_grid
from workbench.sweeps.lock import hold_output
from workbench.sweeps.task import (
    EVENT_COLUMNS,
    RunTask,
    events_table,
    publish,
    run_row,
    run_task,
)

__all__ = ["RUN_COLUMNS", "EVENT_COLUMNS", "sweep"]

#: ``progress(done, total)`` after every run that finishes (skipped runs count as done).
Progress = Callable[[int, int], None]

#: Columns of ``runs.parquet``, in order.
RUN_COLUMNS = ["run", "variant", "variant_index", "seed", "final_hash", "events", "ticks",
               "reason", "violations", "tool_errors", "agent_failures", "model_calls",
               "error", "duration_s", "ledger"]
#: Times one run is sent again after the worker running it died, before it is given up.
MAX_ATTEMPTS = 3
#: Bytes of a sweep's cassette. It is copied into every task sent to every worker; the
#: shipped ones are tens of kilobytes, a long recorded session a few megabytes.
MAX_CASSETTE_BYTES = 64 * 1024 * 1024


def sweep(config: str | Path, scenario: str, *, seeds: str | Iterable[int] | None = None,
              sets: Sequence[str] = (), surfaces: Sequence[str] = (), out: str | Path,
              workers: int | None = None, dask: Any = None, cassette: str | Path | None = None,
              approve: Sequence[str] = (), progress: Progress | None = None) -> Any:
    """Run the grid ``seeds x variants`` of ``scenario``; returns the runs as a DataFrame.

    Args:
        config: The config directory.
        scenario: The scenario's name.
        seeds: ``"0-99"``, a list of ints, or None for the scenario's default seed.
        sets: ``KEY=VALUE`` overrides (see :mod:`workbench.sweeps.grid`).
        surfaces: Surface directories to try in place of the scenario's own.
        out: Output directory or fsspec URL (ledgers, ``runs.parquet``, ``events.parquet``).
        workers: Local worker processes (default: the CPU count).
        dask: A ``dask.distributed.Client`` or a scheduler address (``tcp://host:port``);
            when given, runs go to that cluster instead of local processes.
        cassette: A cassette every run's ``openai`` agents replay (it travels with the
            tasks); sweeps never call a live model.
        approve: Tools whose calls are approved ahead, as ``workbench run --approve``
            (``'*'`` approves all); other calls that need approval are refused.
        progress: Called with ``(done, total)`` as runs finish.

    Raises:
        ConfigError: a bad seed range, ``--set``, surface, ``--dask`` address or scenario,
            or a grid past its caps (all before any run).
        SweepError: another sweep holds ``out``, the Dask scheduler cannot be reached, or
            the executor failed in a way re-sending cannot mend.
    """
    pd = _require_sweep_extra()
    # Everything that can be refused from the arguments alone, before any file is read.
    if workers is not None and workers < 1:
        raise ConfigError("--workers", "", f"{workers} is not allowed; give 1 or more")
    if isinstance(dask, str):
        check_address(dask)
    elif dask is not None and not hasattr(dask, "submit"):
        check_address(dask)  # neither an address nor a Client: refused, naming --dask
    grid = variant_grid(sets, surfaces)
    seed_list = _seeds(config, scenario, seeds)
    if len(seed_list) * grid.size > MAX_RUNS:
        raise ConfigError("--seeds", "", f"{len(seed_list):,} seeds x {grid.size:,} variants "
                                         f"is {len(seed_list) * grid.size:,} runs; a sweep "
                                         f"may have at most {MAX_RUNS:,}: split it by seeds "
                                         f"or by variants")
    bundle = ConfigBundle.snapshot(config, scenario, tuple(surfaces))
    bundle.check_variants(grid, config)  # a bad --set fails now, not in 100 workers
    tape = _read_cassette(cassette) if cassette is not None else None
    out = str(out)
    _prepare_out(out)
    project = str(Path(config).resolve().parent)
    with hold_output(out):
        tasks = [RunTask(bundle, v, s, out, project, tape, tuple(approve))
                 for v in grid for s in seed_list]
        rows: dict[str, dict[str, Any]] = {}
        todo = []
        for task in tasks:
            row = _finished(task)
            if row is not None:
                rows[task.run_id] = row
            else:
                todo.append(task)
        total = len(tasks)
        skipped = len(rows)
        tick = _counter(progress, total, skipped)
        stats = {"resent": 0}
        if todo:
            found = (run_on_dask(todo, dask, run_task, _failed, MAX_ATTEMPTS, tick)
                     if dask is not None else _local(todo, workers, tick, stats))
            for row in found:
                rows[row["run"]] = row
        frame = pd.DataFrame([rows[t.run_id] for t in tasks], columns=RUN_COLUMNS)
        _write_results(frame, tasks, out)
    # How the sweep went, beside the rows (not in them: rows depend only on the grid).
    frame.attrs.update(skipped=skipped, resent=stats["resent"])
    return frame


def _seeds(config: str | Path, scenario: str, seeds: str | Iterable[int] | None) -> list[int]:
    """The sweep's seeds: parsed, listed, or the scenario's default."""
    if seeds is None:
        from workbench.contracts.config import ConfigTree

        return [ConfigTree.load(config).scenario(scenario).default_seed]
    if isinstance(seeds, str):
        return parse_seeds(seeds)
    listed = sorted(set(int(s) for s in seeds))
    if len(listed) > MAX_SEEDS:
        raise ConfigError("--seeds", "", f"{len(listed):,} seeds; a sweep may name at most "
                                         f"{MAX_SEEDS:,}: split the sweep")
    return listed


def _require_sweep_extra() -> Any:
    """Import fsspec, pyarrow and pandas (returned), or raise MissingDependency."""
    import importlib

    from workbench.errors import MissingDependency

    for module in ("fsspec", "pyarrow", "pandas"):
        try:
            found = importlib.import_module(module)
        except ImportError as exc:
            raise MissingDependency(module, "sweep") from exc
    return found


def _read_cassette(path: str | Path) -> bytes:
    """The cassette's bytes, checked before anything is dispatched (a regular file only)."""
    from workbench._files import read_text

    return read_text(path, "a cassette (JSONL) written by `workbench run --cassette`",
                     allow_empty=False, max_bytes=MAX_CASSETTE_BYTES).encode("utf-8")


def _prepare_out(out: str) -> None:
    """Create the output directory now, so a bad ``--out`` fails before any run."""
    import fsspec

    try:
        fs, base = fsspec.core.url_to_fs(out)
        fs.makedirs(base, exist_ok=True)
    except (OSError, ValueError) as exc:
        raise ConfigError("--out", "", f"cannot create the output {out!r} "
                                       f"({getattr(exc, 'strerror', None) or exc}); give a "
                                       f"directory or fsspec URL you can write to") from None


def _counter(progress: Progress | None, total: int, done: int) -> Callable[[], None]:
    state = [done]
    if progress is not None:
        progress(done, total)

    def step() -> None:
        state[0] += 1
        if progress is not None:
            progress(state[0], total)

    return step


def _finished(task: RunTask) -> dict[str, Any] | None:
    """The row of a run whose ledger is already in place and complete, else None."""
    import fsspec

    from workbench.engine.ledger import JsonlLedgerStore
    from workbench.errors import LedgerError

    fs, base = fsspec.core.url_to_fs(task.out)
    path = f"{base.rstrip('/')}/{task.ledger_rel}"
    if not fs.exists(path):
        return None
    with tempfile.TemporaryDirectory(prefix="workbench-sweep-resume-") as tmp:
        local = Path(tmp) / "ledger.jsonl"
        fs.get_file(path, str(local))
        try:
            found = JsonlLedgerStore.read(local)
        except LedgerError:
            return None  # not ours to trust: run it again (the rename replaces it)
        calls = f"{base.rstrip('/')}/{task.calls_rel}"
        model_calls = 0
        if fs.exists(calls):
            from workbench.engine.calls_log import read_model_calls

            fs.get_file(calls, str(Path(tmp) / "calls.jsonl"))
            model_calls = len(read_model_calls(Path(tmp) / "calls.jsonl"))
        row = run_row(task, found.events, model_calls=model_calls)
        if row["reason"] is None:
            return None
        if not fs.exists(f"{base.rstrip('/')}/{task.events_rel}"):
            part = Path(tmp) / "events.parquet"
            events_table(task, found.events).to_parquet(part, index=False)
            publish(part, task.out, task.events_rel)
    return row


def _local(tasks: list[RunTask], workers: int | None, done: Callable[[], None],
           stats: dict[str, int]) -> Iterable[dict[str, Any]]:
    """Run on local processes; a dead worker breaks the pool, so rebuild it and re-send."""
    import multiprocessing

    attempts = {t.run_id: 0 for t in tasks}
    pending = list(tasks)
    workers = workers or os.cpu_count() or 1
    # forkserver: a clean parent for workers even when this process holds threads (a
    # notebook kernel with live MCP sessions), at a fraction of spawn's start-up cost.
    context = multiprocessing.get_context("forkserver")
    while pending:
        with ProcessPoolExecutor(max_workers=min(workers, len(pending)),
                                 mp_context=context) as pool:
            running = {pool.submit(run_task, t): t for t in pending}
            pending = []
            while running:
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    task = running.pop(future)
                    try:
                        row = future.result()
                    except BrokenProcessPool:
                        attempts[task.run_id] += 1
                        stats["resent"] += 1
                        if attempts[task.run_id] >= MAX_ATTEMPTS:
                            yield _failed(task, f"its worker died {MAX_ATTEMPTS} times")
                            done()
                        else:
                            pending.append(task)
                        continue
                    except Exception as exc:  # noqa: BLE001 - e.g. the output disk is full
                        row = run_row(task, None, error=f"{type(exc).__name__}: {exc}")
                    yield row
                    done()


def _failed(task: RunTask, why: str) -> dict[str, Any]:
    return run_row(task, None, error=why)


def _write_results(frame: Any, tasks: list[RunTask], out: str) -> None:
    """``runs.parquet`` and ``events.parquet`` under ``out`` (each written, then renamed).

    ``events.parquet`` is the runs' own parts (written by the workers, in parallel) joined
    in grid order: columnar concatenation, no event is parsed again here.
    """
    import fsspec
    import pyarrow as pa
    import pyarrow.parquet as pq

    fs, base = fsspec.core.url_to_fs(out)
    base = base.rstrip("/")
    fs.makedirs(base, exist_ok=True)
    parts = []
    for task, ledger in zip(tasks, frame["ledger"], strict=True):
        if isinstance(ledger, str):
            with fs.open(f"{base}/{task.events_rel}", "rb") as fh:
                parts.append(pq.read_table(fh))
    empty = events_table(tasks[0], []) if tasks else None
    events = (pa.concat_tables(parts) if parts
              else pa.Table.from_pandas(empty, preserve_index=False))
    with tempfile.TemporaryDirectory(prefix="workbench-sweep-results-") as tmp:
        runs_file, events_file = Path(tmp) / "runs.parquet", Path(tmp) / "events.parquet"
        frame.to_parquet(runs_file, index=False)
        pq.write_table(events, events_file)
        for local in (runs_file, events_file):
            publish(local, out, local.name)
