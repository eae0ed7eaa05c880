"""run_on: a coroutine served on another thread's loop, as the gateway serves on a session's."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time

import pytest

from workbench.tools.mcp.loop import run_loop, run_on


@pytest.fixture
def loop():
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=run_loop, args=(loop,), daemon=True)
    thread.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)


async def _raises(exc: BaseException) -> None:
    await asyncio.sleep(0.01)
    raise exc


class TestRunOn:
    def test_what_the_run_raises_comes_back_even_a_timeout(self, loop):
        started = time.monotonic()
        with pytest.raises(TimeoutError, match="its own"):
            run_on(loop, _raises(TimeoutError("its own")))
        assert time.monotonic() - started < 2  # not taken for the wait's own timeout
        with pytest.raises(ValueError):
            run_on(loop, _raises(ValueError("x")))

    def test_it_returns_when_the_run_ends(self, loop):
        assert run_on(loop, asyncio.sleep(0.01)) is None

    @pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["int", "term"])
    def test_a_signal_stops_the_run_gracefully_then_interrupts(self, loop, sig):
        stopped = asyncio.Event()
        finished = []

        async def serve() -> None:
            await stopped.wait()
            finished.append(True)  # a graceful end: the run finished its own way

        before = signal.getsignal(sig)
        threading.Timer(0.2, os.kill, (os.getpid(), sig)).start()
        with pytest.raises(KeyboardInterrupt):
            run_on(loop, serve(), stopped.set)
        assert finished == [True]
        assert signal.getsignal(sig) is before  # the handler is put back

    def test_without_a_stop_a_signal_cancels_the_run(self, loop):
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
        with pytest.raises(KeyboardInterrupt):
            run_on(loop, asyncio.sleep(30))

    def test_a_signal_before_the_run_starts_it_never(self, loop):
        from workbench.tools.mcp.loop import signals_stop

        started = []

        async def serve() -> None:
            started.append(True)

        with pytest.raises(KeyboardInterrupt):
            with signals_stop() as request:
                os.kill(os.getpid(), signal.SIGINT)  # while the server is still being set up
                time.sleep(0.05)  # the handler runs: it only records the signal
                assert request.signalled == [signal.SIGINT]
                run_on(loop, serve(), lambda: None, request=request)
        assert started == []
