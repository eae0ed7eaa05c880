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


# -- a raw JSON-RPC server and throw-away config trees, for the trust-boundary tests ------
SCRIPTED_SERVER = REPO / "tests/tools/servers/scripted_tools_server.py"


def scripted_server(tmp_path, tools, name, log=None):
    """argv of scripted_tools_server.py serving ``tools`` (wire dicts) as server ``name``."""
    import json

    path = tmp_path / f"{name}-tools.json"
    path.write_text(json.dumps(tools), encoding="utf-8")
    argv = [sys.executable, str(SCRIPTED_SERVER), "--tools", str(path), "--name", name]
    return argv + (["--log", str(log)] if log is not None else [])


def served_calls(log):
    """``[(server, tool, arguments)]`` of every tools/call the scripted servers' log holds."""
    import json

    if not log.exists():
        return []
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    return [(e["server"], e["tool"], e["arguments"]) for e in entries
            if e["method"] == "tools/call"]


def write_config(root, *, script, grants, servers=(), surface_tools=None, policy=None,
                 pins=None, trusted_code=False):
    """A config tree at ``root``: one scripted agent ``runner`` in scenario ``trial``.

    ``servers``: ``[(name, argv)]``; ``surface_tools``: the surface's tools.json entries
    (the scenario then names ``surfaces/trial``); ``policy``/``pins``: its policy.json
    and pins.json objects. YAML files are written as JSON, which YAML reads as is.
    """
    import json
    import shlex

    (root / "agents").mkdir(parents=True)
    (root / "scenarios").mkdir()
    agent = {"name": "runner", "role": "worker", "persona": "Runs the trial.",
             "subscribes_to": [], "may_emit": ["trial.step"], "schedule": {"tick_every": 1},
             "model": {"backend": "scripted"}, "memory": {"window": 4},
             "tools": list(grants), "script": list(script)}
    (root / "agents/runner.yaml").write_text(json.dumps(agent, indent=1))
    scenario = {"name": "trial", "cast": ["runner"], "governor": {"max_ticks": len(script)},
                "servers": [{"name": n, "command": shlex.join(argv)} for n, argv in servers]}
    if trusted_code:
        scenario["trusted_code"] = True
    if surface_tools is not None:
        surface = root / "surfaces/trial"
        surface.mkdir(parents=True)
        (surface / "tools.json").write_text(json.dumps({"tools": surface_tools}, indent=1))
        if policy is not None:
            (surface / "policy.json").write_text(json.dumps(policy))
        if pins is not None:
            (surface / "pins.json").write_text(json.dumps({"tools": pins}))
        scenario["surface"] = "surfaces/trial"
    (root / "scenarios/trial.yaml").write_text(json.dumps(scenario, indent=1))
    return root


# -- a surface pinned under one server name, a scenario naming that server another ------
#: What the scenario's agent calls: mcp-server-time's tool, as the surface curates it.
TIME_TOOL = "get_current_time"


def imported_time_surface(out, server="a"):
    """Import mcp-server-time (a real subprocess) into ``out``, pinned to ``server``."""
    from workbench.surface.importer import import_surface

    import_surface([TIME_CMD], out, names=[server])
    return out


def renamed_config(root, imported, server="b", call=TIME_TOOL):
    """A config tree at ``root`` whose scenario ``trial`` runs ``imported`` over the server
    named ``server`` (mcp-server-time, whatever the pins call it); its agent calls ``call``.
    """
    from workbench.contracts.surface import load_pins, load_tools

    return write_config(root, grants=[call], servers=[(server, TIME_CMD)],
                        script=[{"call": call, "params": {"timezone": "UTC"},
                                 "say": "read the clock"}],
                        surface_tools=load_tools(imported), pins=load_pins(imported))
