"""``workbench serve --http`` against slow and greedy clients (real server, real sockets).

Each hostile client is a raw socket or a plain HTTP connection on loopback; the server is
``python -m workbench.cli serve --http PORT`` in a subprocess, given small bounds
through its ``WORKBENCH_HTTP_*`` variables so each test waits a second, not minutes.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import resource
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from mcp_helpers import free_port, wait_for_port

from workbench.tools.builtins import oracle
from workbench.tools.mcp import MCPConnection
from workbench.tools.mcp.http_server import MAX_SESSIONS

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

LEGACY = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


@dataclass
class Served:
    proc: subprocess.Popen
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS for the server")


@contextlib.contextmanager
def bounded_server(tmp: Path, nofile: int | None = None, **env: str) -> Iterator[Served]:
    """The built-in server over HTTP with ``env`` set, and at most ``nofile`` open files."""
    port = free_port()
    log = tmp / f"server-{port}.log"

    def limit_files() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    with open(log, "ab") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "workbench.cli", "serve", "--http", str(port)],
            env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=err,
            preexec_fn=limit_files,
        )
    try:
        wait_for_port(port, proc)
        yield Served(proc, port, log)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def slow_bounds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A server with one-second header and body times and a 64 KiB request cap."""
    with bounded_server(tmp_path_factory.mktemp("slow"), WORKBENCH_HTTP_HEADER_TIMEOUT="1",
                        WORKBENCH_HTTP_BODY_TIMEOUT="1",
                        WORKBENCH_HTTP_MAX_REQUEST=str(64 * 1024)) as served:
        yield served


def read_until_closed(sock: socket.socket, limit: float, drip: bytes = b"",
                      every: float = 0.25) -> tuple[bytes, float, bool]:
    """Read what the server sends until it closes (sending ``drip`` each ``every`` s meanwhile).

    Returns:
        The bytes read, the seconds until the server closed, and whether it did by ``limit``.
    """
    start = time.monotonic()
    data = b""
    while time.monotonic() - start < limit:
        ready, _, _ = select.select([sock], [], [], every)
        if ready:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                return data, time.monotonic() - start, True
            if not chunk:
                return data, time.monotonic() - start, True
            data += chunk
        elif drip and not data:
            with contextlib.suppress(OSError):
                sock.sendall(drip)
    return data, time.monotonic() - start, False


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5)


def post_head(port: int, extra: str = "") -> bytes:
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json"
            f"\r\nAccept: {ACCEPT}\r\n{extra}\r\n").encode()


def initialize_body() -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": {"name": "greedy", "version": "1"}}}).encode()


def sse_payload(body: bytes) -> dict:
    """The JSON-RPC message in a reply, whether sent as JSON or as one SSE event."""
    text = body.decode()
    if text.lstrip().startswith("{"):
        return json.loads(text)
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])


class LegacySession:
    """A 2025-11-25 client (one that opens a session with ``initialize``) over plain HTTP."""

    def __init__(self, port: int):
        self.port = port
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.session_id: str | None = None

    def post(self, message: dict | bytes) -> tuple[int, bytes, http.client.HTTPResponse]:
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        headers = {"Content-Type": "application/json", "Accept": ACCEPT}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
            headers["Mcp-Protocol-Version"] = LEGACY
        self.http.request("POST", "/mcp", body=body, headers=headers)
        response = self.http.getresponse()
        return response.status, response.read(), response

    def open(self) -> int:
        status, _, response = self.post(initialize_body())
        if status == 200:
            self.session_id = response.getheader("mcp-session-id")
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return status

    def list_tools(self) -> tuple[int, bytes]:
        status, body, _ = self.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        return status, body

    def close(self) -> None:
        self.http.close()


def open_stream(port: int) -> socket.socket:
    """A session's notification stream (GET /mcp), open: the greedy way to hold a place."""
    session = LegacySession(port)
    assert session.open() == 200
    session.close()
    sock = connect(port)
    sock.sendall((f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream"
                  f"\r\nMcp-Session-Id: {session.session_id}\r\nMcp-Protocol-Version: "
                  f"{LEGACY}\r\n\r\n").encode())
    assert sock.recv(64).startswith(b"HTTP/1.1 200 ")
    return sock


