"""Serve an MCP server over Streamable HTTP with bounds that slow and greedy clients cannot stretch.

:func:`serve_http` is the one way the workbench serves MCP over HTTP (``workbench serve
--http``; a gateway serving over HTTP must use it too). It runs the SDK's Streamable HTTP
app under uvicorn and adds what neither bounds on its own:

- a request's header must arrive whole within the header time of the connection opening
  (or of the previous response ending); uvicorn's h11 server waits forever, so one
  connection sending a byte every few seconds is held open indefinitely;
- a request's body must arrive within the body time and may not pass the request cap: a
  declared length over the cap is refused before a byte of it is read, and every early
  refusal closes the connection, so the body is never read to find the next request;
- open connections are capped below the process's open-file limit; at the cap a new
  connection closes the one that has waited longest for its header, so stalled clients
  cannot starve a client that speaks promptly (accepting would otherwise fail with no file
  descriptor left, and every new client would wait in the kernel's queue); when every
  connection is mid-request the newcomer is told 503;
- live sessions (2025-11-25 clients, which ``initialize``) are capped, each refusal a
  503 with a JSON-RPC error, and a session with no request in flight for the idle time
  ends; a client that needs no session (2026-07-28, as the workbench's own) is unaffected.

==================================  ==========  =============================================
variable                            default     what it bounds
==================================  ==========  =============================================
``WORKBENCH_HTTP_HEADER_TIMEOUT``   10 s        time for a request's header to arrive (408)
``WORKBENCH_HTTP_BODY_TIMEOUT``     10 s        time for a request's body to arrive (408)
``WORKBENCH_HTTP_MAX_REQUEST``      1 MiB       one request's body (413)
``WORKBENCH_HTTP_MAX_SESSIONS``     64          live sessions (503 for one more)
``WORKBENCH_HTTP_SESSION_IDLE``     600 s       a session's life without a request
``WORKBENCH_HTTP_MAX_CONNECTIONS``  128         open connections (also kept below the
                                                open-file limit)
==================================  ==========  =============================================

Example:
    Serve a server built elsewhere (blocks until the process is stopped)::

        from workbench.tools.mcp.http_server import HttpBounds, serve_http
        serve_http(build_server(), port=8765, bounds=HttpBounds.from_env())
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from workbench.errors import ConfigError, WorkbenchError
from workbench.tools.mcp.settings import env_number

__all__ = [
    "BODY_TIMEOUT",
    "HEADER_TIMEOUT",
    "MAX_CONNECTIONS",
    "MAX_HEADER_BYTES",
    "MAX_REQUEST_BYTES",
    "MAX_SESSIONS",
    "SESSION_IDLE",
    "HttpBounds",
    "serve_http",
]

#: Seconds for a request's header to arrive whole (``WORKBENCH_HTTP_HEADER_TIMEOUT``). A
#: local client writes its header at once; ten seconds covers a paused or loaded client
#: and is how long a stalled connection can hold a place.
HEADER_TIMEOUT = 10.0
#: Seconds for a request's body to arrive whole (``WORKBENCH_HTTP_BODY_TIMEOUT``): a body
#: under the request cap crosses loopback in milliseconds, so this is all slack.
BODY_TIMEOUT = 10.0
#: Bytes one request's body may have (``WORKBENCH_HTTP_MAX_REQUEST``). A tool call's
#: arguments are text and numbers; a mebibyte is far beyond any the built-ins take, and
#: what is read is held in memory by each request in flight.
MAX_REQUEST_BYTES = 1024 * 1024
#: Bytes a request line and header may have (h11's own default, stated so it is seen).
MAX_HEADER_BYTES = 16 * 1024
#: Sessions open at once (``WORKBENCH_HTTP_MAX_SESSIONS``). Each costs tens of KiB and a
#: task until it ends; a workbench has a handful of clients, one session each.
MAX_SESSIONS = 64
#: Seconds a session lives with no request in flight (``WORKBENCH_HTTP_SESSION_IDLE``). A
#: client that holds its notification stream open is never idle; one that went away stops
#: holding a place after ten minutes, and its next request gets 404 and a new session.
SESSION_IDLE = 600.0
#: Connections open at once (``WORKBENCH_HTTP_MAX_CONNECTIONS``): a few per client (its
#: notification stream and its calls), so 128 leaves room for dozens of clients while it
#: bounds the requests in flight and the memory their bodies hold.
MAX_CONNECTIONS = 128
#: Open files kept back from connections for the process itself (its listening socket,
#: the event loop, logs, the SDK): the connection cap stays this far below the limit.
FD_RESERVE = 24
#: Seconds an accepted connection counts as starting before it is given up on (the loop
#: starts one within a turn or two; this only keeps a start that failed from counting).
START_SLACK = 2.0
#: Connections the kernel queues before they are accepted (uvicorn's default): a queue
#: this long lets a burst wait its turn instead of being dropped.
LISTEN_BACKLOG = 2048
#: Seconds a stopping server waits for open streams before it ends them, so a client
#: that never closes its stream cannot keep Ctrl+C from stopping the server.
SHUTDOWN_GRACE = 5


@dataclass(frozen=True)
class HttpBounds:
    """The bounds :func:`serve_http` enforces (see the module's table for what each means).

    Attributes:
        header_timeout: Seconds for a request's header.
        body_timeout: Seconds for a request's body.
        max_request: Bytes of one request's body.
        max_sessions: Live sessions.
        session_idle: Seconds a session lives with no request in flight.
        max_connections: Open connections (further kept below the open-file limit).
    """

    header_timeout: float = HEADER_TIMEOUT
    body_timeout: float = BODY_TIMEOUT
    max_request: int = MAX_REQUEST_BYTES
    max_sessions: int = MAX_SESSIONS
    session_idle: float = SESSION_IDLE
    max_connections: int = MAX_CONNECTIONS

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> HttpBounds:
        """The defaults, each replaced by its ``WORKBENCH_HTTP_*`` variable when set.

        Raises:
            ConfigError: a variable is set to something other than a number above 0 (a
                whole number for bytes, sessions and connections).
        """
        env = os.environ if env is None else env
        return cls(
            header_timeout=env_number(env, "WORKBENCH_HTTP_HEADER_TIMEOUT", HEADER_TIMEOUT),
            body_timeout=env_number(env, "WORKBENCH_HTTP_BODY_TIMEOUT", BODY_TIMEOUT),
            max_request=_env_count(env, "WORKBENCH_HTTP_MAX_REQUEST", MAX_REQUEST_BYTES),
            max_sessions=_env_count(env, "WORKBENCH_HTTP_MAX_SESSIONS", MAX_SESSIONS),
            session_idle=env_number(env, "WORKBENCH_HTTP_SESSION_IDLE", SESSION_IDLE),
            max_connections=_env_count(env, "WORKBENCH_HTTP_MAX_CONNECTIONS", MAX_CONNECTIONS),
        )


def _env_count(env: Mapping[str, str], key: str, default: int) -> int:
    value = env_number(env, key, default)
    if value != int(value):
        raise ConfigError("environment", key, f"{env[key].strip()!r} is not a whole number; "
                          f"unset it or give e.g. {default}")
    return int(value)


def connection_cap(bounds: HttpBounds) -> int:
    """``bounds.max_connections``, lowered to stay :data:`FD_RESERVE` below the file limit."""
    try:
        import resource
    except ImportError:  # not a Unix: no limit to read
        return bounds.max_connections
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return bounds.max_connections
    return max(1, min(bounds.max_connections, soft - FD_RESERVE))


def serve_http(server: Any, *, port: int, host: str = "127.0.0.1",
               bounds: HttpBounds | None = None,
               bound: Callable[[str], None] | None = None, loop: Any = None) -> None:
    """Serve ``server`` over Streamable HTTP at ``http://HOST:PORT/mcp`` until stopped.

    Args:
        server: An SDK server with ``streamable_http_app`` (an ``MCPServer`` or a
            low-level ``Server``).
        port: The TCP port.
        host: The interface; the default, loopback, also has the SDK refuse a foreign
            ``Origin`` (403) or ``Host`` (421), which guards against DNS rebinding.
        bounds: What slow and greedy clients are held to (the defaults when None).
        bound: Called with the URL once the port is bound (to announce it), not before.
        loop: Serve on this running event loop (another thread's; see
            :func:`~workbench.tools.mcp.loop.run_on`) instead of a new one here.

    Raises:
        WorkbenchError: the port cannot be bound (taken, or not allowed).
    """
    if loop is not None:
        from workbench.tools.mcp.loop import signals_stop

        # Signals are taken before anything loads: see signals_stop.
        with signals_stop() as request:
            _serve(server, port, host, bounds, bound, loop, request)
        return
    _serve(server, port, host, bounds, bound, None, None)


def _serve(server: Any, port: int, host: str, bounds: HttpBounds | None,
           bound: Callable[[str], None] | None, loop: Any, request: Any) -> None:
    import uvicorn

    bounds = bounds or HttpBounds()
    room = _Room(connection_cap(bounds))
    no_room = raw_refusal(503, "Service Unavailable", (
        f"too many open connections ({room.cap}, WORKBENCH_HTTP_MAX_CONNECTIONS); retry "
        f"once a client has finished"))
    listener = _listener(host, port, room, no_room)
    if bound is not None:
        bound(f"http://{host}:{port}/mcp")
    app = server.streamable_http_app(
        host=host, max_request_body_size=bounds.max_request,
        session_idle_timeout=bounds.session_idle, max_sessions=bounds.max_sessions,
    )
    config = uvicorn.Config(
        BoundedRequests(app, bounds), http=bounded_protocol(bounds, room), ws="none",
        lifespan="on", log_level="warning", access_log=False, backlog=LISTEN_BACKLOG,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES, timeout_graceful_shutdown=SHUTDOWN_GRACE,
    )
    served = uvicorn.Server(config)
    if loop is None:
        served.run(sockets=[listener])
        return
    from workbench.tools.mcp.loop import run_on

    def stop() -> None:
        served.should_exit = True

    run_on(loop, served.serve(sockets=[listener]), stop, request=request)


def error_body(message: str) -> bytes:
    """A JSON-RPC error (no request id) saying why a request was refused before it was read."""
    return json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32600, "message": message}}).encode()


def raw_refusal(status: int, reason: str, message: str) -> bytes:
    """A whole HTTP/1.1 response that closes the connection, for use outside any request."""
    body = error_body(message)
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


class BoundedRequests:
    """ASGI middleware: a request's body is read whole, under a time and a size, or refused.

    The application then sees the body replayed, so nothing past this reads a socket for
    it. A response that starts before the body was read whole (a refusal) closes the
    connection: otherwise the server would read the rest of the body to find the next
    request.
    """

    def __init__(self, app: Any, bounds: HttpBounds):
        self.app = app
        self.bounds = bounds

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Serve one ASGI connection scope (anything but HTTP passes straight through)."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        import asyncio

        import anyio

        whole = False

        async def send_closing(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and not whole:
                message = {**message, "headers": [*message.get("headers", ()),
                                                  (b"connection", b"close")]}
            await send(message)

        cap = self.bounds.max_request
        too_large = (f"request body too large: over {cap} bytes; the server takes at most "
                     f"that (WORKBENCH_HTTP_MAX_REQUEST)")
        declared = dict(scope["headers"]).get(b"content-length", b"").strip()
        if declared.isdigit() and int(declared) > cap:
            await _refuse(send_closing, 413, too_large)
            return
        body = bytearray()
        ended: dict[str, Any] | None = None
        try:
            with anyio.move_on_after(self.bounds.body_timeout) as timer:
                while True:
                    message = await receive()
                    if message["type"] != "http.request":
                        ended = message  # the client went away mid-body
                        break
                    body += message.get("body", b"")
                    if len(body) > cap:
                        await _refuse(send_closing, 413, too_large)
                        return
                    if not message.get("more_body", False):
                        whole = True
                        break
        except asyncio.CancelledError:
            # The server is stopping and its grace is over: this request's task ends here
            # either way, so answer it rather than leave a traceback in the log.
            await _refuse(send_closing, 503, "the server is stopping; retry once it is back")
            return
        if timer.cancelled_caught:
            await _refuse(send_closing, 408, (
                f"request body too slow: not whole after {self.bounds.body_timeout:g} s "
                f"(WORKBENCH_HTTP_BODY_TIMEOUT)"))
            return
        if ended is not None:
            return
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send_closing)


async def _refuse(send: Any, status: int, message: str) -> None:
    body = error_body(message)
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class _Room:
    """The connections one server holds open, from their accept to their close.

    A connection counts while it is starting (accepted, its protocol not yet running: the
    loop starts it a turn or two later) and while it is live, until the listener closes it
    to make room or it is lost. A start that never happened stops counting after
    :data:`START_SLACK` seconds, so a failed one cannot wedge the cap.
    """

    def __init__(self, cap: int):
        self.cap = cap
        #: Loop times of the accepts whose protocol has not started, oldest first.
        self.starting: collections.deque[float] = collections.deque()
        self.live: set[Any] = set()
        #: Set once a connection was displaced this loop turn, cleared on the next turn.
        self.displaced = False

    def held(self, now: float) -> int:
        """Connections counted against the cap at loop time ``now``."""
        while self.starting and now - self.starting[0] > START_SLACK:
            self.starting.popleft()
        return len(self.starting) + sum(not p.released for p in self.live)

    def started(self) -> None:
        """One accepted connection's protocol runs now (it is counted as live instead)."""
        if self.starting:
            self.starting.popleft()

    def settling(self) -> bool:
        """Whether a counted connection is about to start or to close.

        Either way the choice at the cap is better made a turn later: a starting one may
        turn out to be waiting for its header, a closing one frees its file. Only a
        closing one with nothing left to write frees it on the next turn; one whose client
        reads nothing could stay closing for good, so it is not waited for.
        """
        return bool(self.starting) or any(
            p.transport.is_closing() and not p.released
            and not p.transport.get_write_buffer_size() for p in self.live)

    def oldest_waiting(self) -> Any:
        """The open connection that has waited longest for a request header, or None."""
        waiting = [p for p in self.live if p.waiting_since is not None
                   and not p.released and not p.transport.is_closing()]
        return min(waiting, key=lambda p: p.waiting_since) if waiting else None


def _listener(host: str, port: int, room: _Room, no_room: bytes) -> socket.socket:
    """A listening socket whose ``accept`` keeps the connections held within ``room.cap``.

    The event loop accepts every pending connection in one go, each an open file; counted
    only once its protocol starts, a burst could take the files the process itself needs
    (past the limit even importing a module fails). So the cap is kept here, at accept.
    At the cap, a newcomer waits a loop turn while a connection is starting or closing;
    otherwise the connection waiting longest for its header is closed to make room (one a
    turn, so its file is free before the next is taken) or, when every connection is
    mid-request, the newcomer is told 503 and closed at once.
    """
    import asyncio

    class CappedListener(socket.socket):
        def accept(self) -> tuple[socket.socket, Any]:
            loop = asyncio.get_running_loop()
            while True:
                full = room.held(loop.time()) >= room.cap
                if full and (room.displaced or room.settling()):
                    raise BlockingIOError  # a place frees soon: the loop retries next turn
                conn, addr = super().accept()
                if not full:
                    break
                victim = room.oldest_waiting()
                if victim is not None:
                    victim.released = True
                    victim.transport.abort()
                    room.displaced = True
                    loop.call_soon(setattr, room, "displaced", False)
                    break
                with contextlib.suppress(OSError):
                    conn.setblocking(False)
                    conn.send(no_room)
                conn.close()
            room.starting.append(loop.time())
            return conn, addr

    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM)[0]
        sock = CappedListener(family, kind, proto)
    except OSError as exc:
        raise WorkbenchError(f"cannot serve on {host}:{port}: {exc.strerror or exc}; "
                             f"give --host an address of this machine") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(LISTEN_BACKLOG)
    except OSError as exc:
        sock.close()
        raise WorkbenchError(f"cannot serve on {host}:{port}: {exc.strerror or exc}; "
                             f"pick another port with --http PORT") from None
    return sock


