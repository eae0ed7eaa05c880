"""Serving MCP on this process's stdin and stdout, each request bounded in size.

The SDK's ``stdio_server`` reads a line whole however long it is, so a host (or a model
writing arguments through it) can make the gateway hold gigabytes. This transport gives
the SDK's server the same two streams with a cap: a line longer than the request cap
(``WORKBENCH_HTTP_MAX_REQUEST``, the cap HTTP serving applies to a request's body) is
counted and dropped as it streams in, never held, and its request (the id is read from
the line's start) is answered with a JSON-RPC error naming the cap. A line that is not
JSON-RPC goes to the server as the SDK's transport would pass it (as an exception).

As in the SDK, while serving, file descriptor 0 reads the null device and 1 writes to
stderr, so a stray ``print`` from any library can never corrupt the wire; both are put
back on exit.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

__all__ = ["bounded_stdio"]

#: Bytes read from stdin at a time.
_CHUNK = 1 << 16
#: Bytes of an oversized line kept to find its request id.
_HEAD = 4096
_ID_RE = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})')


#: ``fast(request) -> reply line or None``: answers a ``tools/call`` itself, or declines.
FastCall = Callable[[dict[str, Any]], Awaitable[bytes | None]]


@contextlib.asynccontextmanager
async def bounded_stdio(max_request: int | None = None, *, fast: FastCall | None = None,
                        in_flight: int = 32) -> AsyncIterator[tuple[Any, Any]]:
    """Yield ``(read_stream, write_stream)`` for ``Server.run`` over stdin and stdout.

    Args:
        max_request: Longest request line in bytes (``WORKBENCH_HTTP_MAX_REQUEST`` or
            1 MiB when None).
        fast: Offered each ``tools/call`` request first, as its decoded JSON, in a task of
            its own; its reply line is written as it is, and a call it declines (None) goes
            to the SDK's server as every other message does. A host's
            ``notifications/cancelled`` for a call it is answering cancels that task, and
            the call is not answered (as the SDK does for the calls it answers).
        in_flight: Calls ``fast`` runs at once. As many more wait for a place while reading
            goes on (a ``ping`` or a cancel behind them is read and acted on); past that,
            reading waits too, so a host that floods is slowed, never buffered without end.

    Raises:
        ConfigError: ``WORKBENCH_HTTP_MAX_REQUEST`` is not a whole number above 0.
    """
    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    if max_request is None:
        from workbench.tools.mcp.http_server import HttpBounds

        max_request = HttpBounds.from_env().max_request
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    source = os.fdopen(wire_in, "rb", buffering=0)
    sink = os.fdopen(wire_out, "wb", buffering=0)
    to_server, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, from_server = anyio.create_memory_object_stream[Any](0)
    replies = write_stream.clone()

    async def refuse(head: bytes, size: int) -> None:
        found = _ID_RE.search(head)
        if found is None:
            return  # a notification, or no id to be read: nobody waits for an answer
        error = types.ErrorData(code=types.INVALID_REQUEST, message=(
            f"request too large: {size} bytes, more than the {max_request}-byte cap "
            f"(WORKBENCH_HTTP_MAX_REQUEST)"))
        await replies.send(SessionMessage(types.JSONRPCError(
            jsonrpc="2.0", id=json.loads(found.group(1)), error=error)))

    slots = anyio.Semaphore(in_flight)
    admitted = anyio.Semaphore(2 * in_flight)
    # The calls ``fast`` has in hand, by request id (with its type: 1 is not "1").
    answering: dict[tuple[str, Any], Any] = {}

    async def deliver(line: bytes) -> None:
        line = line.strip()
        if not line:
            return
        if fast is not None and (b'"tools/call"' in line or b'"notifications/cancelled"' in line):
            try:
                request = json.loads(line)
            except ValueError:
                request = None  # the SDK's transport says what is wrong with it
            method = request.get("method") if isinstance(request, dict) else None
            mid = request.get("id") if method == "tools/call" else None
            # Only a call with a string or integer id that is not in hand already is the
            # loop's; any other (an object, a list, a repeat) is the SDK's to refuse.
            key = (type(mid).__name__, mid) if type(mid) in (str, int) else None
            if key is not None and key not in answering:
                await admitted.acquire()
                # In hand from here, before its task starts: a cancel read next finds it.
                answering[key] = scope = anyio.CancelScope()
                tasks.start_soon(answer, request, line, key, scope)
                return
            if method == "notifications/cancelled" and _cancel(request):
                return
        await to_sdk(line)

    def _cancel(notice: dict[str, Any]) -> bool:
        """Cancel the call ``notice`` names if ``fast`` has it in hand (else the SDK may)."""
        params = notice.get("params")
        mid = params.get("requestId") if isinstance(params, dict) else None
        scope = answering.get((type(mid).__name__, mid)) if type(mid) in (str, int) else None
        if scope is None:
            return False
        scope.cancel()
        return True

    async def to_sdk(line: bytes) -> None:
        try:
            message: Any = SessionMessage(
                types.jsonrpc_message_adapter.validate_json(line, by_name=False))
        except ValueError as exc:
            message = exc
        await to_server.send(message)

    async def answer(request: dict[str, Any], line: bytes, key: tuple[str, Any],
                     scope: Any) -> None:
        reply: bytes | None = b""
        try:
            assert fast is not None
            with scope:  # (cancelled already, when the host's cancel came in the same read)
                try:
                    async with slots:
                        try:
                            reply = await fast(request)
                        except Exception as exc:  # answered as the SDK answers a handler
                            # that raised, never handed on as well: the call may have been
                            # recorded or sent already
                            reply = _internal_error(key[1], exc)
                finally:
                    del answering[key]
            if reply is None:
                await to_sdk(line)
            elif reply:  # (nothing, when the host cancelled it)
                with contextlib.suppress(OSError):  # the host went away: nobody to answer
                    await write_bytes(reply)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the host closed stdin and the server stopped: nothing to hand on
        finally:
            admitted.release()

    read_chunk = await _reader(source)
    write_bytes = await _writer(sink)

    async def read() -> None:
        buffer, size, over = bytearray(), 0, False
        async with to_server, replies:
            while chunk := await read_chunk():
                while chunk:
                    cut = chunk.find(b"\n")
                    part, chunk = (chunk, b"") if cut < 0 else (chunk[:cut], chunk[cut + 1:])
                    size += len(part)
                    if not over:
                        buffer += part
                        if len(buffer) > max_request:
                            over, buffer = True, buffer[:_HEAD]
                    if cut < 0:
                        break
                    if over:
                        await refuse(bytes(buffer), size)
                    else:
                        await deliver(bytes(buffer))
                    buffer, size, over = bytearray(), 0, False

    async def write() -> None:
        async with from_server:
            async for session_message in from_server:
                data = session_message.message.model_dump_json(by_alias=True,
                                                               exclude_unset=True)
                try:
                    await write_bytes(data.encode("utf-8") + b"\n")
                except OSError:
                    return  # the host stopped reading (it went away): nothing to answer

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read)
            tasks.start_soon(write)
            try:
                yield read_stream, write_stream
            finally:
                tasks.cancel_scope.cancel()
    finally:
        with contextlib.suppress(OSError):
            os.dup2(wire_in, 0)
            os.dup2(wire_out, 1)
        for handle in (source, sink):
            with contextlib.suppress(OSError):
                handle.close()


def _internal_error(mid: Any, exc: Exception) -> bytes:
    """The JSON-RPC error line for a call the fast path failed on (empty: no id to answer)."""
    if mid is None:
        return b""
    error = {"code": -32603, "message": f"Internal error: {type(exc).__name__}: {exc}"}
    return (json.dumps({"jsonrpc": "2.0", "id": mid, "error": error}, default=str)
            + "\n").encode("utf-8")


async def _reader(source: Any) -> Callable[[], Awaitable[bytes]]:
    """``read() -> chunk`` (empty at the end) of ``source``, on the event loop if it can be.

    A pipe or terminal is read by the loop itself; anything else (a regular file) in a
    worker thread. Each thread hop costs a call time, and a host talks through pipes.
    """
    import asyncio

    import anyio

    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=_CHUNK)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), source)
    except (ValueError, OSError):
        return functools.partial(anyio.to_thread.run_sync, source.read, _CHUNK,
                                 abandon_on_cancel=True)
    return functools.partial(stream.read, _CHUNK)


async def _writer(sink: Any) -> Callable[[bytes], Awaitable[None]]:
    """``write(data)`` to ``sink``, on the event loop if it can be (see :func:`_reader`)."""
    import asyncio
    from asyncio.streams import FlowControlMixin

    import anyio

    loop = asyncio.get_running_loop()
    try:
        # FlowControlMixin: what StreamWriter.drain waits on when the host reads slowly.
        transport, protocol = await loop.connect_write_pipe(FlowControlMixin, sink)
    except (ValueError, OSError):
        return functools.partial(anyio.to_thread.run_sync, _write_all, sink)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)

    async def write(data: bytes) -> None:
        if transport.is_closing():
            raise BrokenPipeError("the host closed its end")
        writer.write(data)
        await writer.drain()

    return write


def _write_all(sink: Any, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[sink.write(view):]
