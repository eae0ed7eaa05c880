"""Local sweeps: real worker processes, real ledgers, a worker killed mid-sweep."""

import multiprocessing
import os
import signal

import pandas as pd
import pytest

from workbench.engine.ledger import JsonlLedgerStore
from workbench.sweeps import RUN_COLUMNS, sweep

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

GRID = dict(seeds="0-3", sets=["governor.max_ticks=3", "governor.max_ticks=5",
                               "agents.fortune-teller.tools=[]"])


def _stable(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=["duration_s"])


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The grid on one worker: what every other way of running it must reproduce."""
    from pathlib import Path

    config = Path(__file__).resolve().parents[2] / "config"
    out = tmp_path_factory.mktemp("ref")
    return sweep(config, "oracle-grove", out=out, workers=1, **GRID), out


def test_one_row_per_run_with_a_verified_ledger(reference):
    frame, out = reference
    assert list(frame.columns) == RUN_COLUMNS
    assert len(frame) == 8 and frame["run"].is_unique
    assert frame["error"].isna().all() and (frame["reason"] == "ticks").all()
    assert frame["violations"].tolist() == [3] * 4 + [5] * 4  # the revoked oracle, per tick
    for row in frame.itertuples():
        check = JsonlLedgerStore.verify(out / row.ledger)
        assert check.final_hash == row.final_hash and check.count == row.events
    on_disk = pd.read_parquet(out / "runs.parquet")
    pd.testing.assert_frame_equal(_stable(on_disk), _stable(frame))
    events = pd.read_parquet(out / "events.parquet")
    assert len(events) == frame["events"].sum()
    assert (events.groupby("run")["hash"].last().sort_index()
            == frame.set_index("run")["final_hash"].sort_index()).all()


def test_two_workers_give_the_same_rows(reference, config_dir, tmp_path):
    frame = sweep(config_dir, "oracle-grove", out=tmp_path, workers=2, **GRID)
    pd.testing.assert_frame_equal(_stable(frame), _stable(reference[0]))


def test_resume_skips_finished_runs(reference, config_dir, tmp_path):
    first = sweep(config_dir, "oracle-grove", out=tmp_path, workers=2, **GRID)
    victim = tmp_path / first["ledger"][5]
    victim.unlink()
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "runs").rglob("*")
              if p.is_file() and not p.name.startswith(victim.stem)}
    again = sweep(config_dir, "oracle-grove", out=tmp_path, workers=2, **GRID)
    assert again.attrs["skipped"] == 7
    pd.testing.assert_frame_equal(_stable(again), _stable(reference[0]))
    for path, mtime in before.items():
        assert path.stat().st_mtime_ns == mtime  # finished runs were not run again
    assert victim.exists()


def test_a_torn_ledger_is_run_again(reference, config_dir, tmp_path):
    sweep(config_dir, "oracle-grove", out=tmp_path, workers=1, **GRID)
    torn = tmp_path / reference[0]["ledger"][2]
    torn.write_bytes(torn.read_bytes()[:-40])
    again = sweep(config_dir, "oracle-grove", out=tmp_path, workers=1, **GRID)
    assert again.attrs["skipped"] == 7
    pd.testing.assert_frame_equal(_stable(again), _stable(reference[0]))


def test_a_killed_worker_costs_only_its_runs(reference, config_dir, tmp_path):
    killed = []

    def kill_one(done, total):
        if done == 1 and not killed:
            workers = multiprocessing.active_children()
            assert workers, "the pool's workers are this process's children"
            os.kill(workers[0].pid, signal.SIGKILL)
            killed.append(workers[0].pid)

    frame = sweep(config_dir, "oracle-grove", out=tmp_path, workers=2, progress=kill_one,
                  **GRID)
    assert killed and frame.attrs["resent"] >= 1
    pd.testing.assert_frame_equal(_stable(frame), _stable(reference[0]))
    ledgers = sorted(p for p in (tmp_path / "runs").rglob("*.jsonl")
                     if not p.name.endswith(".calls.jsonl"))
    assert ledgers == sorted(tmp_path / r for r in frame["ledger"])
    assert not list(tmp_path.rglob("*.partial"))


def test_a_run_that_fails_is_a_row_not_the_end(config_dir, tmp_path):
    frame = sweep(config_dir, "watch-house", out=tmp_path, workers=1, seeds="1",
                  sets=["servers=[{name: gone, command: 'definitely-not-a-command-xyz'}]"])
    assert len(frame) == 1
    assert isinstance(frame["error"][0], str) and frame["final_hash"].isna().all()


def test_an_fsspec_url_is_an_output(reference, config_dir, tmp_path):
    frame = sweep(config_dir, "oracle-grove", out=f"file://{tmp_path}/u", workers=1, **GRID)
    pd.testing.assert_frame_equal(_stable(frame), _stable(reference[0]))
    assert (tmp_path / "u" / "runs.parquet").is_file()


def test_a_model_in_the_loop_replays_its_cassette_in_every_run(repo_root, tmp_path):
    """counting-house's openai clerk, replayed: model calls counted, no model reached."""
    tape = repo_root / "config" / "cassettes" / "counting-house.jsonl"
    grid = dict(seeds="1", cassette=tape, approve=["*"],  # as the cassette was recorded
                sets=["governor.max_model_calls=12", "governor.max_model_calls=2"])
    frame = sweep(repo_root / "config", "counting-house", out=tmp_path / "a", workers=2,
                  **grid)
    assert frame["error"].isna().all(), frame["error"].tolist()
    assert frame["model_calls"].tolist()[1] == 2 < frame["model_calls"].tolist()[0]
    assert frame["reason"].tolist() == ["ticks", "budget"]
    assert frame["violations"].tolist()[0] > 0  # the poisoned description lures it: refused
    again = sweep(repo_root / "config", "counting-house", out=tmp_path / "a", workers=1,
                  **grid)
    assert again.attrs["skipped"] == 2
    pd.testing.assert_frame_equal(_stable(again), _stable(frame))  # model_calls kept too
    missing = sweep(repo_root / "config", "counting-house", out=tmp_path / "b", workers=1,
                    **dict(grid, approve=[]))  # refusals change the prompts: not on tape
    assert missing["error"].str.contains("re-record").all()
