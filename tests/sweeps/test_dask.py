"""Sweeps on a real Dask cluster: worker processes on loopback, one killed mid-sweep."""

import os
import signal
import subprocess
import sys

import pandas as pd
import pytest
from dask.distributed import Client, LocalCluster

from workbench.sweeps import sweep

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

GRID = dict(seeds="0-3", sets=["governor.max_ticks=3", "agents.fortune-teller.tools=[]",
                               "agents.fortune-teller.tools=[oracle]"])


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None) as local, Client(local) as c:
        yield c


def _stable(frame):
    return frame.drop(columns=["duration_s"])


def test_dask_gives_the_same_rows_as_local_processes(cluster, config_dir, tmp_path):
    local = sweep(config_dir, "oracle-grove", out=tmp_path / "local", workers=2, **GRID)
    on_dask = sweep(config_dir, "oracle-grove", out=tmp_path / "dask", dask=cluster, **GRID)
    pd.testing.assert_frame_equal(_stable(on_dask), _stable(local))
    assert on_dask["final_hash"].notna().all()


def test_a_dead_dask_worker_costs_only_its_runs(cluster, config_dir, tmp_path):
    reference = sweep(config_dir, "oracle-grove", out=tmp_path / "ref", workers=1, **GRID)
    pids = cluster.run(os.getpid)
    killed = []

    def kill_one(done, total):
        if done == 1 and not killed:
            pid = sorted(pids.values())[0]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    out = tmp_path / "dask"
    frame = sweep(config_dir, "oracle-grove", out=out, dask=cluster, progress=kill_one, **GRID)
    assert killed
    pd.testing.assert_frame_equal(_stable(frame), _stable(reference))
    files = sorted(p for p in (out / "runs").rglob("*.jsonl")
                   if not p.name.endswith(".calls.jsonl"))
    assert files == sorted(out / r for r in frame["ledger"])  # each run once
    assert not list(out.rglob("*.partial"))


def test_the_cli_reaches_a_scheduler_by_address(cluster, config_dir, tmp_path, offline_env):
    address = cluster.scheduler.address
    proc = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "sweep", "oracle-grove", "--config",
         str(config_dir), "--seeds", "1-2", "--dask", address, "--out", str(tmp_path),
         "--format", "csv"], capture_output=True, text=True, env=offline_env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    frame = pd.read_parquet(tmp_path / "runs.parquet")
    assert frame["seed"].tolist() == [1, 2] and frame["final_hash"].notna().all()
    assert proc.stdout.splitlines()[0].startswith("run,variant,")


def test_an_unreachable_scheduler_is_one_line(config_dir, tmp_path, offline_env):
    proc = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "sweep", "oracle-grove", "--config",
         str(config_dir), "--dask", "tcp://127.0.0.1:9", "--out", str(tmp_path)],
        capture_output=True, text=True, env=dict(offline_env, WORKBENCH_DASK_TIMEOUT="2"),
        timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
    assert "Dask scheduler" in proc.stderr
