"""Long commands show their progress on a terminal, and only there (issue 30 item 6).

Each command runs as a real subprocess whose stderr is a pseudo-terminal (``pty``), as a
person's shell gives it, or a pipe, as a script or CI gives it. On the terminal the count
moves (``tick n/N``, ``runs n/N``); on a pipe, and with ``--quiet``, no bar is drawn and
the result is the same.
"""

from __future__ import annotations

import os
import pty
import subprocess

import pytest

pytestmark = pytest.mark.subprocess


def run_on_a_terminal(command: list[str], env: dict[str, str], cwd) -> tuple[int, str, str]:
    """Run ``command`` with stderr on a pseudo-terminal; (exit code, stdout, the terminal)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=slave, env=env, cwd=cwd)
    os.close(slave)
    screen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        screen += chunk
    os.close(master)
    out = proc.stdout.read().decode()
    return proc.wait(timeout=60), out, screen.decode(errors="replace")


def run_on_a_pipe(command: list[str], env: dict[str, str], cwd) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=60)


class TestRunProgress:
    ARGS = ["run", "oracle-grove", "--ticks", "4", "--format", "jsonl"]

    def test_a_terminal_sees_the_ticks_count(self, workbench_cli, offline_env, repo_root):
        code, out, screen = run_on_a_terminal([*workbench_cli, *self.ARGS], offline_env,
                                              repo_root)
        assert code == 0, screen
        assert "tick 4/4" in screen and "tick 1/4" in screen
        assert "tick 1/4" not in out  # the ledger on stdout is clean

    def test_quiet_draws_no_bar_on_a_terminal(self, workbench_cli, offline_env, repo_root):
        code, out, screen = run_on_a_terminal([*workbench_cli, *self.ARGS, "--quiet"],
                                              offline_env, repo_root)
        assert code == 0, screen
        assert "tick 1/4" not in screen and "run finished" in screen
        assert len(out.splitlines()) > 10

    def test_a_pipe_gets_no_bar(self, workbench_cli, offline_env, repo_root):
        done = run_on_a_pipe([*workbench_cli, *self.ARGS], offline_env, repo_root)
        assert done.returncode == 0 and "tick 1/4" not in done.stderr
        assert "\r" not in done.stderr


class TestSweepProgress:
    def args(self, tmp_path):
        return ["sweep", "oracle-grove", "--seeds", "1-3", "--workers", "1",
                "--set", "governor.max_ticks=2", "--out", str(tmp_path / "out")]

    def test_a_terminal_sees_the_runs_count(self, workbench_cli, offline_env, repo_root,
                                            tmp_path):
        code, out, screen = run_on_a_terminal([*workbench_cli, *self.args(tmp_path)],
                                              offline_env, repo_root)
        assert code == 0, screen
        assert "runs 3/3" in screen and "runs 0/3" in screen
        assert "sweep finished: 3 runs" in screen

    def test_quiet_draws_no_bar(self, workbench_cli, offline_env, repo_root, tmp_path):
        code, out, screen = run_on_a_terminal(
            [*workbench_cli, *self.args(tmp_path), "--quiet"], offline_env, repo_root)
        assert code == 0, screen
        assert "runs 0/3" not in screen and "sweep finished: 3 runs" in screen
        assert "governor.max_ticks=2" in out  # the table is the result, on stdout
