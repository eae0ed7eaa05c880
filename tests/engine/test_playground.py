"""The playground: one request to a real loopback chat server, its calls through the registry."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from workbench.agents.cassette import Cassette
from workbench.agents.openai_model import OpenAIModel
from workbench.agents.render import function_name
from workbench.agents.replies import MAX_TOOL_CALLS
from workbench.contracts.manifest import AgentManifest, ModelSpec
from workbench.engine.hand_calls import HandCalls
from workbench.engine.playground import (
    USE_TOOLS,
    Playground,
    chat_model,
    default_system,
)
from workbench.errors import ConfigError
from workbench.surface.approval import ApprovalGuard, ApprovalPolicy
from workbench.tools.builtins import register_builtins
from workbench.tools.registry import ToolRegistry

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
from chat_server import ChatServer, completion  # noqa: E402

ASK = "Read me an omen for the mill."
CLERK = AgentManifest(name="clerk", role="worker", persona="A careful clerk at the desk.",
                      tools=["oracle", "shred", "desk.stamp"])


class Desk:
    """A registry with a granted read-only tool, one needing approval, and an ungranted one.

    Every tool that runs says so in ``ran``: a refused call leaves no trace there.
    """

    def __init__(self, allow: tuple[str, ...] = ()):
        self.ran: list[str] = []
        self.policy = ApprovalPolicy(allow=allow)
        reg = register_builtins(ToolRegistry())
        reg.register("vault", "Opens the vault.", lambda: self._ran("vault", {"gold": 100}))
        reg.register("shred", "Shreds a document.", lambda what: self._ran("shred", {"gone": what}),
                     input_schema={"type": "object", "properties": {"what": {"type": "string"}},
                                   "required": ["what"]})
        reg.register("desk.stamp", "Stamps the date.", lambda: self._ran("stamp", {"ok": True}),
                     annotations={"readOnlyHint": True})
        ApprovalGuard(self.policy).install(reg)
        self.registry = reg

    def _ran(self, name: str, result: dict) -> dict:
        self.ran.append(name)
        return result


@pytest.fixture
def server(keyless_chat_server):
    return keyless_chat_server


def live(server: ChatServer, **spec) -> OpenAIModel:
    return OpenAIModel(ModelSpec(backend="openai", model="desk-model", base_url=server.url,
                                 timeout=10, max_retries=0, **spec))


def playground(model: OpenAIModel, desk: Desk | None = None, **kwargs) -> Playground:
    desk = desk or Desk()
    return Playground(desk.registry, "clerk", CLERK, model, **kwargs)


class TestTheRequest:
    def test_one_request_with_the_persona_the_text_and_only_the_granted_tools(self, server):
        pg = playground(live(server))
        turn = pg.ask(ASK)
        assert server.requests == [turn.request]  # one model call, nothing sent back
        messages = turn.request["messages"]
        assert [m["role"] for m in messages] == ["system", "user"]
        assert messages[0]["content"] == ("You are clerk, a worker. A careful clerk at the "
                                          f"desk.\n{USE_TOOLS}")
        assert messages[1]["content"] == ASK
        names = [t["function"]["name"] for t in turn.request["tools"]]
        assert names == ["oracle", "shred", function_name("desk.stamp")]  # never vault
        assert turn.reply_text == "I read 2 messages." and turn.calls == () and turn.error is None

    def test_the_tools_are_rendered_as_a_run_renders_them(self, server):
        from workbench.agents.render import function_definitions

        desk = Desk()
        turn = playground(live(server), desk).ask(ASK)
        assert turn.request["tools"] == function_definitions(desk.registry.describe(CLERK.tools))

    def test_a_system_message_of_ones_own_and_no_tools_without_grants(self, server):
        bare = AgentManifest(name="idler", role="observer")
        pg = Playground(Desk().registry, "idler", bare, live(server), system="Be brief.")
        turn = pg.ask(ASK)
        assert turn.request["messages"][0] == {"role": "system", "content": "Be brief."}
        assert "tools" not in turn.request
        assert default_system(bare) == f"You are idler, a observer.\n{USE_TOOLS}"


class TestCallsThroughTheRegistry:
    def test_a_granted_call_runs_and_lands_on_the_hand_ledger(self, server):
        hand = HandCalls()
        desk = Desk()
        pg = playground(live(server), desk, hand=hand)
        server.script.append(completion("Reading.", [("oracle", {"seed": "mill"})]))
        turn = pg.ask(ASK)
        (tool, params, outcome), = turn.calls
        assert (tool, params, outcome.outcome) == ("oracle", {"seed": "mill"}, "ok")
        assert "omen" in outcome.result and turn.reply_text == "Reading."
        assert [e.kind for e in hand.ledger] == ["tool.called"]
        assert hand.ledger.events[0].payload["params"] == {"seed": "mill"}
        assert hand.outcomes == [outcome] and len(server.requests) == 1

    def test_an_ungranted_tool_is_refused_and_nothing_is_dispatched(self, server):
        desk = Desk()
        pg = playground(live(server), desk)
        server.script.append(completion(None, [("vault", {})]))
        (tool, _, outcome), = pg.ask(ASK).calls
        assert (tool, outcome.outcome, outcome.reason) == ("vault", "denied", "not granted")
        assert [e.kind for e in pg.hand.ledger] == ["tool.denied"]
        assert pg.hand.ledger.events[0].payload["reason"] == "not granted"
        assert desk.ran == []

    @pytest.mark.parametrize(("allow", "outcome", "ran"), [
        ((), "denied", []), (("shred",), "ok", ["shred"])])
    def test_a_call_needing_approval_runs_only_when_approved(self, server, allow, outcome, ran):
        desk = Desk(allow=allow)
        pg = playground(live(server), desk)
        server.script.append(completion(None, [("shred", {"what": "the ledger"})]))
        (_, _, got), = pg.ask(ASK).calls
        assert got.outcome == outcome and desk.ran == ran
        if outcome == "denied":
            assert got.reason == "not approved"
            assert [r.tool for r in desk.policy.refused] == ["shred"]

    def test_a_wire_alias_is_mapped_back_to_its_tool(self, server):
        desk = Desk()
        pg = playground(live(server), desk)
        server.script.append(completion(None, [(function_name("desk.stamp"), {})]))
        (tool, _, outcome), = pg.ask(ASK).calls
        assert (tool, outcome.outcome, desk.ran) == ("desk.stamp", "ok", ["stamp"])

    def test_the_schema_applies(self, server):
        desk = Desk(allow=("shred",))
        pg = playground(live(server), desk)
        server.script.append(completion(None, [("shred", {"what": 7})]))
        (_, _, outcome), = pg.ask(ASK).calls
        assert outcome.outcome == "tool_error" and desk.ran == []

    def test_a_call_written_as_json_text_is_made_when_the_model_says_so(self, server):
        text = json.dumps({"name": "oracle", "arguments": {"seed": "mill"}})
        server.script.extend([completion(text), completion(text)])
        plain = playground(live(server)).ask(ASK)
        assert plain.calls == () and plain.reply_text == text  # never guessed
        parsed = playground(live(server, tool_calls_in_text="json")).ask(ASK)
        (tool, params, outcome), = parsed.calls
        assert (tool, params, outcome.outcome) == ("oracle", {"seed": "mill"}, "ok")


class TestHostileReplies:
    def test_arguments_that_are_not_an_object_never_reach_the_registry(self, server):
        desk = Desk()
        pg = playground(live(server), desk)
        server.script.append(completion(None, [
            (function_name("desk.stamp"), '["a", "list"]'), ("desk.stamp", "{not json"),
            ("vault", "42")]))
        turn = pg.ask(ASK)
        assert [(t, p, o.outcome) for t, p, o in turn.calls] == [
            ("desk.stamp", {}, "tool_error")] * 2 + [("vault", {}, "tool_error")]
        assert desk.ran == []
        events = pg.hand.ledger.events
        # Recorded as a run records it: tool.called, the error, and what the model wrote.
        assert [e.kind for e in events] == ["tool.called"] * 3
        assert [e.tick for e in events] == [1, 2, 3]
        assert "got list, not an object" in events[0].payload["error"]["message"]
        assert events[1].payload["arguments"] == "{not json"
        assert "send the arguments as one JSON object" in turn.calls[1][2].message

    def test_a_flood_of_calls_is_an_error_and_calls_nothing(self, server):
        desk = Desk()
        pg = playground(live(server), desk)
        server.script.append(completion(None, [("desk.stamp", {})] * (MAX_TOOL_CALLS + 1)))
        turn = pg.ask(ASK)
        assert turn.calls == () and desk.ran == [] and len(pg.hand) == 0
        assert turn.error.startswith("model_error: ") and f"at most {MAX_TOOL_CALLS}" in turn.error

    def test_a_refusal_and_a_server_gone_are_turns_with_errors(self, server):
        pg = playground(live(server))
        server.script.append(completion(refusal="I will not."))
        assert pg.ask(ASK).error == "refusal: the model refused: I will not."
        server.stop()
        gone = pg.ask(ASK)
        assert gone.error.startswith("connection_error: cannot reach ") and gone.calls == ()
        assert [t.error is not None for t in pg.turns] == [True, True]


class TestCassettes:
    def record(self, server, path, text=ASK, **spec) -> Playground:
        cassette = Cassette(path, mode="record", provenance={"model": "Loopback Desk"})
        pg = playground(OpenAIModel(live(server, **spec).spec, cassette=cassette))
        server.script.append(completion("Stamped.", [(function_name("desk.stamp"), {}),
                                                     ("vault", {})]))
        pg.ask(text)
        cassette.close()
        return pg

    def test_a_recorded_turn_replays_the_same_with_the_server_gone(self, server, tmp_path):
        path = tmp_path / "desk.jsonl"
        recorded = self.record(server, path)
        server.stop()
        pg = playground(chat_model(CLERK, cassette=path))
        assert pg.source == f"replaying {path} (Loopback Desk)"
        replayed = pg.ask(ASK)
        assert replayed == recorded.turns[0]  # text, request, reply, calls and ledger events
        assert [(t, o.outcome) for t, _, o in replayed.calls] == [("desk.stamp", "ok"),
                                                                  ("vault", "denied")]
        assert pg.hand.ledger.final_hash == recorded.hand.ledger.final_hash

    def test_a_request_not_in_the_cassette_says_a_live_model_is_needed(self, server, tmp_path):
        path = tmp_path / "desk.jsonl"
        self.record(server, path)
        server.stop()
        pg = playground(chat_model(CLERK, cassette=path))
        turn = pg.ask("Something nobody asked before.")
        assert turn.error.startswith(f"model_error: this request is not in the cassette {path}")
        assert "needs a live model" in turn.error and "url=" in turn.error
        assert turn.calls == () and len(pg.hand) == 0

    def test_recorded_requests_lists_only_what_this_playground_can_replay(self, server,
                                                                          tmp_path):
        path = tmp_path / "desk.jsonl"
        cassette = Cassette(path, mode="record")
        model = OpenAIModel(live(server).spec, cassette=cassette)
        playground(model).ask(ASK)
        playground(model).ask(ASK)  # asked twice, listed once
        playground(model, system="Another prompt.").ask("Other.")
        cassette.close()
        assert playground(chat_model(CLERK, cassette=path)).recorded_requests() == [ASK]
        other = playground(chat_model(CLERK, cassette=path), system="Another prompt.")
        assert other.recorded_requests() == ["Other."]
        assert playground(live(server)).recorded_requests() == []

    def test_a_replay_reads_the_text_call_parser_from_the_provenance(self, server, tmp_path):
        path = tmp_path / "text.jsonl"
        cassette = Cassette(path, mode="record", provenance={"tool_calls_in_text": "json"})
        pg = playground(OpenAIModel(live(server, tool_calls_in_text="json").spec,
                                    cassette=cassette))
        server.script.append(completion('<tool_call>{"name": "oracle", "arguments": '
                                        '{"seed": "x"}}</tool_call>'))
        assert pg.ask(ASK).calls[0][2].ok
        cassette.close()
        server.stop()
        replay = playground(chat_model(CLERK, cassette=path, model="desk-model"))
        assert replay.model.spec.tool_calls_in_text is None  # only the cassette says so
        assert replay.ask(ASK).calls[0][:2] == ("oracle", {"seed": "x"})


class TestChatModel:
    def test_the_name_comes_from_the_recorded_requests_then_the_manifest(self, server,
                                                                         tmp_path):
        path = tmp_path / "desk.jsonl"
        TestCassettes().record(server, path)
        assert chat_model(CLERK, cassette=path).model == "desk-model"
        assert chat_model(CLERK, cassette=path, model="other").model == "other"
        seer = AgentManifest(name="seer", role="worker", model={
            "backend": "openai", "model": "llama3.2", "seed": 3,
            "base_url": "http://127.0.0.1:11434/v1"})
        asked = chat_model(seer, url=server.url)
        assert (asked.model, asked.url, asked.spec.seed) == ("llama3.2", server.url, 3)
        assert chat_model(seer).url == "http://127.0.0.1:11434/v1"

    @pytest.mark.parametrize(("kwargs", "said"), [
        ({}, "give a cassette to replay or the URL"),
        ({"url": "http://127.0.0.1:9/v1"}, "no model name"),
        ({"url": "ftp://x", "model": "m"}, "must start with http://"),
        ({"cassette": "nowhere.jsonl"}, "no such cassette"),
        ({"cassette": "nowhere.jsonl", "url": "http://127.0.0.1:9/v1"}, "not both"),
    ])
    def test_what_it_cannot_build_it_says(self, kwargs, said):
        with pytest.raises(ConfigError, match=said):
            chat_model(AgentManifest(name="seer", role="worker"), **kwargs)
