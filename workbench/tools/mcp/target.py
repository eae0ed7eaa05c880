"""What an MCP server target names: a stdio command line or a Streamable HTTP URL.

A scenario's ``servers``, ``MCP_SERVERS`` and the CLI give a server as one string (or an
argv list). :func:`parse_target` reads it once, for :class:`~workbench.tools.mcp.
connection.MCPConnection`: an ``http://`` or ``https://`` URL is an HTTP endpoint; anything
else is a command line, split as a shell would. A bare ``python`` or ``python3`` means the
interpreter running the workbench, whose venv has the servers installed.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from workbench.errors import ConfigError

__all__ = ["Target", "parse_target"]


@dataclass(frozen=True)
class Target:
    """A server target, read.

    Attributes:
        transport: ``stdio`` or ``http``.
        url: The endpoint (``http`` only).
        argv: The command line (``stdio`` only).
        env: Extra environment for a stdio server (None: none asked for).
    """

    transport: str
    url: str | None
    argv: tuple[str, ...]
    env: Mapping[str, str] | None


def parse_target(target: str | Sequence[str], env: Mapping[str, str] | None = None
                 ) -> Target:
    """Read ``target`` as a URL or a command line; ``env`` is the caller's extra environment.

    Raises:
        ConfigError: an empty command line.
    """
    if isinstance(target, str) and target.strip().startswith(("http://", "https://")):
        return Target("http", target.strip(), (), env)
    argv = shlex.split(target) if isinstance(target, str) else [str(a) for a in target]
    if not argv:
        raise ConfigError(
            "MCP server", "command", "it is empty; give a command line such as "
            "'python -m workbench.tools.mcp.server' or an http(s) URL",
        )
    if argv[0] in ("python", "python3"):
        # A bare "python" in MCP_SERVERS or a scenario means the Python running the
        # workbench (its venv has the servers installed), not whatever is on PATH, with
        # this process's import path (`-m workbench...` runs this checkout).
        argv[0] = sys.executable
        if env is None:
            env = {k: os.environ[k] for k in ("PYTHONPATH", "VIRTUAL_ENV")
                   if os.environ.get(k)}
    return Target("stdio", None, tuple(argv), env)
