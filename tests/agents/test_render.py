from __future__ import annotations

import pytest

from workbench.agents.base import ManifestAgent
from workbench.agents.render import (
    FUNCTION_NAME_RE,
    function_definition,
    function_definitions,
    function_name,
    function_names,
    tool_line,
    tool_text,
    tools_block,
)
from workbench.contracts.manifest import AgentManifest
from workbench.tools.registry import ToolSpec

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"},
                                           "days": {"type": ["integer", "null"]}},
          "required": ["city"]}


class TestOneRenderer:
    def test_the_block_and_the_function_definitions_show_the_same_tool(self, registry):
        agent = ManifestAgent(AgentManifest(name="a", role="worker", tools=["oracle"]), registry)
        (spec,) = agent.available_tools()
        assert tool_line(spec) in agent.build_prompt()
        assert tools_block([spec]) in agent.build_prompt()
        fn = function_definition(spec)["function"]
        assert fn["description"] == spec.description and spec.description in tool_line(spec)
        assert fn["parameters"] == dict(spec.input_schema)

    def test_types_and_optional_parameters(self):
        spec = ToolSpec("weather", "Forecast.", input_schema=SCHEMA)
        assert tool_line(spec) == "- weather(city: string, days?: integer|null): Forecast."

    def test_a_tool_without_schema_takes_an_empty_object(self):
        fn = function_definition(ToolSpec("ping", "Ping."))["function"]
        assert fn["parameters"] == {"type": "object", "properties": {}}
        assert tools_block([]) == "AVAILABLE TOOLS: none"

    @pytest.mark.parametrize("schema", ["not a schema", [{"type": "object"}],
                                        {"type": "object", "properties": "x"},
                                        {"type": "object", "properties": {}, "required": "a"}])
    def test_a_schema_of_the_wrong_shape_renders_as_no_parameters(self, schema):
        spec = ToolSpec("odd", "Odd.", input_schema=schema)
        assert tool_line(spec) == "- odd(): Odd."
        assert tool_text(spec) == "odd\nOdd."
        assert function_definition(spec)["function"]["parameters"]["type"] == "object"


class TestFunctionNames:
    def test_valid_names_are_kept(self):
        assert function_name("get_current_time") == "get_current_time"
        assert function_name("convert-time") == "convert-time"

    def test_other_mcp_names_get_distinct_valid_aliases(self):
        names = ["time.now", "time_now", "a" * 128, "a" * 127 + "b"]
        aliases = [function_name(n) for n in names]
        assert all(FUNCTION_NAME_RE.match(a) for a in aliases)
        assert len(set(aliases)) == len(names)

    def test_aliases_map_back(self):
        specs = [ToolSpec("time.now", "Now."), ToolSpec("echo", "Echo.")]
        mapping = function_names(specs)
        assert mapping == {function_name("time.now"): "time.now", "echo": "echo"}
        assert [d["function"]["name"] for d in function_definitions(specs)] == list(mapping)
