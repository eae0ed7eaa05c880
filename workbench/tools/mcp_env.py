"""The MCP environment gate and scenario servers: which servers a run talks to.

* ``MCP_SERVERS``: ``::``-separated stdio command lines or http(s) URLs;
* ``MCP_ORACLE=1``: the built-in server (:func:`oracle_server_command`), ignored when
  ``MCP_SERVERS`` is set;
* a scenario's ``servers:`` (:func:`resolver_for_servers`).

Each gives a connected :class:`~workbench.tools.mcp_resolver.MCPResolver`.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from workbench.errors import ConfigError
from workbench.tools.mcp_connection import DEFAULT_TIMEOUT, MCPConnection
from workbench.tools.mcp_resolver import MCPResolver

__all__ = [
    "mcp_resolver_from_env",
    "oracle_server_command",
    "resolver_for_servers",
    "split_servers",
]


def oracle_server_command() -> list[str]:
    """The command line of the built-in server, as ``MCP_ORACLE=1`` starts it."""
    return [sys.executable, "-m", "workbench.tools.mcp_server"]


def split_servers(value: str) -> list[str]:
    """Split an ``MCP_SERVERS`` value on ``::`` (but not inside ``[...]``, an IPv6 host)."""
    return [part.strip() for part in re.split(r"::(?![^\[]*\])", value) if part.strip()]


def mcp_resolver_from_env(env: Mapping[str, str] | None = None) -> MCPResolver:
    """A connected resolver for ``MCP_SERVERS`` (or ``MCP_ORACLE=1``).

    ``MCP_SERVERS`` holds ``::``-separated stdio command lines or http(s) URLs and wins
    over ``MCP_ORACLE=1``, which starts the built-in server
    (:func:`oracle_server_command`). ``WORKBENCH_MCP_TIMEOUT`` sets the per-call timeout
    in seconds.

    Raises:
        ToolCallError: ``transport_error`` if a server cannot be started or reached.
        ConfigError: neither variable asks for a server, or WORKBENCH_MCP_TIMEOUT is not
            a number.
    """
    env = os.environ if env is None else env
    timeout = _float_env(env, "WORKBENCH_MCP_TIMEOUT", DEFAULT_TIMEOUT)
    servers = env.get("MCP_SERVERS", "").strip()
    if servers:
        connections = [MCPConnection(t, timeout=timeout) for t in split_servers(servers)]
    elif env.get("MCP_ORACLE", "") == "1":
        connections = [MCPConnection(oracle_server_command(), name="workbench",
                                     timeout=timeout, env=_python_env(env), trusted=True)]
    else:
        raise ConfigError(
            "environment", "MCP_SERVERS", "neither MCP_SERVERS nor MCP_ORACLE=1 is set; set "
            "one to use MCP, or use the in-process registry (default_tool_registry())"
        )
    return MCPResolver(connections).connect()


def resolver_for_servers(
    specs: Iterable[Any],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    cwd: str | os.PathLike[str] | None = None,
    log_dir: str | os.PathLike[str] | None = None,
) -> MCPResolver:
    """Start a scenario's ``servers:`` and return a connected resolver over them.

    Args:
        specs: :class:`~workbench.contracts.scenario.ServerSpec` objects (anything with
            ``name``, ``target`` and ``trusted``), in priority order.
        timeout: Per-call timeout in seconds.
        cwd: Working directory of stdio servers, so relative paths in their commands
            resolve against it (the project directory); this process's when None.
        log_dir: Directory for the per-connection logs (:func:`default_log_dir` if None).

    Returns:
        The resolver; call :meth:`MCPResolver.close` when the run is over.

    Raises:
        ToolCallError: ``transport_error`` if a server cannot be started or reached.
    """
    connections = [
        MCPConnection(spec.target, name=spec.name, timeout=timeout, cwd=cwd, log_dir=log_dir,
                      trusted=bool(getattr(spec, "trusted", False)))
        for spec in specs
    ]
    return MCPResolver(connections).connect()



def _float_env(env: Mapping[str, str], key: str, default: float) -> float:
    raw = env.get(key, "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise ConfigError(
            "environment", key, f"{raw!r} is not a number of seconds; unset it or give e.g. 30"
        ) from None


def _python_env(env: Mapping[str, str]) -> dict[str, str] | None:
    # The SDK passes a stdio server only PATH, HOME and the like; our own server also
    # needs the import path this process uses.
    extra = {k: env[k] for k in ("PYTHONPATH", "VIRTUAL_ENV") if env.get(k)}
    return extra or None
