"""Shared data for the surface tests (conftest.py names are taken by tests/conftest.py)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EVERYTHING = REPO / "external/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
TIME_CMD = [sys.executable, "-m", "mcp_server_time"]
EVERYTHING_CMD = ["node", str(EVERYTHING), "stdio"]
DEMO_CMD = [sys.executable, "-m", "workbench.surface.demo_server"]


def obj(**props):
    """An object schema whose properties are all required."""
    return {"type": "object", "properties": props, "required": sorted(props)}


WEATHER = {
    "name": "get_weather",
    "title": "Weather",
    "description": "Get the weather forecast for a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name."},
            "units": {"type": "string", "enum": ["metric", "imperial"]},
        },
        "required": ["city"],
    },
    "annotations": {"readOnlyHint": True},
}
SEND = {
    "name": "send_email",
    "description": "Send an email.",
    "parameters": obj(to={"type": "string"}, body={"type": "string"}),
}


class WireResolver:
    """A ToolResolver over wire tools held in memory: a stand-in server for pure tests.

    ``calls`` records exactly what reached it; ``tools`` may be replaced to simulate the
    server re-describing itself (what a real server does in test_demo_server.py).
    """

    def __init__(self, tools):
        self.tools = {t["name"]: t for t in tools}
        self.calls = []

    def tool_names(self):
        return sorted(self.tools)

    def get_spec(self, name):
        from workbench.tools.registry import ToolSpec

        wire = self.tools.get(name)
        if wire is None:
            return None
        return ToolSpec(name=name, description=wire.get("description", ""),
                        title=wire.get("title"), input_schema=wire.get("inputSchema"),
                        output_schema=wire.get("outputSchema"),
                        annotations=wire.get("annotations"))

    def call_tool(self, name, params):
        self.calls.append((name, params))
        return {"received": dict(params)}
