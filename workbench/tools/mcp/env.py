"""The MCP environment gate and scenario servers: which servers a run talks to.

* ``MCP_SERVERS``: ``::``-separated stdio command lines or http(s) URLs;
* ``MCP_ORACLE=1``: the built-in server (:func:`oracle_server_command`), ignored when
  ``MCP_SERVERS`` is set;
* a scenario's ``servers:`` (:func:`resolver_for_servers`).

Each gives a connected :class:`~workbench.tools.mcp.resolver.MCPResolver`.
"""

from __future__ import annotations

import importlib.machinery
import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError
from workbench.tools.mcp.connection import MCPConnection
from workbench.tools.mcp.loop import require_mcp
from workbench.tools.mcp.resolver import MCPResolver
from workbench.tools.mcp.settings import DEFAULT_TIMEOUT, env_number

__all__ = [
    "BUILTIN_MODULE",
    "is_builtin_server",
    "mcp_resolver_from_env",
    "not_builtin_why",
    "oracle_server_command",
    "resolver_for_servers",
    "split_servers",
]


#: The module the built-in server runs as: ``python -m workbench.tools.mcp.server``.
BUILTIN_MODULE = "workbench.tools.mcp.server"


def oracle_server_command() -> list[str]:
    """The command line of the built-in server, as ``MCP_ORACLE=1`` starts it."""
    return [sys.executable, "-m", BUILTIN_MODULE]


def split_servers(value: str) -> list[str]:
    """Split an ``MCP_SERVERS`` value on ``::`` (but not inside ``[...]``, an IPv6 host)."""
    return [part.strip() for part in re.split(r"::(?![^\[]*\])", value) if part.strip()]


#: Environment variables that change what an interpreter runs (its import path, its
#: standard library, code preloaded into it). A server whose extra environment sets one
#: to anything but this process's own value may run other code than ours.
_CODE_CHANGING_ENV = ("PYTHON", "LD_", "DYLD_")


def is_builtin_server(conn: MCPConnection) -> bool:
    """Whether ``conn`` starts our own server with this interpreter: our code, so trusted.

    This is the one place the built-in server's trust is decided (DESIGN.md section 10).
    The command's text never decides it; what it would run does (:func:`not_builtin_why`):

    * the argv is exactly ``<python> -m workbench.tools.mcp.server``: no other argument
      (``-c``, ``-I``, a script, an extra option, another module) is accepted;
    * ``<python>``, resolved as the server's exec would (against its working directory,
      or on its ``PATH``), then through every symlink, is the file ``sys.executable``
      resolves to, *and* would start in the same environment: the same ``pyvenv.cfg``
      beside it or one directory up, as Python itself looks for it. A venv's ``python``
      is a symlink to the base interpreter, but the base interpreter (or a link to it
      from outside the venv, or another venv made from it) runs other site-packages, so
      none of those counts. ``python``/``python3`` mean ``sys.executable``
      (:class:`MCPConnection` rewrites them), so they always count;
    * the server's extra environment changes no ``PYTHON*``, ``LD_*`` or ``DYLD_*``
      variable from this process's value;
    * its working directory holds no ``workbench`` package other than ours (``-m`` puts it
      first on ``sys.path``: even a bare ``workbench/`` directory would be imported).

    A URL cannot show whose code answers it, so it never counts.
    """
    return not_builtin_why(conn) is None


def not_builtin_why(conn: MCPConnection) -> str | None:
    """Why ``conn`` is not the built-in server (see :func:`is_builtin_server`), or None."""
    if conn.transport != "stdio":
        return "a URL cannot show whose code answers it"
    argv = conn.argv
    if argv[1:] != ["-m", BUILTIN_MODULE]:
        return f"its command is not exactly `python -m {BUILTIN_MODULE}`"
    env = conn.extra_env
    changed = sorted(k for k, v in env.items()
                     if k.startswith(_CODE_CHANGING_ENV) and os.environ.get(k) != v)
    if changed:
        return f"its environment sets {', '.join(changed)}, which change what code runs"
    cwd = Path(conn.cwd) if conn.cwd is not None else Path.cwd()
    exe = _exec_path(argv[0], env.get("PATH", os.environ.get("PATH", os.defpath)), cwd)
    if exe is None:
        return f"{argv[0]!r} names no executable file"
    if _interpreter(exe) != _interpreter(Path(sys.executable)):
        return f"{argv[0]!r} is not this interpreter in this environment"
    shadow = importlib.machinery.PathFinder.find_spec("workbench", [str(cwd)])
    if shadow is not None and not _is_ours(shadow):
        return f"its working directory {str(cwd)!r} holds another `workbench` package"
    return None


def _exec_path(command: str, path: str, cwd: Path) -> Path | None:
    """The file the server's exec would run for ``command``, as ``execvpe`` finds it.

    The server starts in ``cwd``, so a relative command, or a relative ``PATH`` entry,
    means a file under ``cwd``, not under this process's directory.
    """
    if os.sep in command:
        candidates = [cwd / command]
    else:
        candidates = [cwd / (entry or ".") / command for entry in path.split(os.pathsep)]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _interpreter(exe: Path) -> tuple[str, str | None]:
    """What an interpreter started by path ``exe`` is: (its binary, its venv or None).

    Python finds its venv by a ``pyvenv.cfg`` beside the path it was started by, or one
    directory up; that path is taken as given (its symlinks are not resolved), so a link
    to a venv's python from outside the venv starts the base interpreter.
    """
    absolute = Path(os.path.abspath(exe))
    venv = next((d for d in (absolute.parent, absolute.parent.parent)
                 if (d / "pyvenv.cfg").is_file()), None)
    return os.path.realpath(absolute), None if venv is None else os.path.realpath(venv)


def _is_ours(spec: importlib.machinery.ModuleSpec) -> bool:
    """Whether ``spec`` (of ``workbench``, found in a server's directory) is this package."""
    # The package this module is part of (already imported, since this module is in it).
    ours = os.path.realpath(sys.modules["workbench"].__file__ or "")
    return spec.origin is not None and os.path.realpath(spec.origin) == ours


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