class Slowloris:
    """``count`` connections that each send one byte of a request header every ``every`` s."""

    def __init__(self, port: int, count: int, every: float = 2.0):
        self.socks: list[socket.socket] = []
        for _ in range(count):
            sock = connect(port)
            sock.sendall(b"P")
            self.socks.append(sock)
        self.every = every
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._drip, daemon=True)
        self.thread.start()

    def _drip(self) -> None:
        while not self.stop.wait(self.every):
            for sock in self.socks:
                with contextlib.suppress(OSError):
                    sock.sendall(b"O")

    def closed_by_server(self) -> int:
        closed = 0
        for sock in self.socks:
            ready, _, _ = select.select([sock], [], [], 0)
            if ready:
                try:
                    closed += sock.recv(4096, socket.MSG_PEEK) == b""
                except OSError:
                    closed += 1
        return closed

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for sock in self.socks:
            sock.close()


def list_and_call(url: str, limit: float) -> float:
    """List and call the tools as a normal client does; returns the seconds it took."""
    start = time.monotonic()
    with MCPConnection(url, timeout=limit, connect_timeout=limit) as conn:
        assert "oracle" in [tool["name"] for tool in conn.list_tools()]
        assert conn.call_tool("oracle", {"seed": "steady"}) == oracle("steady")
    return time.monotonic() - start


class TestSlowHeaders:
    def test_a_header_trickled_a_line_at_a_time_is_cut_off_after_the_header_time(
            self, slow_bounds):
        with connect(slow_bounds.port) as sock:
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            data, took, closed = read_until_closed(sock, limit=10, drip=b"X-Slow: 1\r\n")
        assert closed, "the server kept a connection whose header never ended"
        assert 0.8 <= took <= 3.0, took
        assert data.startswith(b"HTTP/1.1 408 "), data

    def test_a_connection_that_sends_nothing_is_closed_too(self, slow_bounds):
        with connect(slow_bounds.port) as sock:
            data, took, closed = read_until_closed(sock, limit=10)
        assert closed and took <= 3.0, took
        assert data == b""  # nothing was asked, so nothing is answered

    def test_a_hundred_slowloris_connections_do_not_keep_a_client_waiting(
            self, http_oracle):
        loris = Slowloris(urlsplit(http_oracle).port, 100)
        try:
            assert list_and_call(http_oracle, limit=20) < 10
        finally:
            loris.close()

    def test_on_a_server_short_of_files_a_new_client_displaces_the_stalled_ones(
            self, tmp_path):
        # A 64-file limit (macOS allows 256 by default) and a header time longer than the
        # test: only making room by closing stalled connections can serve the client.
        with bounded_server(tmp_path, nofile=64, WORKBENCH_HTTP_HEADER_TIMEOUT="60") as served:
            loris = Slowloris(served.port, 100)
            try:
                assert list_and_call(served.url, limit=15) < 10
                assert loris.closed_by_server() > 0
            finally:
                loris.close()


class TestGreedyConnections:
    def test_when_every_connection_is_mid_request_a_newcomer_is_told_503(self, tmp_path):
        with bounded_server(tmp_path, WORKBENCH_HTTP_MAX_CONNECTIONS="4") as served:
            streams = [open_stream(served.port) for _ in range(4)]  # each holds its place
            try:
                with connect(served.port) as sock:
                    data, took, closed = read_until_closed(sock, limit=10)
                assert data.startswith(b"HTTP/1.1 503 "), data
                assert closed and took <= 3.0
                assert b"WORKBENCH_HTTP_MAX_CONNECTIONS" in data
            finally:
                for sock in streams:
                    sock.close()
            # The places come back as connections close, however they ended.
            for _ in range(20):
                connect(served.port).close()
            assert list_and_call(served.url, limit=20) < 10


