"""The built-in MCP server: the same tools as in-process, errors as isError with the message,
stdio and Streamable HTTP, and a client no one here wrote (the official MCP Inspector)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest
from mcp_helpers import INSPECTOR

from workbench.errors import ToolCallError
from workbench.tools.builtins import BUILTIN_TOOLS, oracle, register_builtins
from workbench.tools.mcp import MCPConnection
from workbench.tools.mcp.server import build_server
from workbench.tools.registry import ToolRegistry


class Grants:
    tools = ("oracle", "dry_well")


def in_process_wire() -> list[dict]:
    registry = register_builtins(ToolRegistry())
    return [registry.spec(t["name"]).to_wire() for t in BUILTIN_TOOLS]


def dry_well(depth: int) -> dict:
    raise ValueError(f"the well is dry at {depth} fathoms")


DRY_WELL = {
    "name": "dry_well",
    "description": "Always fails.",
    "run": dry_well,
    "input_schema": {"type": "object", "properties": {"depth": {"type": "integer"}},
                     "required": ["depth"]},
    "output_schema": {"type": "object"},
}


async def call_in_memory(server, name: str, args: dict):
    from mcp import Client

    async with Client(server) as client:
        listing = await client.list_tools()
        return listing, await client.call_tool(name, args)


class TestSameToolsAsInProcess:
    def test_tools_list_is_the_registrys_wire_form(self):
        listing, _ = asyncio.run(call_in_memory(build_server(), "oracle", {"seed": "a"}))
        served = [t.model_dump(mode="json", by_alias=True, exclude_none=True)
                  for t in listing.tools]
        assert served == in_process_wire()

    def test_over_stdio_the_spec_is_identical_too(self, oracle_registry):
        local = register_builtins(ToolRegistry())
        for tool in BUILTIN_TOOLS:
            remote = oracle_registry.spec(tool["name"])
            assert remote.run is None
            assert remote.to_wire() == local.spec(tool["name"]).to_wire()

    def test_results_are_byte_identical(self, oracle_registry):
        for seed in ("dawn", "", "ünïcødé ✨", "x" * 5000):
            assert oracle_registry.call("seer", Grants, "oracle", {"seed": seed}) == oracle(seed)


class TestErrors:
    def test_an_exception_reaches_the_client_as_is_error_with_its_message(self):
        server = build_server([DRY_WELL])
        _, result = asyncio.run(call_in_memory(server, "dry_well", {"depth": 3}))
        assert result.is_error is True
        assert [block.text for block in result.content] == ["the well is dry at 3 fathoms"]

    def test_the_message_matches_the_in_process_tool_error(self):
        local = ToolRegistry()
        local.register(**DRY_WELL)
        with pytest.raises(ToolCallError) as in_process:
            local.call("digger", Grants, "dry_well", {"depth": 3})
        _, result = asyncio.run(call_in_memory(build_server([DRY_WELL]), "dry_well",
                                               {"depth": 3}))
        assert in_process.value.to_payload() == {"kind": "tool_error",
                                                 "message": result.content[0].text}


class TestStreamableHttp:
    def test_serves_the_builtins_at_slash_mcp(self, http_oracle):
        assert http_oracle.endswith("/mcp")
        with MCPConnection(http_oracle) as conn:
            assert conn.transport == "http"
            assert conn.list_tools() == in_process_wire()
            assert conn.call_tool("oracle", {"seed": "noon"}) == oracle("noon")
            assert conn.server_name == "workbench"

    def test_workbench_serve_parses_http_and_host(self):
        import argparse

        from workbench.cli import serve

        parser = argparse.ArgumentParser(prog="workbench")
        serve.register(parser.add_subparsers())
        args = parser.parse_args(["serve", "--http", "8765"])
        assert (args.http, args.host) == (8765, "127.0.0.1")

    def test_help_names_both_transports(self):
        out = subprocess.run([sys.executable, "-m", "workbench.cli", "serve", "--help"],
                             capture_output=True, text=True, check=True).stdout
        assert "--http PORT" in out and "stdio" in out

    def test_the_trusted_module_takes_no_arguments(self):
        # `-m workbench.tools.mcp.server` with nothing after it is the one command trusted
        # as our own server; any argument is refused in one line, pointing to `serve`.
        out = subprocess.run([sys.executable, "-m", "workbench.tools.mcp.server", "--http",
                              "8765"], capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and out.stderr.count("\n") == 1
        assert "workbench serve --http PORT" in out.stderr


@pytest.mark.external
class TestMCPInspector:
    """The official MCP Inspector (npm) in CLI mode talks to our server.

    It lists over stdio (spawning our server itself) and calls over Streamable HTTP, so
    both transports meet a client no one here wrote without paying for a second spawn.
    """

    def inspector(self, *args: str) -> dict:
        out = subprocess.run([str(INSPECTOR), "--cli", *args], capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    def test_lists_our_tools_over_stdio(self, node):
        listing = self.inspector(sys.executable, "-m", "workbench.tools.mcp.server",
                                 "--method", "tools/list")
        assert listing["tools"] == in_process_wire()

    def test_calls_oracle_over_http(self, node, http_oracle):
        result = self.inspector(http_oracle, "--method", "tools/call", "--tool-name",
                                "oracle", "--tool-arg", "seed=dusk")
        assert result["isError"] is False
        assert result["structuredContent"] == oracle("dusk")
