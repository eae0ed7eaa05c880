from __future__ import annotations

import pytest

from workbench.contracts.manifest import AgentManifest
from workbench.errors import (
    CapabilityViolation,
    ToolCallError,
    ToolDenied,
    ToolNameError,
    ToolNotFound,
    WorkbenchError,
)
from workbench.tools.registry import ToolRegistry, ToolSpec


def manifest(*tools: str) -> AgentManifest:
    return AgentManifest(name="tester", role="worker", tools=list(tools))


class RecordingResolver:
    """A resolver that records every attribute access made on it."""

    def __init__(self, specs: dict[str, ToolSpec] | None = None):
        object.__setattr__(self, "accessed", [])
        object.__setattr__(self, "_specs", specs or {})
        object.__setattr__(self, "calls", [])

    def __getattribute__(self, name: str):
        if name not in ("accessed", "__class__", "__dict__"):
            object.__getattribute__(self, "accessed").append(name)
        return object.__getattribute__(self, name)

    def tool_names(self) -> list[str]:
        return sorted(self._specs)

    def get_spec(self, name: str) -> ToolSpec | None:
        return self._specs.get(name)

    def call_tool(self, name: str, params: dict) -> dict:
        self.calls.append((name, dict(params)))
        return {"remote": name, **params}


REMOTE = ToolSpec(
    name="remote_echo",
    description="Echo over the wire.",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}},
                  "required": ["text"]},
)


class TestCapabilityCheck:
    def test_ungranted_call_raises_before_any_transport_is_touched(self, registry):
        resolver = RecordingResolver({"remote_echo": REMOTE})
        registry.attach(resolver)
        assert resolver.accessed == []  # attaching only stores it
        with pytest.raises(CapabilityViolation) as info:
            registry.call("tester", manifest("oracle"), "remote_echo", {"text": "hi"})
        assert resolver.accessed == []
        assert info.value.reason == "not granted"
        assert info.value.agent == "tester" and info.value.tool == "remote_echo"
        assert "Granted: oracle" in str(info.value)

    def test_ungranted_in_process_tool_is_refused_too(self, registry):
        with pytest.raises(CapabilityViolation):
            registry.call("tester", manifest(), "oracle", {"seed": "x"})

    def test_violation_is_a_denial_and_a_workbench_error(self):
        assert issubclass(CapabilityViolation, ToolDenied)
        assert issubclass(CapabilityViolation, WorkbenchError)

    def test_guard_runs_after_grant_check_and_can_refuse(self, registry):
        seen = []

        def guard(agent, spec, params):
            seen.append((agent, spec.name))
            raise ToolDenied(agent, spec.name, "not approved")

        registry.add_guard(guard)
        with pytest.raises(CapabilityViolation):
            registry.call("tester", manifest(), "oracle", {"seed": "x"})
        assert seen == []
        with pytest.raises(ToolDenied) as info:
            registry.call("tester", manifest("oracle"), "oracle", {"seed": "x"})
        assert info.value.reason == "not approved"
        assert seen == [("tester", "oracle")]


class TestDispatch:
    def test_in_process_call(self, registry):
        result = registry.call("tester", manifest("oracle"), "oracle", {"seed": "dawn"})
        assert set(result) == {"omen", "index"}

    def test_granted_but_unregistered_raises_keyerror(self, registry):
        with pytest.raises(KeyError) as info:
            registry.call("tester", manifest("ghost"), "ghost", {})
        assert isinstance(info.value, ToolNotFound)
        assert "ghost" in str(info.value) and "known tools: oracle" in str(info.value)

    def test_resolver_serves_what_is_not_in_process(self, registry):
        resolver = RecordingResolver({"remote_echo": REMOTE})
        registry.attach(resolver)
        result = registry.call("tester", manifest("remote_echo"), "remote_echo", {"text": "a"})
        assert result == {"remote": "remote_echo", "text": "a"}
        assert resolver.calls == [("remote_echo", {"text": "a"})]

    def test_in_process_wins_over_resolver(self, registry):
        shadow = ToolSpec(name="oracle", description="remote oracle")
        resolver = RecordingResolver({"oracle": shadow})
        registry.attach(resolver)
        registry.call("tester", manifest("oracle"), "oracle", {"seed": "x"})
        assert resolver.calls == []