def bounded_protocol(bounds: HttpBounds, room: _Room) -> type:
    """The h11 protocol of uvicorn with a header time, its connections counted in ``room``."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    header_late = raw_refusal(408, "Request Timeout", (
        f"request header too slow: not whole after {bounds.header_timeout:g} s "
        f"(WORKBENCH_HTTP_HEADER_TIMEOUT)"))

    class BoundedH11Protocol(H11Protocol):
        """One connection: its header is timed, and it is counted until it closes."""

        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            self.header_timer: Any = None
            #: Loop time since which this connection has waited for a request header.
            self.waiting_since: float | None = None
            #: Whether the listener closed it to make room (and already stopped counting it).
            self.released = False

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            room.started()
            room.live.add(self)
            self._watch_header()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch_header()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._watch_header()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_header_timer()
            room.live.discard(self)
            super().connection_lost(exc)

        def _watch_header(self) -> None:
            # IDLE: no request begun on this connection since it opened or since the last
            # response ended; from then on the header has its time, however it trickles.
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                self._stop_header_timer()
            elif self.header_timer is None:
                self.waiting_since = self.loop.time()
                self.header_timer = self.loop.call_later(bounds.header_timeout,
                                                         self._header_too_slow)

        def _stop_header_timer(self) -> None:
            if self.header_timer is not None:
                self.header_timer.cancel()
            self.header_timer = None
            self.waiting_since = None

        def _header_too_slow(self) -> None:
            self.header_timer = None
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                return
            if self.conn.trailing_data[0]:  # part of a request came: say why it ends
                self.transport.write(header_late)
            self.transport.close()

    return BoundedH11Protocol
