"""One persistent MCP session to one server, usable from sync and async code.

:class:`MCPConnection` holds **one** session to one MCP server (a stdio subprocess or a
Streamable HTTP URL, read by :mod:`~workbench.tools.mcp.target`) for its whole life. The
session belongs to a background thread that runs its own event loop
(:mod:`workbench.tools.mcp.loop`); a single owner coroutine enters the SDK's ``Client`` and
exits it (anyio cancel scopes must be entered and left by the same task). Synchronous calls
hop onto that loop with ``run_coroutine_threadsafe``, so they work from plain scripts and
from inside a running event loop such as a Jupyter cell; :meth:`MCPConnection.acall_tool`
is the ``await`` path. Spawning a server per call would cost ~1.6 s instead of ~3 ms.

Failures become :class:`~workbench.errors.ToolCallError` with the kinds the ledger records
(:func:`~workbench.tools.mcp.wire.classify`): ``tool_error`` (``isError``, or a reply past
the size cap), ``protocol_error`` (a JSON-RPC error, a reply that cannot be read),
``transport_error`` (the server is gone; the next call reconnects), ``timeout``. Stdio
servers run through :mod:`~workbench.tools.mcp.stdio`, HTTP through
:mod:`~workbench.tools.mcp.http_client`; re-listings are kept by
:class:`~workbench.tools.mcp.listing.ToolListing`; each connection logs to one capped file
(:mod:`~workbench.tools.mcp.log`). ``import mcp`` costs over a second: only on connect.

Example:
    >>> from workbench.tools.mcp.connection import MCPConnection
    >>> with MCPConnection("python -m workbench.tools.mcp.server") as conn:  # doctest: +SKIP
    ...     conn.call_tool("oracle", {"seed": "dawn"})
    {'omen': '...', 'index': ...}
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import shlex
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.errors import ToolCallError, WorkbenchError
from workbench.tools.mcp.listing import ToolListing, announces_list_changes
from workbench.tools.mcp.log import ConnectionLog, route_sdk_logs
from workbench.tools.mcp.loop import require_mcp, run_loop, track, untrack, warm_imports
from workbench.tools.mcp.settings import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_RESULT,
    DEFAULT_TIMEOUT,
    default_log_dir,
    env_number,
    log_max,
)
from workbench.tools.mcp.target import parse_target
from workbench.tools.mcp.wire import block_dict, classify, derive_name, describe, error_text
from workbench.tools.registry import ToolSpec

__all__ = ["MCPConnection"]

#: Seconds :meth:`MCPConnection.close` waits for the server to stop (stdin close, then
#: SIGTERM, then SIGKILL: about 4 s at most by the transport's own bounds).
_CLOSE_TIMEOUT = 10.0

class MCPConnection:
    """One persistent MCP session to one server, usable from sync and async code.

    The session starts on :meth:`connect` (or the first call) and lives until
    :meth:`close`. A server that dies is restarted by the next call.

    Args:
        target: A stdio command line (a string, split like a shell would, or an argv
            list) or an ``http://`` / ``https://`` URL of a Streamable HTTP endpoint. A
            bare ``python``/``python3`` command means this interpreter (``sys.executable``).
        name: Short server name for labels and logs (derived from the target if None).
        timeout: Seconds a call waits for its reply before it fails with ``timeout``
            (``WORKBENCH_MCP_TIMEOUT`` or 30 when None).
        connect_timeout: Seconds to start the server and finish the handshake.
        max_result: Bytes a reply may have (``WORKBENCH_MCP_MAX_RESULT`` or
            :data:`DEFAULT_MAX_RESULT` when None).
        env: Extra environment for a stdio server (the SDK passes only a safe minimum
            such as ``PATH`` and ``HOME`` from this process).
        cwd: Working directory of a stdio server.
        log_dir: Directory for the per-connection log (server stderr and connection
            events); :func:`default_log_dir` when None.
        trusted: Whether the server's annotations may be believed (recorded, not enforced
            here).

    Example:
        >>> conn = MCPConnection(["python", "-m", "workbench.tools.mcp.server"])  # doctest: +SKIP
        >>> conn.tool_names()  # doctest: +SKIP
        ['oracle']
        >>> conn.close()  # doctest: +SKIP
    """

    def __init__(
        self,
        target: str | Sequence[str],
        *,
        name: str | None = None,
        timeout: float | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        max_result: int | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        log_dir: str | os.PathLike[str] | None = None,
        trusted: bool = False,
    ):
        read = parse_target(target, env)
        self.transport, self.url, env = read.transport, read.url, read.env
        self.argv: list[str] = list(read.argv)
        self.name = name or derive_name(self.url, self.argv)
        self.label = f"{self.transport}:{self.name}"
        self.timeout = (env_number(os.environ, "WORKBENCH_MCP_TIMEOUT", DEFAULT_TIMEOUT)
                        if timeout is None else timeout)
        self.connect_timeout = connect_timeout
        self.max_result = int(env_number(os.environ, "WORKBENCH_MCP_MAX_RESULT",
                                         DEFAULT_MAX_RESULT) if max_result is None
                              else max_result)
        self.trusted = trusted
        self._env = dict(env) if env else None
        self._cwd = cwd
        self._log_dir = Path(log_dir) if log_dir is not None else default_log_dir()
        self._log: ConnectionLog | None = None
        self.log_path: Path | None = None
        #: Session starts so far, failed ones included (1 after the first connect).
        self.connects = 0
        self.protocol_version: str | None = None
        self.server_name: str | None = None
        self._listing = ToolListing(self.name, self._note)
        #: tools/list_changed notifications handled (each one re-lists the tools).
        self.list_changed_seen = 0
        self._closed = False
        self._state_lock = threading.Lock()
        # Loop-side state: touched only on the connection's own loop thread.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self._owner: asyncio.Task[None] | None = None
        self._stop_owner: asyncio.Event | None = None
        self._ready: asyncio.Future[Any] | None = None
        self._relist: asyncio.Event | None = None
        self._session_lock: asyncio.Lock | None = None

    def rename(self, name: str) -> None:
        """Give the connection another server name (its label and change records follow)."""
        self.name = self._listing.server = name
        self.label = f"{self.transport}:{name}"

    @property
    def cwd(self) -> str | os.PathLike[str] | None:
        """Working directory of a stdio server (None: this process's), as trust reads it."""
        return self._cwd

    @property
    def extra_env(self) -> dict[str, str]:
        """The environment a stdio server gets over the SDK's safe defaults (a copy)."""
        return dict(self._env or {})

    def add_env(self, extra: Mapping[str, str]) -> None:
        """Add environment variables for a stdio server (before it starts)."""
        if extra:
            self._env = {**(self._env or {}), **extra}

    # -- public sync API --------------------------------------------------------------
    def connect(self) -> MCPConnection:
        """Start the session now (idempotent) and return ``self``.

        Raises:
            ToolCallError: ``transport_error`` if the server cannot be started or reached.
        """
        self._wait(self.start_connect(), self.connect_timeout + 5.0, "connect")
        return self

    def start_connect(self) -> concurrent.futures.Future[Any]:
        """Begin connecting in the background; the future completes when the session is up."""
        return self._submit(self._session())

    def tool_names(self) -> list[str]:
        """Names of the server's tools, sorted (connects first if it never has)."""
        self._ensure_listed()
        return self._listing.names()

    def get_spec(self, name: str) -> ToolSpec | None:
        """The tool as the server describes it (``run`` is None), or None if unknown.

        Raises:
            AmbiguousTool: the server lists more than one definition under ``name``.
        """
        self._ensure_listed()
        return self._listing.spec(name)

    def list_tools(self) -> list[dict[str, Any]]:
        """The last ``tools/list`` the server gave, in MCP wire form (camelCase keys).

        Every definition is kept, in the server's order: a name listed twice appears twice,
        so an audit or an import sees both twins.
        """
        self._ensure_listed()
        return [dict(tool) for tool in self._listing.definitions]

    @property
    def duplicates(self) -> dict[str, int]:
        """Names the server lists more than once, with how many definitions each has."""
        return dict(self._listing.twins)

    @property
    def tools_version(self) -> int:
        """Listings taken so far (changes whenever the tools may have)."""
        return self._listing.version

    def refresh_tools(self) -> list[dict[str, Any]]:
        """Ask the server for its tools now and record any change; return the new list."""
        self._wait(self._submit(self._arefresh()), self.timeout + 5.0, "tools/list")
        return self.list_tools()

    def call_tool(
        self, name: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Call a tool and return its result as a JSON-serialisable dict.

        The result is the tool's ``structuredContent`` when it sent one, else
        ``{"content": [...]}`` with its content blocks as plain dicts.

        Args:
            name: The tool.
            params: Its arguments.
            timeout: Seconds to wait for the reply (the connection's ``timeout`` if None).

        Raises:
            ToolCallError: kind ``tool_error``, ``protocol_error``, ``transport_error``
                or ``timeout``.
        """
        limit = self.timeout if timeout is None else timeout
        future = self._submit(self._acall(name, dict(params or {}), limit))
        # The coroutine enforces the read timeout; this bound only guards a stuck loop.
        return self._wait(future, limit + self.connect_timeout + 5.0, name)

    async def acall_tool(
        self, name: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Async :meth:`call_tool`: ``await conn.acall_tool("oracle", {"seed": "x"})``.

        Works from any event loop; the session still lives on the connection's own loop.
        """
        limit = self.timeout if timeout is None else timeout
        if self._loop is not None and asyncio.get_running_loop() is self._loop:
            # Already on the connection's loop (a callback, or code run there on purpose):
            # no thread hop needed.
            self._check_open()
            return await self._acall(name, dict(params or {}), limit)
        future = self._submit(self._acall(name, dict(params or {}), limit))
        return await asyncio.wrap_future(future)

    def drain_changes(self) -> list[dict[str, Any]]:
        """How the tool list changed since the last drain: at most one record.

        ``{"server", "cause", "added", "removed", "changed"}``, the net difference since
        the last drain (the conductor drains once a tick); ``cause`` is the first of
        ``list_changed``, ``reconnect`` or ``refresh`` seen since. A re-list that matches
        what we had leaves nothing; churn between two drains adds one record.
        """
        return self._listing.drain()

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The connection's own loop (None before first use): await there, never block it."""
        return self._loop

    @property
    def connected(self) -> bool:
        """Whether a session is up right now."""
        return self._client is not None

    def close(self) -> None:
        """End the session and stop the server process (idempotent, never raises)."""
        with self._state_lock:
            if self._closed:
                return
            self._closed = True
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            if threading.current_thread() is thread:
                loop.call_soon(loop.create_task, self._ashutdown())
                return
            future = asyncio.run_coroutine_threadsafe(self._ashutdown(), loop)
            try:
                future.result(_CLOSE_TIMEOUT)
            except BaseException as exc:  # closing must not fail; say what happened
                self._note(f"close did not finish cleanly: {exc!r}")
            loop.call_soon_threadsafe(loop.stop)
            thread.join(_CLOSE_TIMEOUT)
        untrack(self)
        self._note("closed")
        if self._log is not None:
            self._log.close()

    def __enter__(self) -> MCPConnection:
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "connected" if self.connected else "idle"
        return f"<MCPConnection {self.label} {state} connects={self.connects}>"

    # -- the bridge between caller threads and the connection's loop ------------------
    def _check_open(self) -> None:
        if self._closed:
            raise ToolCallError(
                "transport_error",
                f"the connection to MCP server {self.name!r} is closed; create a new "
                f"MCPConnection (or resolver) to talk to it again",
            )

    def _submit(self, coro: Any) -> concurrent.futures.Future[Any]:
        try:
            self._check_open()
            require_mcp()
        except WorkbenchError:
            coro.close()
            raise
        loop = self._start_loop()
        if threading.current_thread() is self._thread:
            coro.close()
            raise WorkbenchError(
                f"{self.label}: a sync call from the connection's own loop would deadlock; "
                f"use 'await conn.acall_tool(...)' there"
            )
        return asyncio.run_coroutine_threadsafe(coro, loop)

    def _wait(self, future: concurrent.futures.Future[Any], limit: float, what: str) -> Any:
        try:
            return future.result(limit)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise ToolCallError(
                "timeout",
                f"{what}: no answer from MCP server {self.name!r} within {limit:g} s; retry, "
                f"or raise the timeout",
                what,
                operator_hint=f"server log: {self.log_path}",
            ) from None
        except BaseException:
            # A kernel interrupt lands here: cancel the call (the SDK tells the server)
            # and leave the session open for the next cell.
            future.cancel()
            raise

    def _start_loop(self) -> asyncio.AbstractEventLoop:
        with self._state_lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                self._session_lock = asyncio.Lock()
                thread = threading.Thread(
                    target=run_loop, args=(loop,), name=f"mcp-{self.name}", daemon=True
                )
                self._loop, self._thread = loop, thread
                thread.start()
                track(self)
            return self._loop

    def _ensure_listed(self) -> None:
        if self._listing.tools is None:
            self.connect()

    # -- loop side --------------------------------------------------------------------
    async def _session(self) -> Any:
        """The live client, starting (or restarting) the session if needed."""
        assert self._session_lock is not None
        async with self._session_lock:
            if self._client is not None:
                return self._client
            if self._closed:
                raise ToolCallError("transport_error", f"connection to {self.name!r} is closed")
            owner, stop, ready = self._owner, self._stop_owner, self._ready
            if owner is not None and not owner.done() and stop is not None and ready is not None:
                if not stop.is_set() and not ready.done():
                    # A connect whose first caller gave up (cancelled) is still running.
                    return await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
                # A lost session: let its owner finish tearing down (and reap the process).
                stop.set()
                await asyncio.wait({owner}, timeout=_CLOSE_TIMEOUT)
            ready = self._ready = asyncio.get_running_loop().create_future()
            # Whoever gave up waiting, the outcome is read here, so a failed connect never
            # prints "Future exception was never retrieved" at exit.
            ready.add_done_callback(lambda f: f.cancelled() or f.exception())
            self._stop_owner = asyncio.Event()
            self._owner = asyncio.create_task(self._own(ready, self._stop_owner))
            try:
                return await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
            except TimeoutError:
                self._stop_owner.set()
                raise ToolCallError(
                    "transport_error",
                    f"MCP server {self.name!r} did not finish the handshake within "
                    f"{self.connect_timeout:g} s; check the command and its log",
                    operator_hint=f"server log: {self.log_path}",
                ) from None

    async def _own(self, ready: asyncio.Future[Any], stop: asyncio.Event) -> None:
        """The one task that enters and exits the SDK client (anyio needs the same task)."""
        self.connects += 1
        number = self.connects
        self._note(f"connect #{number}: {self.url or shlex.join(self.argv)}")
        relist = self._relist = asyncio.Event()
        try:
            import anyio

            warm_imports()
            route_sdk_logs(self._note)  # the SDK's records from this loop go to our log
            async with self._open_client(stop) as client, anyio.create_task_group() as tasks:
                if announces_list_changes(client):
                    # Subscribed before the first listing, so no change falls in between.
                    await tasks.start(self._listen, client, relist)
                listing = await client.list_tools()
                self._listing.absorb(listing.tools, "reconnect" if number > 1 else None)
                self.protocol_version = client.protocol_version
                info = client.server_info
                self.server_name = info.name if info is not None else None
                self._client = client
                ready.set_result(client)
                tasks.start_soon(self._relist_on_change, client, relist)
                await stop.wait()
                tasks.cancel_scope.cancel()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(self._connect_error(exc))
            else:
                self._note(f"session ended: {exc!r}")
            if not isinstance(exc, Exception):
                raise
        finally:
            # A slow old owner must not unset the session a newer owner has opened.
            if self._owner is asyncio.current_task():
                self._client = None
            self._note(f"session #{number} closed")

    def _open_client(self, stop: asyncio.Event) -> Any:
        from mcp import Client

        from workbench.tools.mcp.http_client import http_transport
        from workbench.tools.mcp.stdio import stdio_transport

        options: dict[str, Any] = {
            # The session's default bounds the handshake too (discover, initialize, the first
            # listing), which connect_timeout governs: a call timeout of 0.5 s must not fail
            # the handshake of a server that is slow to start. Calls pass their own timeout;
            # later listings are bounded by ``_list``.
            "read_timeout_seconds": max(self.timeout, self.connect_timeout),
            "message_handler": self._on_message,
            "logging_callback": self._on_log,
            # Listings are cached by us and refreshed on tools/list_changed.
            "cache": None,
        }
        if self.url is not None:
            return Client(http_transport(self.url, max_message=self.max_result,
                                         note=self._note), **options)
        log = self._log_file()

        def ended() -> None:  # stdout is gone: end this session now, reconnect next call
            if self._stop_owner is stop:
                self._client = None
            stop.set()

        transport = stdio_transport(self.argv, env=self._env, cwd=self._cwd,
                                    on_stderr=log.server_output, note=self._note,
                                    max_message=self.max_result, on_end=ended)
        return Client(transport, **options)

    def _connect_error(self, exc: BaseException) -> ToolCallError:
        if isinstance(exc, ToolCallError):
            return exc
        where = self.url or shlex.join(self.argv)
        return ToolCallError(
            "transport_error",
            f"could not start a session with MCP server {self.name!r} ({where}): "
            f"{describe(exc)}. Check the command or URL and the server's log",
            operator_hint=f"server log: {self.log_path}",
        )

    async def _listen(self, client: Any, relist: asyncio.Event, *, task_status: Any) -> None:
        started = False
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                task_status.started()
                started = True
                async for _event in subscription:
                    relist.set()
        except Exception as exc:  # the session goes on without change notifications
            self._note(f"tools/list_changed subscription ended: {exc!r}")
        finally:
            if not started:
                task_status.started()

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self._note(f"transport reported: {message!r}")
        elif getattr(message, "method", None) == "notifications/tools/list_changed":
            # Never list from inside the handler: it runs on the session's reader.
            if self._relist is not None:
                self._relist.set()

    async def _on_log(self, params: Any) -> None:
        # Server-supplied text: through the cap, like its stderr.
        self._log_file().server_output(f"server log [{getattr(params, 'level', '?')}]: "
                                       f"{getattr(params, 'data', '')}\n")

    async def _relist_on_change(self, client: Any, relist: asyncio.Event) -> None:
        while True:
            await relist.wait()
            relist.clear()
            try:
                listing = await self._list(client)
            except Exception as exc:
                self._note(f"re-listing tools after tools/list_changed failed: {exc!r}")
                return
            self._listing.absorb(listing.tools, "list_changed")
            self.list_changed_seen += 1  # after absorb: who sees the count sees the listing

    async def _list(self, client: Any) -> Any:
        """``tools/list`` within the connection's call timeout (a listing is a call)."""
        try:
            return await asyncio.wait_for(client.list_tools(), self.timeout)
        except TimeoutError:
            raise ToolCallError(
                "timeout",
                f"tools/list: no answer from MCP server {self.name!r} within "
                f"{self.timeout:g} s; retry, or raise the timeout",
                "tools/list",
                operator_hint=f"server log: {self.log_path}",
            ) from None

    async def _arefresh(self) -> None:
        client = await self._session()
        listing = await self._list(client)
        self._listing.absorb(listing.tools, "refresh")

    async def _acall(self, name: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
        # Hot path: a live session needs no lock (only a (re)connect takes it).
        client = self._client
        if client is None:
            client = await self._session()
        try:
            result = await client.call_tool(name, params, read_timeout_seconds=timeout)
        except Exception as exc:
            raise self._call_error(client, name, exc, timeout) from None
        if result.is_error:
            raise ToolCallError("tool_error", error_text(result.content), name)
        if result.structured_content is not None:
            return dict(result.structured_content)
        return {"content": [block_dict(b) for b in result.content]}

    def _call_error(self, client: Any, name: str, exc: Exception, timeout: float
                    ) -> ToolCallError:
        """Map what the SDK raised to the ledger's error kinds (see :func:`classify`)."""
        found = classify(exc)
        if found is None:  # the transport is gone
            return self._lost(client, name, exc)
        kind, message = found
        if kind == "timeout":
            message = (f"no reply within {timeout:g} s (the call was cancelled; the session is "
                       f"still open, so retry or allow a longer timeout)")
        self._note(f"{name!r} failed ({kind}): {message}")
        return ToolCallError(kind, message, name)

    def _lost(self, client: Any, tool: str, exc: BaseException) -> ToolCallError:
        """Mark the session dead so the next call starts a fresh one."""
        if self._client is client:
            self._client = None
            if self._stop_owner is not None:
                self._stop_owner.set()
        self._note(f"session lost during {tool!r}: {exc!r}; the next call reconnects")
        return ToolCallError(
            "transport_error",
            f"the connection to MCP server {self.name!r} was lost ({describe(exc)}); "
            f"the next call starts a new session",
            tool,
            operator_hint=f"server log: {self.log_path}",
        )

    async def _ashutdown(self) -> None:
        if self._stop_owner is not None:
            self._stop_owner.set()
        owner = self._owner
        if owner is not None:
            await asyncio.wait({owner}, timeout=_CLOSE_TIMEOUT - 1.0)

    # -- logging ----------------------------------------------------------------------
    def _log_file(self) -> ConnectionLog:
        if self._log is None:
            self._log = ConnectionLog.for_server(self._log_dir, self.name, self.label,
                                                 log_max())
            self.log_path = self._log.path
        return self._log

    def _note(self, line: str) -> None:
        self._log_file().note(line)
