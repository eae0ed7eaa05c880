"""One sweep per output: two real processes on one ``--out``, one refused at once."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

from workbench.engine.ledger import JsonlLedgerStore
from workbench.sweeps import SweepError, sweep

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

#: A sweep in its own process that holds the output until the test lets it go: its
#: progress callback (called with the lock held) waits for a file.
HOLDER = textwrap.dedent("""
    import pathlib, sys, time
    from workbench.sweeps import sweep

    config, out, gate = sys.argv[1:4]
    gate = pathlib.Path(gate)

    def wait_at_start(done, total):
        if done == 0:
            (gate.parent / "holding").touch()
            deadline = time.monotonic() + 60
            while not gate.exists() and time.monotonic() < deadline:
                time.sleep(0.05)

    sweep(config, "oracle-grove", seeds="0-3", sets=["governor.max_ticks=3"], out=out,
          workers=1, progress=wait_at_start)
""")


def _holder(config_dir, out, tmp_path, env):
    gate = tmp_path / "gate"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(config_dir), str(out),
                             str(gate)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (tmp_path / "holding").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the holding sweep never started"
        time.sleep(0.05)
    return proc, gate


def _sweep_cli(config_dir, out, env, seeds="10-11"):
    return subprocess.run([sys.executable, "-m", "workbench.cli", "sweep", "oracle-grove",
                           "--config", str(config_dir), "--seeds", seeds, "--workers", "1",
                           "--out", str(out)], capture_output=True, text=True, env=env,
                          timeout=120)


class TestTwoSweepsOneOutput:
    def test_the_second_is_refused_at_once_and_the_first_loses_nothing(
            self, config_dir, tmp_path, offline_env):
        out = tmp_path / "o"
        holder, gate = _holder(config_dir, out, tmp_path, offline_env)
        try:
            started = time.monotonic()
            second = _sweep_cli(config_dir, out, offline_env)
            refused_in = time.monotonic() - started
        finally:
            gate.touch()
            _, err = holder.communicate(timeout=120)
        assert second.returncode == 2, second.stderr
        assert second.stderr.count("\n") == 1 and second.stderr.startswith("error: ")
        assert "in use by another sweep" in second.stderr and "--out" in second.stderr
        assert refused_in < 60  # at once: it did not wait for the first to finish
        assert holder.returncode == 0, err
        runs = pd.read_parquet(out / "runs.parquet")
        assert runs["seed"].tolist() == [0, 1, 2, 3] and runs["error"].isna().all()
        for row in runs.itertuples():
            assert JsonlLedgerStore.verify(out / row.ledger).final_hash == row.final_hash
        assert not list((out / "runs").rglob("seed-1[01].*"))  # nothing of the second's

    def test_in_process_too(self, config_dir, tmp_path, offline_env):
        out = tmp_path / "o"
        holder, gate = _holder(config_dir, out, tmp_path, offline_env)
        try:
            with pytest.raises(SweepError, match="in use by another sweep"):
                sweep(config_dir, "oracle-grove", seeds="10", out=out, workers=1)
        finally:
            gate.touch()
            holder.communicate(timeout=120)
        assert holder.returncode == 0

    def test_a_killed_sweep_leaves_no_lock_behind(self, config_dir, tmp_path, offline_env):
        out = tmp_path / "o"
        holder, _ = _holder(config_dir, out, tmp_path, offline_env)
        os.kill(holder.pid, signal.SIGKILL)
        holder.communicate(timeout=60)
        after = _sweep_cli(config_dir, out, offline_env, seeds="0-1")
        assert after.returncode == 0, after.stderr
        assert pd.read_parquet(out / "runs.parquet")["seed"].tolist() == [0, 1]

    def test_one_after_the_other_is_fine(self, config_dir, tmp_path, offline_env):
        out = tmp_path / "o"
        assert _sweep_cli(config_dir, out, offline_env, seeds="0").returncode == 0
        again = _sweep_cli(config_dir, out, offline_env, seeds="0")
        assert again.returncode == 0, again.stderr
