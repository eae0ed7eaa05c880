"""``workbench sweep`` from a terminal: the table, JSON, and one line for bad input."""

import json
import subprocess
import sys

import pytest

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess


def _sweep(args, env, cwd=None, timeout=180):
    return subprocess.run([sys.executable, "-m", "workbench.cli", "sweep", *args],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)


def test_json_rows_and_a_summary_line(config_dir, tmp_path, offline_env):
    proc = _sweep(["oracle-grove", "--config", str(config_dir), "--seeds", "1-2", "--set",
                   "governor.max_ticks=2", "--workers", "1", "--out", str(tmp_path / "o"),
                   "--format", "json"], offline_env)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [(r["seed"], r["variant"], r["events"]) for r in rows] == [
        (1, "governor.max_ticks=2", 9), (2, "governor.max_ticks=2", 9)]
    assert all(r["error"] is None and len(r["final_hash"]) == 64 for r in rows)
    assert proc.stderr.strip().startswith("sweep finished: 2 runs, 0 failed")


def test_the_table_by_default(config_dir, tmp_path, offline_env):
    proc = _sweep(["town-square", "--config", str(config_dir), "--workers", "1", "--out",
                   str(tmp_path / "o")], offline_env)
    assert proc.returncode == 0, proc.stderr
    header, row = proc.stdout.splitlines()
    assert header.split()[:4] == ["run", "variant", "seed", "final_hash"]
    assert row.split()[1:3] == ["base", "3"]


@pytest.mark.parametrize("args, words", [
    (["--seeds", "9-1"], ["--seeds", "empty or negative"]),
    (["--seeds", "x"], ["--seeds"]),
    (["--set", "nokey"], ["--set", "KEY=VALUE"]),
    (["--set", "agents.nobody.tools=[]"], ["no agent 'nobody'"]),
    (["--set", "governor.max_ticks=zero"], ["max_ticks"]),
    (["--workers", "0"], ["--workers"]),
    (["--surface", "nowhere"], ["nowhere", "tools.json"]),
    (["--config", "no-such-dir"], ["no-such-dir", "config directory"]),
])
def test_bad_input_is_one_line_and_exit_2(config_dir, tmp_path, offline_env, args, words):
    base = ["oracle-grove", "--config", str(config_dir), "--out", str(tmp_path / "o")]
    proc = _sweep(base + args, offline_env, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    for word in words:
        assert word in proc.stderr
    assert not (tmp_path / "o" / "runs.parquet").exists()


def test_an_output_under_a_file_is_one_line(config_dir, tmp_path, offline_env):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    proc = _sweep(["oracle-grove", "--config", str(config_dir), "--workers", "1",
                   "--out", str(blocker / "o")], offline_env)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert blocker.read_text() == "not a directory"


class TestBadSetValues:
    """Each bad --set value is one line naming the key, before any worker starts."""

    @pytest.mark.parametrize("override, words", [
        ("governor.max_ticks=abc", ["valid integer"]),
        ("governor.max_ticks=-5", ["greater than or equal to 1"]),
        ("governor.max_ticks=1e400", ["valid integer"]),
        ("governor.max_ticks=1.0e+400", ["finite number"]),
        ("cast=[]", ["at least 1 item"]),
        ("governor.max_ticks=99999999999999999999999", ["64 bits"]),
    ])
    def test_one_line_naming_the_key(self, config_dir, tmp_path, offline_env, override,
                                     words):
        key = override.partition("=")[0]
        out = tmp_path / "o"
        proc = _sweep(["oracle-grove", "--config", str(config_dir), "--workers", "1",
                       "--set", "governor.max_ticks=2", "--set", override, "--out", str(out)],
                      offline_env, timeout=60)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1, proc.stderr
        assert proc.stderr.startswith(f"error: --set: {key}: "), proc.stderr
        for word in words:
            assert word in proc.stderr
        assert "workbench-sweep-check" not in proc.stderr  # no private temp path
        assert not (out / "runs").exists()  # nothing ran, not even the good variant

    def test_a_grid_past_the_cap_is_one_line(self, config_dir, tmp_path, offline_env):
        sets = [arg for key in range(8) for value in range(10)
                for arg in ("--set", f"governor.k{key}={value}")]
        proc = _sweep(["oracle-grove", "--config", str(config_dir), *sets,
                       "--out", str(tmp_path / "o")], offline_env)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and "100,000,000 variants" in proc.stderr
        assert not (tmp_path / "o").exists()

    def test_seeds_times_variants_past_the_cap_is_one_line(self, config_dir, tmp_path,
                                                           offline_env):
        proc = _sweep(["oracle-grove", "--config", str(config_dir), "--seeds", "0-99999",
                       "--set", "governor.max_ticks=2", "--set", "governor.max_ticks=3",
                       "--out", str(tmp_path / "o")], offline_env, timeout=60)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and "200,000 runs" in proc.stderr
        assert "--seeds" in proc.stderr and not (tmp_path / "o").exists()


class TestCassetteThatIsNotAFile:
    """The cassette travels in every task: only a regular file within the cap is read."""

    @pytest.mark.parametrize("kind", ["fifo", "device"])
    def test_one_line_at_once(self, config_dir, tmp_path, offline_env, kind):
        import os

        if kind == "fifo":
            tape = tmp_path / "tape.jsonl"
            os.mkfifo(tape)
        else:
            tape = "/dev/zero"
        proc = _sweep(["oracle-grove", "--config", str(config_dir), "--cassette", str(tape),
                       "--out", str(tmp_path / "o")], offline_env, timeout=30)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and "not a regular file" in proc.stderr
        assert str(tape) in proc.stderr
