"""One run of a sweep, as a task any executor can carry: the config travels with it.

:func:`run_task` is what a worker executes: it writes the task's config bundle (with the
variant's overrides) into a private temporary directory, runs the scenario with its ledger
in that directory, verifies the ledger, and only then moves it to its place under the
sweep's output, with a rename. A run killed half-way (a worker that dies) therefore leaves
nothing under the output; running it again writes the same bytes. The output may be a
local directory or any fsspec URL the workers can reach.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.contracts.events import AGENT_FAILED, RUN_FINISHED, TOOL_CALLED, TOOL_DENIED
from workbench.sweeps.bundle import ConfigBundle
from workbench.sweeps.grid import Variant

__all__ = ["EVENT_COLUMNS", "RunTask", "events_table", "publish", "run_row", "run_task"]

#: Columns of ``events.parquet``, in order (``payload`` is canonical JSON).
EVENT_COLUMNS = ["run", "variant", "seed", "seq", "tick", "kind", "actor", "payload",
                 "caused_by", "hash"]


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs for one run.

    Attributes:
        bundle: The config, as data.
        variant: The grid point.
        seed: The seed.
        out: The sweep's output directory or fsspec URL.
        project_dir: Where stdio server commands run from, when it exists on the worker
            (commands like ``node external/...`` are relative to it).
        cassette: A cassette's bytes, replayed by every run's ``openai`` agents (no model
            is ever called: a request the cassette lacks fails that run).
        approve: Tools whose calls are approved ahead (as ``workbench run --approve``);
            nobody is there to ask, so any other call needing approval is refused.
    """

    bundle: ConfigBundle
    variant: Variant
    seed: int
    out: str
    project_dir: str | None = None
    cassette: bytes | None = None
    approve: tuple[str, ...] = ()

    @property
    def run_id(self) -> str:
        """``<variant id>/seed-<n>``: unique in a sweep, stable across re-runs."""
        return f"{self.variant.id}/seed-{self.seed}"

    @property
    def ledger_rel(self) -> str:
        """The ledger's path under the output directory."""
        return f"runs/{self.run_id}.jsonl"

    @property
    def calls_rel(self) -> str:
        """The run's calls log (latencies, model calls: telemetry, never hashed)."""
        return f"runs/{self.run_id}.calls.jsonl"

    @property
    def events_rel(self) -> str:
        """The run's events as a Parquet part, beside its ledger."""
        return f"runs/{self.run_id}.events.parquet"


def run_task(task: RunTask) -> dict[str, Any]:
    """Run ``task`` and return its row (see :func:`run_row`); the ledger is on ``out``.

    Failures of the run itself (a config the override broke, a server that cannot start)
    are returned as a row with an ``error``, never raised: one bad run does not end a sweep.
    """
    from workbench.engine.calls_log import calls_log_path, read_model_calls
    from workbench.engine.conductor import Conductor
    from workbench.engine.ledger import JsonlLedgerStore
    from workbench.errors import LedgerError, WorkbenchError
    from workbench.surface.approval import ApprovalPolicy

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="workbench-sweep-") as tmp:
        root = Path(tmp)
        _link_project(root, task.project_dir)
        config = task.bundle.materialize(root / "config", task.variant.overrides,
                                         task.variant.surface)
        local = root / "ledger.jsonl"
        tape = None
        if task.cassette is not None:
            tape = root / "cassette.jsonl"
            tape.write_bytes(task.cassette)
        try:
            conductor = Conductor.from_config(config, task.bundle.scenario, seed=task.seed,
                                              ledger_path=local, cassette=tape,
                                              cassette_mode="replay",
                                              approver=ApprovalPolicy(allow=list(task.approve)))
            try:
                result = conductor.run()
            finally:
                conductor.close()
        except WorkbenchError as exc:
            return run_row(task, None, error=str(exc), duration=time.perf_counter() - started)
        check = JsonlLedgerStore.verify(local)
        if check.final_hash != result.final_hash or check.count != len(result.ledger):
            raise LedgerError(f"the ledger of {task.run_id} on disk does not match the run "
                              f"({check.count} events, {check.final_hash[:12]})")
        events = result.ledger.events
        part = root / "events.parquet"
        events_table(task, events).to_parquet(part, index=False)
        calls = calls_log_path(local)
        # The ledger last: a ledger in place means its part and calls log are too.
        publish(part, task.out, task.events_rel)
        if calls.exists():
            publish(calls, task.out, task.calls_rel)
        publish(local, task.out, task.ledger_rel)
        model_calls = len(read_model_calls(calls)) if calls.exists() else 0
    row = run_row(task, events, model_calls=model_calls)
    row["duration_s"] = time.perf_counter() - started
    return row