class TestShutdown:
    def test_a_body_still_arriving_does_not_keep_the_server_from_stopping(self, tmp_path):
        with bounded_server(tmp_path, WORKBENCH_HTTP_BODY_TIMEOUT="60") as served:
            with connect(served.port) as sock:
                sock.sendall(post_head(served.port, "Content-Length: 100\r\n") + b"{")
                time.sleep(0.3)
                start = time.monotonic()
                served.proc.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    served.proc.wait(20)
                assert served.proc.returncode is not None, "a trickled body held up the stop"
                assert time.monotonic() - start < 15
                data, _, _ = read_until_closed(sock, limit=2)
            assert data.startswith(b"HTTP/1.1 503 "), data
        assert "Traceback" not in served.log.read_text()

    def test_an_open_stream_does_not_keep_the_server_from_stopping(self, tmp_path):
        with bounded_server(tmp_path) as served, open_stream(served.port):
            start = time.monotonic()
            served.proc.terminate()
            served.proc.wait(20)
            assert time.monotonic() - start < 15


class TestSlowBody:
    def test_a_body_trickled_a_byte_at_a_time_is_cut_off_after_the_body_time(
            self, slow_bounds):
        with connect(slow_bounds.port) as sock:
            sock.sendall(post_head(slow_bounds.port, "Content-Length: 500\r\n") + b'{"js')
            data, took, closed = read_until_closed(sock, limit=10, drip=b" ")
        assert closed and 0.8 <= took <= 3.0, took
        assert data.startswith(b"HTTP/1.1 408 "), data
        assert b"WORKBENCH_HTTP_BODY_TIMEOUT" in data


class TestRequestSize:
    def test_a_declared_body_over_the_cap_is_refused_before_it_is_sent(self, slow_bounds):
        with connect(slow_bounds.port) as sock:
            sock.sendall(post_head(slow_bounds.port, "Content-Length: 100000000\r\n"))
            data, took, closed = read_until_closed(sock, limit=10)
        assert data.startswith(b"HTTP/1.1 413 "), data
        assert closed and took <= 3.0, "the server waited for a body it had refused"
        error = json.loads(data.split(b"\r\n\r\n", 1)[1])["error"]
        assert "65536" in error["message"] and "WORKBENCH_HTTP_MAX_REQUEST" in error["message"]

    def test_a_chunked_body_is_refused_once_it_passes_the_cap(self, slow_bounds):
        sent = 0
        with connect(slow_bounds.port) as sock:
            sock.sendall(post_head(slow_bounds.port, "Transfer-Encoding: chunked\r\n"))
            chunk = b"4000\r\n" + b" " * 0x4000 + b"\r\n"
            with contextlib.suppress(OSError):
                for _ in range(64):  # 1 MiB offered, 64 KiB allowed
                    sock.sendall(chunk)
                    sent += 0x4000
                    ready, _, _ = select.select([sock], [], [], 0.02)
                    if ready:
                        break
            data, _, closed = read_until_closed(sock, limit=10)
        assert data.startswith(b"HTTP/1.1 413 "), data
        assert closed and sent < 512 * 1024, sent

    def test_a_request_under_the_cap_is_served(self, slow_bounds):
        seed = "x" * 50_000
        with MCPConnection(slow_bounds.url) as conn:
            assert conn.call_tool("oracle", {"seed": seed}) == oracle(seed)


@pytest.fixture(scope="module")
def three_sessions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with bounded_server(tmp_path_factory.mktemp("sessions"),
                        WORKBENCH_HTTP_MAX_SESSIONS="3") as served:
        yield served


