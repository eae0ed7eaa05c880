"""Our stdio transport for MCP servers: bounded, tidy, and never silently stuck.

The SDK's ``stdio_client`` decodes the server's stdout as one text stream: a single byte
that is not UTF-8 kills its reader, and every later call then waits for its timeout; an
unparseable reply is logged and the call waits too; a 50 MB line is read and parsed whole;
the server's stderr goes straight into a file without bound; and the server runs in a
session of its own, so a ``kill -9`` of the workbench leaves it running. This transport
gives the SDK's ``Client`` the same two streams and fixes each of those:

* stdout is read as bytes, one JSON-RPC message per line. A line that cannot be parsed
  (not UTF-8, not JSON, not JSON-RPC) answers the call it belongs to at once with a parse
  error (the request id is read from the line, or it is the only call in flight); one
  that cannot be attributed while calls wait ends the session, so they fail now and the
  next call reconnects.
* a line longer than ``max_message`` bytes is counted and dropped, never held: its call
  is answered with a "result too large" error carrying the size.
* stderr is copied to the connection's log through a byte cap.
* the server gets its own process group (so closing kills its children too) and, on
  Linux, the parent-death signal: it is killed when the thread that started it ends, a
  ``kill -9`` of the workbench included.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

__all__ = ["PARSE_MARK", "TOO_LARGE_MARK", "stdio_transport"]

#: ``error.data["workbench"]`` of the replies this transport makes up for a bad line.
PARSE_MARK = "unparseable"
TOO_LARGE_MARK = "result_too_large"

_CHUNK = 1 << 16
_HEAD = 4096  # bytes of an oversized or broken line kept to find its request id
_ID_RE = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})')
_PR_SET_PDEATHSIG = 1
_GRACE = 2.0  # seconds a server gets to exit after its stdin closes, then after SIGTERM


def _libc() -> Any:
    try:
        return ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
    except OSError:  # pragma: no cover - no C library to ask
        return None


_LIBC = _libc()


def _in_child() -> None:
    """Runs in the forked child before exec: die with the parent thread."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