def events_table(task: RunTask, events: list[Any]) -> Any:
    """The run's events as a DataFrame with :data:`EVENT_COLUMNS` (payload as JSON)."""
    import pandas as pd

    from workbench.contracts.canonical import canonical_json

    frame = pd.DataFrame(
        [(task.run_id, task.variant.label, task.seed, e.seq, e.tick, e.kind, e.actor,
          canonical_json(e.payload), e.caused_by, e.hash) for e in events],
        columns=EVENT_COLUMNS)
    frame["caused_by"] = frame["caused_by"].astype("Int64")
    return frame


def run_row(task: RunTask, events: list[Any] | None, *, error: str | None = None,
            duration: float | None = None, model_calls: int = 0) -> dict[str, Any]:
    """A run's row of ``runs.parquet``, from its events (None: the run failed early)."""
    events = events or []
    kinds = [e.kind for e in events]
    finished = next((e for e in reversed(events) if e.kind == RUN_FINISHED), None)
    return {
        "run": task.run_id,
        "variant": task.variant.label,
        "variant_index": task.variant.index,
        "seed": task.seed,
        "final_hash": events[-1].hash if events else None,
        "events": len(events),
        "ticks": events[-1].tick if events else 0,
        "reason": finished.payload.get("reason") if finished else None,
        "violations": kinds.count(TOOL_DENIED),
        "tool_errors": sum(1 for e in events
                           if e.kind == TOOL_CALLED and "error" in e.payload),
        "agent_failures": kinds.count(AGENT_FAILED),
        "model_calls": model_calls,
        "error": error,
        "duration_s": duration,
        "ledger": task.ledger_rel if events else None,
    }


def _link_project(root: Path, project_dir: str | None) -> None:
    """Make ``root`` look like the project directory, without its config."""
    if not project_dir or not os.path.isdir(project_dir):
        return
    for entry in os.scandir(project_dir):
        if entry.name != "config" and not entry.name.startswith("."):
            (root / entry.name).symlink_to(entry.path)


def publish(local: Path, out: str, rel: str) -> None:
    """Copy a file into place under ``out`` (any fsspec URL): a temp name, then a rename.

    Readers see the old file or the whole new one, never half of it.
    """
    import fsspec

    fs, base = fsspec.core.url_to_fs(out)
    final = f"{base.rstrip('/')}/{rel}"
    if "file" in _protocols(fs):
        # A local output goes through the package's one atomic writer: its temp file has a
        # name nobody can guess, created exclusively, so nothing planted is written through.
        import shutil

        from workbench.atomic import atomic_writer

        with open(local, "rb") as src, atomic_writer(final, binary=True) as dst:
            shutil.copyfileobj(src, dst)
        # A killed earlier attempt at this run left its temp file (see below for why none
        # is still being written).
        target = Path(final)
        for stale in target.parent.glob(f".{target.name}.*.tmp"):
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()
        return
    partial = f"{final}.{os.getpid()}.{time.monotonic_ns()}.partial"
    folder = final.rsplit("/", 1)[0]
    fs.makedirs(folder, exist_ok=True)
    fs.put_file(str(local), partial)
    fs.mv(partial, final)
    # An earlier attempt at this run whose worker was killed mid-copy left its temp file; the
    # runner re-sends a run only once that worker is gone, so nothing still writes to it.
    for stale in fs.ls(folder, detail=False):
        name = str(stale)
        if name.startswith(f"{final}.") and name.endswith(".partial"):
            with contextlib.suppress(FileNotFoundError):
                fs.rm(name)


def _protocols(fs: Any) -> tuple[str, ...]:
    protocol = fs.protocol
    return (protocol,) if isinstance(protocol, str) else tuple(protocol)
