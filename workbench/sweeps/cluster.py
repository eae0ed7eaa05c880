"""Sweeps on a Dask cluster: the scheduler's address checked, reached within a deadline.

``--dask ADDRESS`` (or ``sweep(dask=...)``) is checked for its form before anything else
is done, so a typo is one line naming the flag. Reaching the scheduler is bounded by
:data:`CONNECT_TIMEOUT` (``WORKBENCH_DASK_TIMEOUT``) as a whole: Dask's own ``timeout``
bounds opening the socket but not the handshake after it, so a port that accepts and never
speaks would hold a sweep for ever. The handshake is therefore tried first under a
deadline of our own, and only a scheduler that answers is handed to ``Client``.

Example:
    >>> check_address("tcp://127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> check_address("not-an-address")
    Traceback (most recent call last):
    ...
    workbench.errors.ConfigError: --dask: 'not-an-address' is not a scheduler address; \
allowed: tcp://HOST:PORT (or tls://, ws://, wss://, ucx://; PORT 1-65535), e.g. \
tcp://127.0.0.1:8786
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from workbench.errors import ConfigError

__all__ = ["CONNECT_TIMEOUT", "TIMEOUT_ENV", "check_address", "connect", "connect_timeout",
           "run_on_dask"]

#: Seconds to reach a scheduler and finish Dask's handshake (``WORKBENCH_DASK_TIMEOUT``).
#: A scheduler on a network answers in well under a second; ten leaves room for a slow
#: link or a busy scheduler, and a sweep that cannot start says so quickly.
CONNECT_TIMEOUT = 10.0
#: The environment variable that changes :data:`CONNECT_TIMEOUT`.
TIMEOUT_ENV = "WORKBENCH_DASK_TIMEOUT"
#: Schemes ``distributed`` connects a client over (``inproc`` is for one process only).
_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
_ADDRESS = re.compile(r"(?:(?P<scheme>[a-z]+)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|"
                      r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}))(?::(?P<port>[0-9]{1,5}))")
_ALLOWED = ("allowed: tcp://HOST:PORT (or tls://, ws://, wss://, ucx://; PORT 1-65535), "
            "e.g. tcp://127.0.0.1:8786")


def check_address(address: Any) -> str:
    """``address`` if it is a scheduler address Dask can connect a client to.

    Raises:
        ConfigError: naming ``--dask`` and the forms allowed.
    """
    text = str(address).strip() if isinstance(address, str) else None
    match = _ADDRESS.fullmatch(text) if text else None
    if (match is None or (match["scheme"] or "tcp") not in _SCHEMES
            or not 1 <= int(match["port"]) <= 65535):
        shown = repr(address) if text is not None else f"a {type(address).__name__}"
        raise ConfigError("--dask", "", f"{shown[:200]} is not a scheduler address; "
                                        f"{_ALLOWED}")
    return text  # type: ignore[return-value]


def connect_timeout(env: Mapping[str, str] | None = None) -> float:
    """:data:`CONNECT_TIMEOUT`, or the seconds in ``WORKBENCH_DASK_TIMEOUT``.

    Raises:
        ConfigError: the variable is set but not a finite number above 0.
    """
    from workbench.tools.mcp.settings import env_number

    return env_number(os.environ if env is None else env, TIMEOUT_ENV, CONNECT_TIMEOUT)


def connect(address: str, timeout: float | None = None) -> Any:
    """A ``dask.distributed.Client`` of the scheduler at ``address``, within ``timeout``.

    Raises:
        SweepError: the scheduler cannot be reached, or does not answer in time.
        MissingDependency: dask is not installed.
    """
    try:
        from dask.distributed import Client
    except ImportError as exc:  # pragma: no cover - depends on the environment
        from workbench.errors import MissingDependency

        raise MissingDependency("dask", "sweep") from exc
    from workbench.errors import SweepError

    timeout = connect_timeout() if timeout is None else timeout
    advice = ("start one with `dask scheduler`, check the address, or pass --workers N to "
              "run locally")
    try:
        _handshake(address, timeout)
    except TimeoutError:
        raise SweepError(f"the Dask scheduler at {address!r} did not answer within "
                         f"{timeout:g} s ({TIMEOUT_ENV} sets the wait); {advice}") from None
    except (OSError, ValueError) as exc:
        raise SweepError(f"cannot reach the Dask scheduler at {address!r} "
                         f"({_one_line(exc)}); {advice}") from None
    try:
        return Client(address, timeout=f"{timeout}s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise SweepError(f"cannot reach the Dask scheduler at {address!r} "
                         f"({_one_line(exc)}); {advice}") from None


def _handshake(address: str, timeout: float) -> None:
    """Open a comm to ``address`` and finish Dask's handshake, all within ``timeout``.

    Runs on a fresh event loop in a thread of its own, so it works inside a running loop
    (a notebook kernel) too.

    Raises:
        TimeoutError: nothing answered in time (a port that accepts but never speaks).
        OSError: refused, unreachable, or closed during the handshake.
    """
    from distributed.comm import connect as open_comm

    async def attempt() -> None:
        comm = await asyncio.wait_for(open_comm(address, timeout=timeout), timeout)
        await comm.close()

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="workbench-dask") as pool:
        pool.submit(asyncio.run, attempt()).result()


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__


def run_on_dask(tasks: list[Any], client: Any, run: Callable[[Any], dict[str, Any]],
                failed: Callable[[Any, str], dict[str, Any]], attempts: int,
                done: Callable[[], None]) -> Iterable[dict[str, Any]]:
    """Run ``tasks`` on a Dask cluster, yielding rows as they finish.

    ``client`` is a ``Client`` or an address (connected here, closed after). The scheduler
    re-runs the tasks of a worker that dies, up to ``attempts`` times; a task it loses is
    that run's row (``failed``), not the end of the sweep.
    """
    from dask.distributed import as_completed

    owned = isinstance(client, str)
    if owned:
        client = connect(client)
    try:
        futures = [client.submit(run, t, key=f"workbench-{t.run_id}-{t.bundle.scenario}",
                                 pure=False, retries=attempts) for t in tasks]
        by_key = {f.key: t for f, t in zip(futures, tasks, strict=True)}
        for future in as_completed(futures):
            task = by_key[future.key]
            try:
                row = future.result()
            except Exception as exc:  # noqa: BLE001 - a lost task, reported as that run's
                row = failed(task, f"the cluster lost it: {type(exc).__name__}: {exc}")
            yield row
            done()
    finally:
        if owned:
            client.close()
