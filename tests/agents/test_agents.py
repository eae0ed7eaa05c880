from __future__ import annotations

import pytest

from workbench.agents.base import ManifestAgent, model_for
from workbench.agents.handlers import FortuneTeller, build_agent
from workbench.agents.models import ModelRequest, ScriptedModel, StubModel
from workbench.agents.render import tools_block
from workbench.contracts.manifest import AgentManifest, ScriptStep
from workbench.errors import CapabilityViolation, ToolCallError
from workbench.tools.registry import ToolRegistry


def manifest(**kw) -> AgentManifest:
    data = {"name": "seer", "role": "worker", "may_emit": ["oracle.spoke"], **kw}
    return AgentManifest.model_validate(data)


class TestAvailableTools:
    def test_block_lists_only_granted_tools(self, registry):
        registry.register("secret", "Reads secrets.", lambda: {})
        agent = ManifestAgent(manifest(tools=["oracle"]), registry)
        block = agent.available_tools_block()
        assert block.splitlines()[0] == "AVAILABLE TOOLS:"
        assert "- oracle(seed: string): Read an omen" in block
        assert "secret" not in block
        assert "secret" not in agent.build_prompt()

    def test_no_grants_says_none(self, registry):
        agent = ManifestAgent(manifest(), registry)
        assert agent.available_tools_block() == "AVAILABLE TOOLS: none"

    def test_optional_params_are_marked(self):
        reg = ToolRegistry()
        reg.register("t", "T.", lambda a, b=1: {}, input_schema={
            "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
            "required": ["a"]})
        assert tools_block(reg.describe(["t"])) == \
            "AVAILABLE TOOLS:\n- t(a: string, b?: integer): T."


class TestCallTool:
    def test_call_tool_goes_through_the_registry(self, registry):
        agent = ManifestAgent(manifest(tools=["oracle"]), registry)
        assert "omen" in agent.call_tool("oracle", seed="x")

    def test_ungranted_call_raises_capability_violation(self, registry):
        agent = ManifestAgent(manifest(tools=[]), registry)
        with pytest.raises(CapabilityViolation):
            agent.call_tool("oracle", seed="x")

    def test_a_tool_param_called_name_does_not_clash(self):
        reg = ToolRegistry()
        reg.register("greet", "Greets.", lambda name: {"hi": name})
        agent = ManifestAgent(manifest(tools=["greet"]), reg)
        assert agent.call_tool("greet", name="Ada") == {"hi": "Ada"}


class TestHandlers:
    def test_fortune_teller_handler(self, registry):
        agent = build_agent(manifest(handler="fortune-teller", tools=["oracle"]), registry)
        assert isinstance(agent, FortuneTeller)

    def test_fortune_teller_without_grant_attempts_the_call_and_is_refused(self, config_dir):
        # No grant check of its own: it asks, the registry refuses, the ledger shows it.
        from workbench.engine.conductor import Conductor
        from workbench.tools.builtins import register_builtins

        path = config_dir / "agents" / "fortune-teller.yaml"
        path.write_text(path.read_text().replace("tools: [oracle]", "tools: []"))
        result = Conductor.from_config(config_dir, "oracle-grove",
                                       registry=register_builtins(ToolRegistry())).run(1)
        denied, failed = result.violations[0], result.ledger.of_kind("agent.failed")[0]
        assert (denied.actor, denied.payload["tool"]) == ("fortune-teller", "oracle")
        assert failed.payload["error"] == "CapabilityViolation"
        assert failed.caused_by == denied.seq


class TestModels:
    def test_stub_is_deterministic_and_depends_on_the_prompt(self):
        req = ModelRequest(agent="a", role="observer", prompt="p1")
        assert StubModel().respond(req) == StubModel().respond(req)
        texts = {StubModel().respond(ModelRequest("a", "observer", f"p{i}")).text
                 for i in range(40)}
        assert len(texts) > 3

    def test_stub_speaks_an_agents_own_lines_when_it_has_them(self):
        lines = ["Gulls over the breakwater.", "A trawler rounds the point.", "Fog rolls in."]
        manifest = AgentManifest.model_validate(
            {"name": "lookout", "role": "observer", "model": {"lines": lines}})
        model = model_for(manifest)
        said = {model.respond(ModelRequest("lookout", "observer", f"p{i}")).text
                for i in range(30)}
        assert said == set(lines)
        again = model_for(manifest).respond(ModelRequest("lookout", "observer", "p7"))
        assert again == model.respond(ModelRequest("lookout", "observer", "p7"))

    def test_lines_are_only_for_the_stub(self):
        with pytest.raises(ValueError, match="'lines' is for the stub backend"):
            AgentManifest.model_validate({
                "name": "s", "role": "worker", "script": [{"say": "hi"}],
                "model": {"backend": "scripted", "lines": ["x"]}})

    def test_scripted_plays_steps_in_order_and_loops(self):
        model = ScriptedModel([ScriptStep(say="one"),
                               ScriptStep(call="oracle", params={"seed": "s"}),
                               ScriptStep(say="three")])
        req = ModelRequest("a", "worker", "p")
        replies = [model.respond(req) for _ in range(4)]
        assert [r.text for r in replies] == ["one", None, "three", "one"]
        assert replies[1].tool_calls[0].tool == "oracle"
        assert replies[1].tool_calls[0].params == {"seed": "s"}


class TestCallsWhateverTheParams:
    def test_params_with_non_string_keys_still_reach_the_registry(self, registry):
        agent = ManifestAgent(manifest(tools=["oracle"]), registry)
        with pytest.raises(CapabilityViolation):
            agent.call_tool_with("secret", {1: "x"})  # refused by the boundary, not by Python
        with pytest.raises(ToolCallError, match="invalid arguments"):
            agent.call_tool_with("oracle", {1: "x", "seed": "s"})
        assert agent.call_tool_with("oracle", {"seed": "s"}) == agent.call_tool("oracle", seed="s")
