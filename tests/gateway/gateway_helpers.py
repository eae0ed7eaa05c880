"""Helpers for the gateway tests: configs around the test servers, and a host to drive it.

A test writes a config (an agent granted some tools, a scenario naming a server and a
surface) into its tmp dir, starts ``workbench gateway`` on it as a real subprocess, and
talks to it as a host does: with the ``mcp`` Python client (:class:`Host`, which answers
elicitation from a queue), the MCP Inspector CLI, or the workbench's own ``MCPConnection``.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from collections.abc import Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from workbench.contracts.surface import save_tools

REPO = Path(__file__).resolve().parents[2]
SERVERS = REPO / "tests" / "tools" / "servers"
HOSTILE = SERVERS / "hostile_server.py"
FLAKY = SERVERS / "flaky_server.py"
INSPECTOR = REPO / "external" / "node_modules" / ".bin" / "mcp-inspector"
TEXT = {"type": "object", "properties": {"text": {"type": "string"}}}
EMPTY = {"type": "object", "properties": {}}

#: The hostile server's tools as a surface lists them (curated descriptions).
HOSTILE_SURFACE = [
    {"name": "ok", "title": "Say it back", "description": "Curated: return the text sent.",
     "parameters": TEXT, "examples": [{"text": "hello"}]},
    {"name": "whoami", "description": "Curated: the server's process id.",
     "parameters": EMPTY},
    {"name": "probe", "description": "Curated: the tool that misbehaves.",
     "parameters": EMPTY},
    {"name": "added", "description": "Curated: listed here before the server offers it.",
     "parameters": TEXT},
]


def hostile(mode: str, log: Path | None = None, **flags: str) -> str:
    """The command line of the hostile server in ``mode`` (requests logged to ``log``)."""
    argv = [sys.executable, str(HOSTILE), "--mode", mode]
    if log is not None:
        argv += ["--log", str(log)]
    for key, value in flags.items():
        argv += [f"--{key.replace('_', '-')}", value]
    return shlex.join(argv)


def write_config(root: Path, *, servers: Iterable[dict[str, Any]], grants: Iterable[str],
                 surface: Iterable[dict[str, Any]] | None = None,
                 scenario: str = "probe-house", agent: str = "prober") -> Path:
    """A config with one agent granted ``grants`` in one scenario over ``servers``."""
    config = root / "config"
    (config / "agents").mkdir(parents=True, exist_ok=True)
    (config / "scenarios").mkdir(exist_ok=True)
    (config / "agents" / f"{agent}.yaml").write_text(
        f"name: {agent}\nrole: worker\npersona: A prober of servers.\n"
        f"tools: {json.dumps(list(grants))}\n")
    lines = [f"name: {scenario}", "title: A probe", "default_seed: 1",
             "genesis_text: 'Probing (seed {seed}).'", f"cast: [{agent}]",
             f"servers: {json.dumps(list(servers))}"]
    if surface is not None:
        save_tools(config / "surfaces" / "probe", [dict(entry) for entry in surface])
        lines.append("surface: surfaces/probe")
    (config / "scenarios" / f"{scenario}.yaml").write_text("\n".join(lines) + "\n")
    return config


def gateway_argv(config: Path, ledger: Path, *extra: str, scenario: str = "probe-house",
                 agent: str = "prober") -> list[str]:
    """``workbench gateway`` on ``config``, writing ``ledger``."""
    return [sys.executable, "-m", "workbench.cli", "gateway", scenario, "--agent", agent,
            "--config", str(config), "--ledger", str(ledger), *extra]


def gateway_env() -> dict[str, str]:
    """The environment a gateway subprocess runs with: this checkout on its import path."""
    env = {k: v for k, v in os.environ.items() if k not in ("MCP_SERVERS", "MCP_ORACLE")}
    env["PYTHONPATH"] = str(REPO)
    return env


def wait_until_called(log: Path, tool: str, timeout: float = 60) -> None:
    """Until the flaky server's request log (``FLAKY_LOG``) shows a call of ``tool``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and any(json.loads(line).get("tool") == tool
                                for line in log.read_text().splitlines() if line.strip()):
            return
        time.sleep(0.05)
    raise AssertionError(f"{tool!r} never reached the server in {timeout:g} s")


def ledger_lines(path: Path) -> list[dict[str, Any]]:
    """The events of a ledger file, as dicts (complete lines only)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return [json.loads(line) for line in text.splitlines(keepends=True) if line.endswith("\n")]


def kinds(path: Path) -> list[str]:
    """The kinds of a ledger file's events, in order."""
    return [event["kind"] for event in ledger_lines(path)]


class Host:
    """A host on the ``mcp`` Python client: elicitation answered from :attr:`answers`.

    Attributes:
        answers: What the person answers, in order: True (approve), False (accept but
            do not approve), ``"decline"``, or ``"away"`` (never answers: the callback
            waits a minute); asked with nothing queued, it declines.
        asked: Every question's text.
        notified: How many ``tools/list_changed`` notifications arrived (2025-11-25).
    """

    def __init__(self, argv: list[str], *, mode: str = "legacy", elicit: bool = True,
                 errlog: Path | None = None):
        self.argv = argv
        self.mode = mode
        self.elicit = elicit
        self.errlog = errlog
        self.answers: list[Any] = []
        self.asked: list[str] = []
        self.notified = 0
        self.client: Any = None

    async def _answer(self, _ctx: Any, params: Any) -> Any:
        import mcp_types as types

        self.asked.append(params.message)
        answer = self.answers.pop(0) if self.answers else "decline"
        if answer == "away":
            import anyio

            await anyio.sleep(60)
        if answer == "decline":
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"approve": bool(answer)})

    async def _message(self, message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            self.notified += 1

    @asynccontextmanager
    async def session(self):
        """``async with host.session() as client``: the gateway started, connected."""
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=self.argv[0], args=self.argv[1:],
                                       env=gateway_env(), cwd=str(REPO))
        errlog = open(self.errlog or os.devnull, "w")  # noqa: SIM115 - closed below
        try:
            options: dict[str, Any] = {"mode": self.mode, "message_handler": self._message,
                                       "read_timeout_seconds": 60}
            if self.elicit:
                options["elicitation_callback"] = self._answer
            async with Client(stdio_client(params, errlog=errlog), **options) as client:
                self.client = client
                yield client
        finally:
            errlog.close()


def wire_of(tool: Any) -> dict[str, Any]:
    """An SDK ``Tool`` in MCP wire form."""
    return tool.model_dump(mode="json", by_alias=True, exclude_none=True)
