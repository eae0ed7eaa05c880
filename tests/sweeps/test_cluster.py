"""Reaching a Dask scheduler: the address checked first, the connect bounded as a whole."""

import socket
import subprocess
import sys
import threading
import time

import pytest

from workbench.errors import ConfigError
from workbench.sweeps import SweepError, sweep
from workbench.sweeps.cluster import TIMEOUT_ENV, check_address, connect, connect_timeout

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

TIMEOUT = 2.0


class MuteScheduler:
    """A TCP listener on loopback that accepts every connection and never says a word."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.first_accept: float | None = None
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.first_accept is None:
                self.first_accept = time.monotonic()
            self.held.append(conn)

    def close(self):
        self.sock.close()
        for conn in self.held:
            conn.close()


@pytest.fixture
def mute():
    server = MuteScheduler()
    yield server
    server.close()


def _cli(args, env, timeout=90):
    return subprocess.run([sys.executable, "-m", "workbench.cli", "sweep", "oracle-grove",
                           *args], capture_output=True, text=True, env=env, timeout=timeout)


class TestAcceptsButNeverSpeaks:
    def test_the_cli_fails_within_the_timeout_with_one_line(self, mute, config_dir,
                                                            tmp_path, offline_env):
        env = dict(offline_env, **{TIMEOUT_ENV: str(TIMEOUT)})
        proc = _cli(["--config", str(config_dir), "--dask", mute.address, "--out",
                     str(tmp_path / "o")], env)
        ended = time.monotonic()
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
        assert "did not answer within 2 s" in proc.stderr and TIMEOUT_ENV in proc.stderr
        assert mute.first_accept is not None  # it really connected, then waited
        assert ended - mute.first_accept < 3 * TIMEOUT

    def test_connect_honours_its_timeout(self, mute):
        started = time.monotonic()
        with pytest.raises(SweepError, match="did not answer"):
            connect(mute.address, timeout=1.0)
        assert time.monotonic() - started < 3 * 1.0

    def test_inside_a_running_event_loop(self, mute):
        import asyncio

        async def in_a_notebook_cell():
            with pytest.raises(SweepError, match="did not answer"):
                connect(mute.address, timeout=1.0)

        asyncio.run(in_a_notebook_cell())


class TestAddress:
    @pytest.mark.parametrize("address", [
        "tcp://127.0.0.1:8786", "127.0.0.1:8786", "tls://sched.example:443",
        "tcp://[::1]:8786", "ws://host-1:80",
    ])
    def test_forms_allowed(self, address):
        assert check_address(address) == address

    @pytest.mark.parametrize("address", [
        "not-an-address", "tcp://host", "tcp://host:0", "tcp://host:99999",
        "http://host:80", "inproc://x", "", "tcp://:80", 8786,
    ])
    def test_other_forms_name_the_flag(self, address):
        with pytest.raises(ConfigError) as err:
            check_address(address)
        assert str(err.value).startswith("--dask: ") and "tcp://HOST:PORT" in str(err.value)

    def test_the_cli_refuses_not_an_address_in_one_line(self, config_dir, tmp_path,
                                                        offline_env):
        proc = _cli(["--config", str(config_dir), "--dask", "not-an-address", "--out",
                     str(tmp_path / "o")], offline_env)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and "--dask" in proc.stderr
        assert "tcp://HOST:PORT" in proc.stderr and "Traceback" not in proc.stderr
        assert not (tmp_path / "o").exists()  # refused before anything was made

    def test_the_api_refuses_it_before_anything(self, config_dir, tmp_path):
        with pytest.raises(ConfigError, match="--dask"):
            sweep(config_dir, "oracle-grove", dask="not-an-address", out=tmp_path / "o")
        assert not (tmp_path / "o").exists()


class TestTimeoutSetting:
    def test_default_and_environment(self):
        assert connect_timeout({}) == 10.0
        assert connect_timeout({TIMEOUT_ENV: "0.5"}) == 0.5

    @pytest.mark.parametrize("raw", ["0", "-1", "inf", "soon"])
    def test_bad_values_are_one_error(self, raw):
        with pytest.raises(ConfigError, match=TIMEOUT_ENV):
            connect_timeout({TIMEOUT_ENV: raw})