@contextlib.asynccontextmanager
async def stdio_transport(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None,
    cwd: Any,
    on_stderr: Callable[[bytes], None],
    note: Callable[[str], None],
    max_message: int,
    on_end: Callable[[], None] = lambda: None,
) -> AsyncIterator[tuple[Any, Any]]:
    """Start ``argv`` and yield ``(read_stream, write_stream)`` for ``mcp.Client``.

    Args:
        argv: The server's command line.
        env: Extra environment over the SDK's safe defaults (``PATH``, ``HOME``, ...).
        cwd: Working directory of the server.
        on_stderr: Called with each chunk of the server's stderr (the capped log).
        note: Writes one line to the connection's log.
        max_message: Longest stdout line (bytes) taken as a message.
        on_end: Called when the server's stdout ends (or a line ends the session) while
            the session is meant to be up, so the connection can drop it at once.
    """
    import anyio
    import mcp_types as types
    from mcp.client.stdio import get_default_environment
    from mcp.shared.message import SessionMessage

    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env={**get_default_environment(), **(env or {})},
        cwd=cwd, start_new_session=True, preexec_fn=_in_child,
    )
    to_session, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, from_session = anyio.create_memory_object_stream[Any](0)
    pending: set[Any] = set()
    stopping = False

    def made_up_error(mid: Any, message: str, data: dict[str, Any]) -> Any:
        error = types.ErrorData(code=types.PARSE_ERROR, message=message, data=data)
        return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=mid, error=error))

    def owner(head: bytes) -> Any:
        """The pending request a broken line answers, or None if it cannot be told."""
        found = _ID_RE.search(head)
        if found is not None:
            mid = json.loads(found.group(1))
            if mid in pending:
                return mid
        return next(iter(pending)) if len(pending) == 1 else None

    async def deliver(line: bytes, size: int) -> bool:
        """Hand one line to the session; False when the session must end."""
        if size > max_message:
            mid = owner(line)
            why = (f"result too large: {size} bytes, more than the {max_message}-byte cap "
                   f"(WORKBENCH_MCP_MAX_RESULT)")
            note(f"dropped a {size}-byte message from the server ({why})")
            message = made_up_error(mid, why, {"workbench": TOO_LARGE_MARK, "size": size,
                                               "cap": max_message})
        else:
            line = line.strip()
            if not line:
                return True
            try:
                parsed = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError as exc:
                mid = owner(line[:_HEAD])
                why = _parse_problem(line, exc)
                note(f"unparseable line from the server ({why}): {line[:200]!r}")
                message = made_up_error(mid, f"unparseable reply from the server ({why})",
                                        {"workbench": PARSE_MARK})
            else:
                if isinstance(parsed, types.JSONRPCResponse | types.JSONRPCError):
                    pending.discard(parsed.id)
                await to_session.send(SessionMessage(parsed))
                return True
        if mid is None:
            # Nobody to answer: if calls are waiting, they must not wait for a reply that
            # may have been this line, so the session ends (they fail; the next reconnects).
            return not pending
        pending.discard(mid)
        await to_session.send(message)
        return True

    async def read_stdout() -> None:
        assert proc.stdout is not None
        buffer, size, over = bytearray(), 0, False
        try:
            while chunk := await proc.stdout.read(_CHUNK):
                while chunk:
                    cut = chunk.find(b"\n")
                    part, chunk = (chunk, b"") if cut < 0 else (chunk[:cut], chunk[cut + 1:])
                    size += len(part)
                    if not over:
                        buffer += part
                        if len(buffer) > max_message:
                            over, buffer = True, buffer[:_HEAD]
                    if cut < 0:
                        break
                    if not await deliver(bytes(buffer), size):
                        note("ended the session: a line no call could own while calls wait")
                        return
                    buffer, size, over = bytearray(), 0, False
            note("the server closed its stdout")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # our side is shutting down
        finally:
            await to_session.aclose()
            if not stopping:
                on_end()

    async def read_stderr() -> None:
        assert proc.stderr is not None
        while chunk := await proc.stderr.read(_CHUNK):
            on_stderr(chunk)

    async def write_stdin() -> None:
        assert proc.stdin is not None
        try:
            async for session_message in from_session:
                message = session_message.message
                if isinstance(message, types.JSONRPCRequest):
                    pending.add(message.id)
                elif getattr(message, "method", None) == "notifications/cancelled":
                    pending.discard((getattr(message, "params", None) or {}).get("requestId"))
                data = message.model_dump_json(by_alias=True, exclude_unset=True)
                proc.stdin.write(data.encode("utf-8") + b"\n")
                await proc.stdin.drain()
        except (OSError, anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            note(f"writing to the server failed: {exc!r}")
            await to_session.aclose()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stdout)
        tasks.start_soon(read_stderr)
        tasks.start_soon(write_stdin)
        try:
            yield read_stream, write_stream
        finally:
            stopping = True
            with anyio.CancelScope(shield=True):
                await _stop(proc, note)
            tasks.cancel_scope.cancel()


async def _stop(proc: asyncio.subprocess.Process, note: Callable[[str], None]) -> None:
    """Close stdin, then SIGTERM, then SIGKILL the server's process group."""
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            note(f"server did not exit; sending {signal.Signals(sig).name}")
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, sig)
        try:
            await asyncio.wait_for(proc.wait(), _GRACE)
            break
        except TimeoutError:
            continue
    with contextlib.suppress(OSError):  # children it left in its group go with it
        os.killpg(proc.pid, signal.SIGKILL)


def _parse_problem(line: bytes, exc: Exception) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"byte {line[bad.start]:#04x} at {bad.start} is not UTF-8"
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        return f"{first.get('type')}: {first.get('msg')}"
    return str(exc).splitlines()[0]