class TestSessions:
    def test_past_the_cap_a_new_session_is_refused_and_the_open_ones_keep_working(
            self, three_sessions):
        sessions = [LegacySession(three_sessions.port) for _ in range(4)]
        try:
            assert [s.open() for s in sessions[:3]] == [200, 200, 200]
            status, body, _ = sessions[3].post(initialize_body())
            assert status == 503, body
            error = sse_payload(body)["error"]
            assert "session" in error["message"].lower()
            for session in sessions[:3]:
                status, body = session.list_tools()
                assert status == 200
                assert "oracle" in [t["name"] for t in sse_payload(body)["result"]["tools"]]
            # A client that needs no session (2026-07-28, as the workbench's own) is served.
            assert list_and_call(three_sessions.url, limit=20) < 10
        finally:
            for session in sessions:
                session.close()

    def test_an_idle_session_expires_and_makes_room(self, tmp_path):
        with bounded_server(tmp_path, WORKBENCH_HTTP_MAX_SESSIONS="2",
                            WORKBENCH_HTTP_SESSION_IDLE="1") as served:
            first, second = LegacySession(served.port), LegacySession(served.port)
            assert [first.open(), second.open()] == [200, 200]
            deadline = time.monotonic() + 5
            while first.list_tools()[0] == 200 and time.monotonic() < deadline:
                time.sleep(1.5)  # idle: no request in flight between the checks
            assert first.list_tools()[0] == 404, "an idle session outlived its expiry"
            fresh = [LegacySession(served.port) for _ in range(2)]
            assert [s.open() for s in fresh] == [200, 200]

    def test_two_thousand_initializes_leave_memory_bounded(self, tmp_path):
        with bounded_server(tmp_path) as served:
            client = LegacySession(served.port)
            statuses = [client.post(initialize_body())[0] for _ in range(200)]
            warm = served.rss_kb()
            statuses += [client.post(initialize_body())[0] for _ in range(1800)]
            grown = served.rss_kb() - warm
            client.close()
            assert statuses.count(200) == MAX_SESSIONS and set(statuses) == {200, 503}
            assert grown < 10_000, f"{grown} KiB more after 1,800 more initialize requests"


class TestStillRefused:
    """What held before these bounds: a foreign Origin or Host is refused."""

    def test_a_foreign_origin_is_403(self, slow_bounds):
        with connect(slow_bounds.port) as sock:
            body = initialize_body()
            sock.sendall(post_head(slow_bounds.port, f"Origin: http://evil.example\r\n"
                                   f"Content-Length: {len(body)}\r\n") + body)
            data, _, _ = read_until_closed(sock, limit=2)
        assert data.startswith(b"HTTP/1.1 403 "), data

    def test_a_foreign_host_is_421(self, slow_bounds):
        with connect(slow_bounds.port) as sock:
            body = initialize_body()
            head = post_head(slow_bounds.port, f"Content-Length: {len(body)}\r\n")
            sock.sendall(head.replace(f"127.0.0.1:{slow_bounds.port}".encode(),
                                      b"evil.example") + body)
            data, _, _ = read_until_closed(sock, limit=2)
        assert data.startswith(b"HTTP/1.1 421 "), data


class TestSettings:
    @pytest.mark.parametrize(("key", "value"), [("WORKBENCH_HTTP_MAX_SESSIONS", "lots"),
                                                ("WORKBENCH_HTTP_MAX_SESSIONS", "2.5"),
                                                ("WORKBENCH_HTTP_HEADER_TIMEOUT", "0")])
    def test_a_bad_bound_is_one_line_naming_the_variable(self, key, value):
        out = subprocess.run(
            [sys.executable, "-m", "workbench.cli", "serve", "--http", str(free_port())],
            env={**os.environ, key: value}, capture_output=True, text=True, timeout=60)
        assert out.returncode == 2
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and key in lines[0] and value in lines[0], out.stderr

    def test_a_port_already_taken_is_one_line_naming_it(self, slow_bounds):
        out = subprocess.run(
            [sys.executable, "-m", "workbench.cli", "serve", "--http", str(slow_bounds.port)],
            capture_output=True, text=True, timeout=60)
        assert out.returncode == 2
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and str(slow_bounds.port) in lines[0], out.stderr
        assert "--http PORT" in lines[0]
