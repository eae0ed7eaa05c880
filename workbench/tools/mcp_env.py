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
from workbench.tools.mcp_connection import MCPConnection
from workbench.tools.mcp_loop import require_mcp
from workbench.tools.mcp_resolver import MCPResolver
from workbench.tools.mcp_settings import DEFAULT_TIMEOUT, env_number

__all__ = [
    "is_builtin_server",
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


def is_builtin_server(conn: MCPConnection) -> bool:
    """Whether ``conn`` starts our own server with this interpreter: our code, so trusted.

    Only the exact command ``MCP_ORACLE=1`` uses counts (``python`` means this
    interpreter); a URL cannot show whose code answers it, so it never counts.
    """
    return conn.transport == "stdio" and conn.argv == oracle_server_command()


def mcp_resolver_from_env(env: Mapping[str, str] | None = None) -> MCPResolver:
    """A connected resolver for ``MCP_SERVERS`` (or ``MCP_ORACLE=1``).

    ``MCP_SERVERS`` holds ``::``-separated stdio command lines or http(s) URLs and wins
    over ``MCP_ORACLE=1``, which starts the built-in server
    (:func:`oracle_server_command`). ``WORKBENCH_MCP_TIMEOUT`` sets the per-call timeout
    in seconds. The built-in server is trusted whichever variable starts it
    (:func:`is_builtin_server`); every other server is not.

    Raises:
        MissingDependency: the ``mcp`` extra is not installed (before anything starts).
        ToolCallError: ``transport_error`` if a server cannot be started or reached.
        ConfigError: neither variable asks for a server, or WORKBENCH_MCP_TIMEOUT is not
            a number.
    """
    env = os.environ if env is None else env
    timeout = env_number(env, "WORKBENCH_MCP_TIMEOUT", DEFAULT_TIMEOUT)
    servers = env.get("MCP_SERVERS", "").strip()
    if servers:
        connections = [MCPConnection(t, timeout=timeout) for t in split_servers(servers)]
    elif env.get("MCP_ORACLE", "") == "1":
        connections = [MCPConnection(oracle_server_command(), name="workbench",
                                     timeout=timeout)]
    else:
        raise ConfigError(
            "environment", "MCP_SERVERS", "neither MCP_SERVERS nor MCP_ORACLE=1 is set; set "
            "one to use MCP, or use the in-process registry (default_tool_registry())"
        )
    require_mcp()
    _trust_our_own(connections, env)
    return MCPResolver(connections).connect()


def resolver_for_servers(
    specs: Iterable[Any],
    *,
    timeout: float | None = None,
    cwd: str | os.PathLike[str] | None = None,
    log_dir: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> MCPResolver:
    """Start a scenario's ``servers:`` and return a connected resolver over them.

    Args:
        specs: :class:`~workbench.contracts.scenario.ServerSpec` objects (anything with
            ``name``, ``target``, ``trusted`` and optionally ``timeout``), in priority order.
        timeout: Per-call timeout in seconds for servers whose spec names none
            (``WORKBENCH_MCP_TIMEOUT``, else 30, when None).
        cwd: Working directory of stdio servers, so relative paths in their commands
            resolve against it (the project directory); this process's when None.
        log_dir: Directory for the per-connection logs (:func:`default_log_dir` if None).
        env: Environment to read ``WORKBENCH_MCP_TIMEOUT`` from (``os.environ`` if None).

    Returns:
        The resolver; call :meth:`MCPResolver.close` when the run is over.

    Raises:
        MissingDependency: the ``mcp`` extra is not installed (before anything starts).
        ToolCallError: ``transport_error`` if a server cannot be started or reached.
    """
    env = os.environ if env is None else env
    if timeout is None:
        timeout = env_number(env, "WORKBENCH_MCP_TIMEOUT", DEFAULT_TIMEOUT)
    connections = [
        MCPConnection(spec.target, name=spec.name, cwd=cwd, log_dir=log_dir,
                      timeout=getattr(spec, "timeout", None) or timeout,
                      trusted=bool(getattr(spec, "trusted", False)))
        for spec in specs
    ]
    require_mcp()
    _trust_our_own(connections, env)
    return MCPResolver(connections).connect()


def _trust_our_own(connections: Iterable[MCPConnection], env: Mapping[str, str]) -> None:
    for conn in connections:
        if is_builtin_server(conn):
            conn.trusted = True
            # The SDK passes a stdio server only PATH, HOME and the like; our own server
            # also needs the import path this process uses, to run this very code.
            extra = {k: env[k] for k in ("PYTHONPATH", "VIRTUAL_ENV") if env.get(k)}
            conn.add_env(extra)
