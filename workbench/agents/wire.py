"""The model call's wire: one deadline for the whole request, one cap on the bytes read.

The openai client's ``timeout`` bounds each socket read, not the request: a server that
sends one byte a second never trips it and holds the turn as long as it likes, and a
server that sends 300 MB is read into memory whole before anything looks at it. Both
bounds are enforced here, under the client, on every socket operation it makes:

* a :class:`Budget` per request attempt (opened with :func:`bounded`) holds the deadline
  (``model.timeout`` from now) and the byte cap (:func:`reply_bytes`); each connect,
  write and read waits at most the time left, so the request ends at its deadline
  whether the server is silent, slow to send headers, or trickling its body;
* every byte read counts against the cap (headers and body alike, a redirect's too);
  the read that passes it fails, so at most the cap (and one read's chunk) is ever
  buffered, and :attr:`Budget.exceeded` tells the caller why the request failed.

It works by wrapping the network backend of the HTTP connection pools of the client the
``openai`` package builds (``DefaultHttpxClient``); :func:`bounded_http_client` fails
closed, with a :class:`~workbench.errors.ModelError`, if a future client is built in a
way it cannot wrap. Outside a :func:`bounded` block the wrapped backend adds nothing.

==================================  =======  ==========================================
variable                            default  what it bounds
==================================  =======  ==========================================
``WORKBENCH_MODEL_REPLY_BYTES``     8 MiB    bytes read for one model call's reply
==================================  =======  ==========================================
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from workbench.errors import ModelError
from workbench.tools.mcp.settings import env_number

__all__ = ["REPLY_BYTES", "REPLY_BYTES_ENV", "Budget", "bounded", "bounded_http_client",
           "reply_bytes"]

#: Bytes one model call may read: a long completion with logprobs is well under 1 MiB,
#: and a reply read to this size is parsed in a fraction of a second; past it a reply is
#: refused rather than held in memory.
REPLY_BYTES = 8 << 20
#: The environment variable that changes :data:`REPLY_BYTES`.
REPLY_BYTES_ENV = "WORKBENCH_MODEL_REPLY_BYTES"


def reply_bytes(env: Mapping[str, str] | None = None) -> int:
    """The byte cap in force: ``WORKBENCH_MODEL_REPLY_BYTES`` or :data:`REPLY_BYTES`.

    Raises:
        ConfigError: the variable is set but not a number above 0.
    """
    return int(env_number(os.environ if env is None else env, REPLY_BYTES_ENV, REPLY_BYTES))


@dataclass
class Budget:
    """What one request attempt may still spend.

    Attributes:
        deadline: ``time.monotonic()`` by which the request must be over.
        limit: Bytes it may read.
        read: Bytes read so far.
        exceeded: ``"deadline"`` or ``"bytes"`` once a bound stopped it, else None.
    """

    deadline: float
    limit: int
    read: int = 0
    exceeded: str | None = None

    def wait(self, timeout: float | None, expired: type[Exception]) -> float:
        """The longest the next operation may wait: ``timeout`` or the time left."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.exceeded = "deadline"
            raise expired("the request's deadline has passed")
        return left if timeout is None else min(timeout, left)


_BUDGET: ContextVar[Budget | None] = ContextVar("workbench_model_budget", default=None)


@contextmanager
def bounded(timeout: float, limit: int) -> Iterator[Budget]:
    """Bound the requests made in this block (this thread) by one :class:`Budget`."""
    budget = Budget(time.monotonic() + timeout, limit)
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        _BUDGET.reset(token)


class _Stream:
    """A connection's network stream, every operation held to the current budget."""

    def __init__(self, inner: Any, core: Any):
        self._inner = inner
        self._core = core

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        budget = _BUDGET.get()
        if budget is None:
            return self._inner.read(max_bytes, timeout)
        wait = budget.wait(timeout, self._core.ReadTimeout)
        # Never ask for more than one byte past the cap: the cap is what gets buffered.
        try:
            data = self._inner.read(min(max_bytes, budget.limit - budget.read + 1), wait)
        except self._core.ReadTimeout:
            if time.monotonic() >= budget.deadline:
                budget.exceeded = "deadline"
            raise
        budget.read += len(data)
        if budget.read > budget.limit:
            budget.exceeded = "bytes"
            raise self._core.ReadError(f"the reply is over {budget.limit} bytes")
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        budget = _BUDGET.get()
        if budget is not None:
            timeout = budget.wait(timeout, self._core.WriteTimeout)
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> _Stream:
        budget = _BUDGET.get()
        if budget is not None:
            timeout = budget.wait(timeout, self._core.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, timeout),
                       self._core)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend:
    """A network backend whose streams are :class:`_Stream` (see the module docstring)."""

    def __init__(self, inner: Any, core: Any):
        self._inner = inner
        self._core = core

    def _timeout(self, timeout: float | None) -> float | None:
        budget = _BUDGET.get()
        return timeout if budget is None else budget.wait(timeout, self._core.ConnectTimeout)

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None) -> _Stream:
        return _Stream(self._inner.connect_tcp(host, port, timeout=self._timeout(timeout),
                                               local_address=local_address,
                                               socket_options=socket_options), self._core)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> _Stream:
        return _Stream(self._inner.connect_unix_socket(
            path, timeout=self._timeout(timeout), socket_options=socket_options), self._core)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def bounded_http_client(openai: Any) -> Any:
    """The ``openai`` package's default HTTP client, its connection pools bounded.

    Every transport the client holds (the default one and any proxy mounts from the
    environment) has its pool's network backend wrapped. The pools are reached through
    their private attributes, stable across the httpx/httpcore generations the openai
    client has used; the wire tests fail if that ever changes.

    Raises:
        ModelError: the client has no pool this module can wrap (fail closed: an
            unbounded request is what this module exists to prevent).
    """
    client = openai.DefaultHttpxClient()
    transports = [getattr(client, "_transport", None),
                  *getattr(client, "_mounts", {}).values()]
    wrapped = 0
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if backend is None:
            continue
        if not isinstance(backend, _Backend):
            core = importlib.import_module(type(pool).__module__.split(".")[0])
            pool._network_backend = _Backend(backend, core)
        wrapped += 1
    if not wrapped:
        client.close()
        raise ModelError("connection_error", "this version of the openai client builds its "
                         "HTTP connections in a way the workbench cannot bound (a deadline "
                         "per request, a cap on reply bytes); install a supported version: "
                         "pip install 'tool-contract-workbench[model]'")
    return client