class TestValidation:
    def test_params_are_checked_against_the_schema_in_process(self, registry):
        with pytest.raises(ToolCallError) as info:
            registry.call("tester", manifest("oracle"), "oracle", {"seed": 3})
        assert info.value.kind == "tool_error"
        assert info.value.message == "invalid arguments: params.seed must be string"

    def test_params_are_checked_before_reaching_a_resolver(self, registry):
        resolver = RecordingResolver({"remote_echo": REMOTE})
        registry.attach(resolver)
        with pytest.raises(ToolCallError) as info:
            registry.call("tester", manifest("remote_echo"), "remote_echo", {})
        assert info.value.message == "invalid arguments: params must contain ['text'] properties"
        assert resolver.calls == []

    def test_schemas_fastjsonschema_cannot_compile_still_validate(self):
        reg = ToolRegistry()
        schema = {"type": "object", "properties": {"n": {"type": "integer"}},
                  "required": ["n"], "unevaluatedProperties": False,
                  "$schema": "https://json-schema.org/draft/2020-12/schema"}
        reg.register("count", "Counts.", lambda n: {"n": n}, input_schema=schema)
        assert reg.call("t", manifest("count"), "count", {"n": 2}) == {"n": 2}
        with pytest.raises(ToolCallError, match="invalid arguments: params"):
            reg.call("t", manifest("count"), "count", {"n": "two"})

    def test_validation_never_fills_defaults_into_the_params(self):
        reg = ToolRegistry()
        schema = {"type": "object", "properties": {
            "trip": {"type": "object", "properties": {
                "mode": {"type": "string", "default": "rail"}}},
            "days": {"type": "integer", "default": 3}}}
        reg.register("plan", "Plans.", lambda **kw: {"got": kw}, input_schema=schema)
        params = {"trip": {}}
        assert reg.call("t", manifest("plan"), "plan", params) == {"got": {"trip": {}}}
        assert params == {"trip": {}}

    def test_a_raising_tool_is_a_tool_error_with_its_message(self):
        reg = ToolRegistry()

        def boom() -> dict:
            raise RuntimeError("the well is dry")

        reg.register("boom", "Always fails.", boom)
        with pytest.raises(ToolCallError) as info:
            reg.call("t", manifest("boom"), "boom", {})
        assert (info.value.kind, info.value.message) == ("tool_error", "the well is dry")

    def test_a_non_dict_result_is_a_tool_error(self):
        reg = ToolRegistry()
        reg.register("bad", "Returns a list.", lambda: [1])
        with pytest.raises(ToolCallError, match="must return a JSON object"):
            reg.call("t", manifest("bad"), "bad", {})

    def test_signature_mismatch_without_schema_is_invalid_arguments(self):
        reg = ToolRegistry()
        reg.register("one", "Takes x.", lambda x: {"x": x})
        with pytest.raises(ToolCallError, match="invalid arguments"):
            reg.call("t", manifest("one"), "one", {"y": 1})


class TestRegistration:
    @pytest.mark.parametrize("name", ["", "has space", "slash/name", "x" * 129, "émoji", None])
    def test_invalid_names_are_refused(self, name):
        with pytest.raises(ToolNameError, match="not a valid tool name"):
            ToolRegistry().register(name, "d", lambda: {})

    @pytest.mark.parametrize("name", ["a", "get_current_time", "get-sum", "ns.tool", "x" * 128])
    def test_valid_names_are_accepted(self, name):
        assert ToolRegistry().register(name, "d", lambda: {}).name == name

    def test_duplicate_needs_replace(self, registry):
        with pytest.raises(ValueError, match="already registered"):
            registry.register("oracle", "again", lambda seed: {})
        registry.register("oracle", "again", lambda seed: {"omen": "x"}, replace=True)
        assert registry.spec("oracle").description == "again"

    def test_empty_description_and_bad_schema_are_refused(self):
        with pytest.raises(ValueError, match="description"):
            ToolRegistry().register("t", " ", lambda: {})
        with pytest.raises(ValueError, match="invalid input schema"):
            ToolRegistry().register("t", "d", lambda: {}, input_schema={"type": 12})

    @pytest.mark.parametrize("schema, kind", [("a string", "a string"), ([1], "a list")])
    def test_a_schema_that_is_not_an_object_is_refused_in_words(self, schema, kind):
        with pytest.raises(ValueError, match=f"a schema is a JSON object, got {kind}"):
            ToolRegistry().register("t", "d", lambda: {}, input_schema=schema)


class TestDescribe:
    def test_prefers_in_process_and_falls_back_to_resolver(self, registry):
        resolver = RecordingResolver({"remote_echo": REMOTE,
                                      "oracle": ToolSpec("oracle", "remote words")})
        registry.attach(resolver)
        specs = registry.describe(["oracle", "remote_echo", "nowhere"])
        assert [s.name for s in specs] == ["oracle", "remote_echo"]
        assert specs[0].description.startswith("Read an omen")
        assert specs[1].description == "Echo over the wire."

    def test_known_tools_and_transport(self, registry):
        registry.attach(RecordingResolver({"remote_echo": REMOTE}))
        assert registry.known_tools() == ["oracle", "remote_echo"]
        assert registry.transport_of("oracle") == "in-process"

    def test_to_wire_uses_mcp_field_names(self, registry):
        wire = registry.spec("oracle").to_wire()
        assert list(wire) == ["name", "title", "description", "inputSchema", "outputSchema",
                              "annotations"]


class TestNameRuleIsAFullMatch:
    """Issue 10 item 5: ``$`` matches before a final newline; the rule must not."""

    NAMES = ["oracle\n", "x" * 128 + "\n", "ok\r", "ok\n\n"]

    @pytest.mark.parametrize("name", NAMES)
    def test_a_trailing_newline_is_not_a_name(self, name):
        from workbench.contracts.names import TOOL_NAME_RE, check_tool_name

        assert TOOL_NAME_RE.match(name) is None
        with pytest.raises(ToolNameError):
            check_tool_name(name)
        with pytest.raises(ToolNameError):
            ToolRegistry().register(name, "d", lambda: {})

    @pytest.mark.parametrize("name", NAMES)
    def test_nor_a_grant(self, name):
        from pydantic import ValidationError

        with pytest.raises(ValidationError, match="not a valid tool name"):
            manifest(name)

    def test_agent_names_and_kinds_are_full_matches_too(self):
        from pydantic import ValidationError

        from workbench.contracts.events import check_kind

        with pytest.raises(ValidationError, match="not a valid name"):
            AgentManifest(name="tester\n", role="worker")
        assert not check_kind("oracle.spoke\n") and check_kind("oracle.spoke")
