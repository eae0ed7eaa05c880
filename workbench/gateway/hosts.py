"""The JSON a host needs to start the gateway: Claude Desktop, Cursor, VS Code.

Each host keeps its MCP servers in a JSON file of its own shape; :func:`host_config` gives
the snippet that starts this gateway from any directory (a host chooses where its servers
run, so every path in it is absolute):

=========  ==========================================  =================================
host       where it goes                               shape
=========  ==========================================  =================================
claude     ``claude_desktop_config.json``              ``{"mcpServers": {NAME: {command,
                                                       args}}}`` (stdio only)
cursor     ``~/.cursor/mcp.json`` or ``.cursor/``      ``{"mcpServers": {NAME: {command,
           ``mcp.json``                                args}}}`` or ``{NAME: {url}}``
vscode     ``.vscode/mcp.json``                        ``{"servers": {NAME: {type: stdio,
                                                       command, args}}}`` or ``{type: http,
                                                       url}``
=========  ==========================================  =================================

With ``--http PORT`` the snippet points at ``http://127.0.0.1:PORT/mcp`` (the gateway is
then started by the person, not by the host); Claude Desktop starts only stdio servers.

Example:
    >>> snippet = host_config("vscode", ["/venv/bin/python", "-m", "workbench.cli",
    ...                       "gateway", "watch-house", "--agent", "timekeeper"],
    ...                       name="workbench-watch-house-timekeeper")
    >>> snippet["servers"]["workbench-watch-house-timekeeper"]["type"]
    'stdio'
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.errors import WorkbenchError

__all__ = ["HOSTS", "gateway_command", "host_config", "server_name"]

#: The hosts ``--print-config`` knows.
HOSTS = ("claude", "cursor", "vscode")


def server_name(scenario: str, agent: str) -> str:
    """The name the gateway goes by in a host's list of servers."""
    return f"workbench-{scenario}-{agent}"


def gateway_command(scenario: str, agent: str, *, config: str | Path,
                    ledger: str | Path | None = None, approve: Sequence[str] = (),
                    overwrite: bool = False) -> list[str]:
    """The command line that starts this gateway over stdio, every path absolute."""
    argv = [sys.executable, "-m", "workbench.cli", "gateway", scenario, "--agent", agent,
            "--config", str(Path(config).resolve())]
    if ledger is not None:
        argv += ["--ledger", str(Path(ledger).resolve())]
    if overwrite:
        argv.append("--overwrite")
    for tool in approve:
        argv += ["--approve", tool]
    return argv


def host_config(host: str, argv: Sequence[str], *, name: str,
                url: str | None = None) -> dict[str, Any]:
    """The snippet ``host`` needs to reach the gateway.

    Args:
        host: ``claude``, ``cursor`` or ``vscode``.
        argv: The command that starts the gateway over stdio (:func:`gateway_command`).
        name: The server's name in the host (:func:`server_name`).
        url: The gateway's Streamable HTTP URL, when it is served over HTTP instead.

    Raises:
        WorkbenchError: an unknown host, or Claude Desktop with a URL.
    """
    if host not in HOSTS:
        raise WorkbenchError(f"--print-config: unknown host {host!r}; give one of "
                             f"{', '.join(HOSTS)}")
    command, args = argv[0], list(argv[1:])
    if host == "claude":
        if url is not None:
            raise WorkbenchError("--print-config claude: Claude Desktop starts its servers "
                                 "over stdio; drop --http to print its snippet")
        return {"mcpServers": {name: {"command": command, "args": args}}}
    if host == "cursor":
        entry: dict[str, Any] = {"url": url} if url is not None else {
            "command": command, "args": args}
        return {"mcpServers": {name: entry}}
    entry = {"type": "http", "url": url} if url is not None else {
        "type": "stdio", "command": command, "args": args}
    return {"servers": {name: entry}}
