"""The background event loops that own MCP sessions, and the exit-time safety net.

Every :class:`~workbench.tools.mcp.connection.MCPConnection` runs its session on its own
daemon thread with its own event loop (so sync calls work inside a running loop, such as a
Jupyter cell). This module holds that machinery: the loop runner, the set of live
connections and the ``atexit`` hook that closes whatever is still open, so a script that
forgets ``close()`` leaves no server behind.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["StopRequest", "require_mcp", "run_loop", "run_on", "signals_stop", "track", "untrack",
           "warm_imports"]

_live: weakref.WeakSet[Any] = weakref.WeakSet()
_atexit_registered = False
_warmed = False


def require_mcp() -> None:
    """Raise :class:`~workbench.errors.MissingDependency` at once if the SDK is missing.

    Looks the package up without importing it (``import mcp`` costs over a second).
    """
    import importlib.util

    from workbench.errors import MissingDependency

    try:
        found = importlib.util.find_spec("mcp") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise MissingDependency("mcp (the MCP SDK)", "mcp")


def track(conn: Any) -> None:
    """Remember ``conn`` (anything with ``close()``) so exit closes it if nobody else does."""
    _live.add(conn)
    _register_atexit()


def untrack(conn: Any) -> None:
    """Forget ``conn``: it closed itself."""
    _live.discard(conn)


def run_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Run ``loop`` until stopped, then cancel what is left and close it (a thread target)."""
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        try:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.wait(pending, timeout=2.0))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()


class StopRequest:
    """SIGINT and SIGTERM as a request to stop a served run (see :func:`signals_stop`).

    Attributes:
        signalled: The signals received so far.
    """

    def __init__(self) -> None:
        self.signalled: list[int] = []
        self._act: Callable[[], None] | None = None

    def on(self, act: Callable[[], None]) -> None:
        """Do ``act`` at the next signal (at once if one came already)."""
        self._act = act
        if self.signalled:
            act()

    def _signal(self, signum: int, _frame: Any) -> None:
        self.signalled.append(signum)
        if self._act is not None:
            self._act()


@contextlib.contextmanager
def signals_stop() -> Iterator[StopRequest]:
    """Within the block, SIGINT and SIGTERM only ask the run to stop; KeyboardInterrupt after.

    Taken before a server is set up, so a signal that comes while modules still load never
    raises in the middle of them (CPython then exits with -2 even when the KeyboardInterrupt
    was caught), and raised once the block is done, as Ctrl+C in the main thread would.
    Outside the main thread, signals are left alone.
    """
    import signal

    request = StopRequest()
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, request._signal)
    try:
        yield request
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if request.signalled:
        raise KeyboardInterrupt


def run_on(loop: asyncio.AbstractEventLoop, coro: Any,
           stop: Callable[[], None] | None = None, *, grace: float = 10.0,
           request: StopRequest | None = None) -> None:
    """Run ``coro`` on ``loop`` (a session's, on its own thread) until it ends.

    For serving on the loop that owns a server's session: what is served then awaits that
    session without a hop between threads. A signal (see :func:`signals_stop`: ``request``
    when the caller took them already, before setting up what it serves) calls ``stop`` on
    the loop, a graceful end, or without one cancels the run; the run is given ``grace``
    seconds to finish after that. A run a signal came before is not started.

    Raises:
        Whatever ``coro`` raised; KeyboardInterrupt once a run a signal ended is over (as
        when the run is the main thread's).
    """
    with contextlib.nullcontext(request) if request is not None else signals_stop() as request:
        if request.signalled:
            coro.close()
            return
        future = asyncio.run_coroutine_threadsafe(coro, loop)
        request.on((lambda: loop.call_soon_threadsafe(stop)) if stop is not None else
                   future.cancel)
        try:
            while not future.done():
                # Waits a little at a time, so a signal's handler runs between waits (and a
                # TimeoutError the run itself raises is never taken for the wait's own).
                concurrent.futures.wait([future], timeout=0.5)
            try:
                future.result()
            except concurrent.futures.CancelledError:
                if not request.signalled:
                    raise
        finally:
            if not future.done():
                future.cancel()
                with contextlib.suppress(Exception):
                    future.result(grace)


def warm_imports() -> None:
    """Import what the SDK will need later in the background, once per process."""
    global _warmed
    if not _warmed:
        _warmed = True
        # The SDK imports jsonschema (~3 s on a small machine) inside the first call that
        # returns structured content; importing it now, beside the server's own start-up,
        # keeps that second-long stall off the first call (and its timeout).
        threading.Thread(target=_import_quietly, args=("jsonschema",), daemon=True).start()


def _import_quietly(module: str) -> None:
    try:
        __import__(module)
    except Exception:  # noqa: S110 - the SDK will import (and report) it when needed
        pass


def _close_all_at_exit() -> None:
    for conn in list(_live):
        conn.close()


def _register_atexit() -> None:
    global _atexit_registered
    if not _atexit_registered:
        # A safety net: a script or kernel that forgets close() leaves no server behind.
        atexit.register(_close_all_at_exit)
        _atexit_registered = True
