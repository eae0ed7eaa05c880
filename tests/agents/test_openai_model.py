"""The openai backend against a loopback server speaking the real Chat Completions protocol."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from chat_server import ChatServer, Fault, completion
from desk import API_KEY, write_desk

from workbench.engine.calls_log import read_calls_log, read_model_calls
from workbench.engine.conductor import Conductor
from workbench.errors import CassetteMiss, ModelError
from workbench.frames import violations_frame


def run_desk(config_dir, registry, ticks=1, **kw):
    conductor = Conductor.from_config(config_dir, "desk", registry=registry, **kw)
    return conductor.run(ticks)


def failures(result):
    return [e.payload for e in result.ledger.of_kind("agent.failed")]


class TestToolLoop:
    def test_requests_carry_granted_tools_and_answer_every_call(self, config_dir, chat_server,
                                                                desk_registry, api_key):
        write_desk(config_dir, chat_server.url)
        result = run_desk(config_dir, desk_registry)
        first, second = chat_server.requests
        assert chat_server.rejected == []  # the faithful checker accepted both requests
        oracle = desk_registry.spec("oracle")
        assert first["tools"] == [{"type": "function", "function": {
            "name": "oracle", "description": oracle.description,
            "parameters": dict(oracle.input_schema)}}]
        assert first["model"] == "desk-model" and first["temperature"] == 0
        assert [m["role"] for m in first["messages"]] == ["system", "user"]
        assert "AVAILABLE TOOLS:\n- oracle(seed: string)" in first["messages"][0]["content"]
        # The second request answers both calls: the granted result and the refusal.
        assistant, *tools = second["messages"][2:]
        ids = [c["id"] for c in assistant["tool_calls"]]
        assert ids == ["call00000", "call00001"]  # normalised, never the server's random ids
        assert [t["tool_call_id"] for t in tools] == ids
        assert "omen" in json.loads(tools[0]["content"])
        refusal = json.loads(tools[1]["content"])
        assert refusal["denied"] == "not granted" and "vault" in refusal["message"]
        denied = violations_frame(result)
        assert list(denied["tool"]) == ["vault"] and list(denied["reason"]) == ["not granted"]
        said = result.ledger.of_kind("clerk.said")
        assert [e.payload["text"] for e in said] == ["The omen is read; the vault stayed shut."]

    def test_ledger_holds_no_ids_times_or_token_counts(self, config_dir, chat_server,
                                                       desk_registry, api_key):
        write_desk(config_dir, chat_server.url)
        result = run_desk(config_dir, desk_registry)
        text = result.ledger.to_jsonl()
        assert "chatcmpl-" not in text and "call_" not in text
        assert "usage" not in text and "tokens" not in text and "latency" not in text
        (record_a, record_b) = result.model_calls
        assert record_a["usage"]["total_tokens"] == 49 and record_a["source"] == "live"
        assert record_a["response_id"].startswith("chatcmpl-")
        assert result.transcripts[0]["messages"][-1]["content"].startswith("The omen")

    def test_invalid_json_arguments_are_a_recorded_tool_error_fed_back(
            self, config_dir, chat_server, desk_registry, api_key):
        write_desk(config_dir, chat_server.url)
        chat_server.script.append(completion(None, [("oracle", '{"seed": "unclosed')]))
        result = run_desk(config_dir, desk_registry)
        called = result.ledger.of_kind("tool.called")[0].payload
        assert called["error"]["kind"] == "tool_error"
        assert called["arguments"] == '{"seed": "unclosed'
        fed_back = json.loads(chat_server.requests[1]["messages"][-1]["content"])
        assert "not a JSON object" in fed_back["error"]["message"]

    def test_a_dotted_tool_name_goes_by_a_valid_alias_and_maps_back(
            self, config_dir, chat_server, desk_registry, api_key):
        desk_registry.register("desk.stamp", "Stamps a paper.", lambda: {"stamped": True})
        write_desk(config_dir, chat_server.url)
        clerk = config_dir / "agents" / "clerk.yaml"
        clerk.write_text(clerk.read_text().replace("tools: [oracle]", "tools: [desk.stamp]"))
        from workbench.agents.render import function_name

        alias = function_name("desk.stamp")
        chat_server.script.append(completion(None, [(alias, {})]))
        result = run_desk(config_dir, desk_registry)
        assert chat_server.rejected == []
        assert chat_server.requests[0]["tools"][0]["function"]["name"] == alias
        assert result.ledger.of_kind("tool.called")[0].payload["result"] == {"stamped": True}

    def test_max_steps_bounds_a_turn(self, config_dir, chat_server, desk_registry, api_key):
        write_desk(config_dir, chat_server.url, max_steps=2)
        chat_server.brain = lambda body: completion(None, [("oracle", {"seed": "again"})])
        result = run_desk(config_dir, desk_registry)
        assert len(chat_server.requests) == 2
        assert len(result.ledger.of_kind("tool.called")) == 2
        assert result.ledger.of_kind("clerk.said") == []

    def test_max_model_calls_ends_the_run_as_budget(self, config_dir, chat_server,
                                                    desk_registry, api_key):
        write_desk(config_dir, chat_server.url)
        scenario = config_dir / "scenarios" / "desk.yaml"
        scenario.write_text(scenario.read_text() + "  max_model_calls: 3\n")
        result = run_desk(config_dir, desk_registry, ticks=5)
        assert len(chat_server.requests) == 3
        finished = result.ledger.events[-1].payload
        assert result.reason == "budget" and finished["budget"] == "max_model_calls"

    def test_fortune_teller_calls_the_oracle_then_asks_its_model(self, config_dir, chat_server,
                                                                 registry, api_key):
        path = config_dir / "agents" / "fortune-teller.yaml"
        path.write_text(path.read_text().replace(
            "model:\n  backend: stub",
            f"model:\n  backend: openai\n  model: seer\n  base_url: {chat_server.url}\n"
            f"  api_key_env: DESK_API_KEY"))
        chat_server.brain = lambda body: completion("The stones hum.")
        result = Conductor.from_config(config_dir, "oracle-grove", registry=registry).run(1)
        spoke = result.ledger.of_kind("oracle.spoke")[0].payload
        omen = result.ledger.of_kind("tool.called")[0].payload["result"]["omen"]
        # The model did not weave the omen in, so what is spoken is prefixed by it.
        assert spoke["text"] == f"{omen} The stones hum." and spoke["omen"] == omen
        assert f"THE OMEN: {omen}" in chat_server.requests[0]["messages"][0]["content"]


class TestFaults:
    def test_429_then_success_is_retried(self, config_dir, chat_server, desk_registry,
                                         api_key):
        write_desk(config_dir, chat_server.url)
        chat_server.script.append(Fault(429, "Rate limit reached.", {"Retry-After": "0"}))
        result = run_desk(config_dir, desk_registry)
        assert failures(result) == []
        assert [s for s, _ in chat_server.rejected] == [429]
        assert len(chat_server.requests) == 3  # the retried call, then the second step
        assert result.model_calls[0]["attempts"] == 2

    def test_repeated_500s_fail_the_turn_and_the_run_goes_on(self, config_dir, chat_server,
                                                             desk_registry, api_key):
        write_desk(config_dir, chat_server.url, max_retries=2)
        chat_server.script.extend([Fault(500), Fault(500), Fault(500)])
        result = run_desk(config_dir, desk_registry, ticks=2)
        (failed,) = failures(result)
        assert failed["kind"] == "model_error"
        assert "HTTP 500" in failed["message"] and "after 3 attempts" in failed["message"]
        assert result.reason == "ticks" and result.ticks == 2
        assert len(result.ledger.of_kind("clerk.said")) == 1  # tick 2 went ahead

    @pytest.mark.slow

    def test_the_api_key_is_in_no_file_the_run_wrote(self, tmp_path, config_dir, chat_server,
                                                     desk_registry, api_key, workbench_cli,
                                                     offline_env):
        write_desk(config_dir, chat_server.url, max_retries=1)
        chat_server.script.extend([Fault(500), Fault(500)])  # an error message, too
        out = tmp_path / "out"
        out.mkdir()
        run_desk(config_dir, desk_registry, ticks=2, ledger_path=out / "run.jsonl",
                 cassette=out / "run.cassette.jsonl")
        # A wrong key echoed back by the server is scrubbed from the recorded message.
        env = {**offline_env, "DESK_API_KEY": API_KEY + "-wrong"}
        cli = subprocess.run([*workbench_cli, "run", "desk", "--config", str(config_dir),
                              "--ledger", str(out / "cli.jsonl"), "--ticks", "1"],
                             capture_output=True, text=True, env=env, cwd=out)
        assert cli.returncode == 0, cli.stderr
        written = sorted(out.iterdir())
        assert {p.name for p in written} >= {"run.jsonl", "run.calls.jsonl",
                                             "run.cassette.jsonl", "cli.jsonl"}
        for path in written:
            assert API_KEY not in path.read_text(), path.name
        assert API_KEY not in cli.stdout + cli.stderr
        failed = [json.loads(line) for line in (out / "cli.jsonl").read_text().splitlines()
                  if '"agent.failed"' in line][0]["payload"]
        assert "HTTP 401" in failed["message"] and "DESK_API_KEY" in failed["message"]
        assert "***" in failed["message"]

    def test_timeout_connection_refused_no_choices_and_refusal(self, config_dir, chat_server,
                                                               desk_registry, api_key):
        write_desk(config_dir, chat_server.url, timeout=0.5, max_retries=0)
        chat_server.script.extend([
            Fault(delay=3.0, then=completion("too late")),
            {**completion("x"), "choices": []},
            completion(None, refusal="I cannot help with that."),
        ])
        result = run_desk(config_dir, desk_registry, ticks=3)
        kinds = [(f["kind"], f["message"]) for f in failures(result)]
        assert kinds[0][0] == "timeout" and "within 0.5 s" in kinds[0][1]
        assert kinds[1] == ("model_error", kinds[1][1]) and "no choices" in kinds[1][1]
        assert kinds[2] == ("refusal", "the model refused: I cannot help with that.")
        chat_server.stop()
        result = run_desk(config_dir, desk_registry)
        (failed,) = failures(result)
        assert failed["kind"] == "connection_error" and chat_server.url in failed["message"]

    def test_model_errors_are_workbench_errors(self):
        assert issubclass(CassetteMiss, ModelError)
        with pytest.raises(ValueError):
            ModelError("bad_kind", "x")


class TestCassette:
    def test_record_then_replay_with_the_server_stopped(self, tmp_path, config_dir,
                                                        chat_server, desk_registry, api_key):
        write_desk(config_dir, chat_server.url)
        tape = tmp_path / "desk.cassette.jsonl"
        recorded = run_desk(config_dir, desk_registry, ticks=2, cassette=tape)
        assert len(tape.read_text().splitlines()) == 4
        chat_server.stop()
        served = len(chat_server.requests)
        replayed = run_desk(config_dir, desk_registry, ticks=2, cassette=tape,
                            ledger_path=tmp_path / "replay.jsonl")
        assert replayed.final_hash == recorded.final_hash
        assert replayed.ledger.to_jsonl() == recorded.ledger.to_jsonl()
        assert len(chat_server.requests) == served
        assert {r["source"] for r in read_model_calls(tmp_path / "replay.calls.jsonl")} == \
            {"cassette"}
        assert all("model_call" not in r for r in
                   read_calls_log(tmp_path / "replay.calls.jsonl").values())

    def test_a_changed_prompt_fails_the_replay_with_one_line(self, tmp_path, config_dir,
                                                             chat_server, desk_registry,
                                                             api_key, workbench_cli,
                                                             offline_env):
        write_desk(config_dir, chat_server.url)
        tape = tmp_path / "desk.cassette.jsonl"
        run_desk(config_dir, desk_registry, ticks=2, cassette=tape)
        chat_server.stop()
        clerk = config_dir / "agents" / "clerk.yaml"
        clerk.write_text(clerk.read_text().replace("A careful clerk", "A hasty clerk"))
        with pytest.raises(CassetteMiss) as caught:
            run_desk(config_dir, desk_registry, ticks=2, cassette=tape)
        message = str(caught.value)
        assert "\n" not in message and "'clerk'" in message and "tick 1" in message
        assert "re-record" in message
        cli = subprocess.run([*workbench_cli, "run", "desk", "--config", str(config_dir),
                              "--cassette", str(tape), "--cassette-mode", "replay"],
                             capture_output=True, text=True, env=offline_env, cwd=tmp_path)
        assert cli.returncode == 2
        assert cli.stderr.strip().count("\n") == 0 and "re-record" in cli.stderr

    @pytest.mark.slow

    def test_cli_points_agents_elsewhere_and_records(self, tmp_path, config_dir, chat_server,
                                                     api_key, workbench_cli, offline_env):
        write_desk(config_dir, "http://127.0.0.1:9/v1")  # nothing listens there
        with ChatServer(lambda body: completion(f"I am {body['model']}."),
                        api_key=API_KEY) as other:
            env = {**offline_env, "DESK_API_KEY": API_KEY}
            tape = tmp_path / "t.jsonl"
            args = [*workbench_cli, "run", "desk", "--config", str(config_dir), "--ticks", "1",
                    "--model-url", other.url, "--model", "other-model", "--cassette", str(tape)]
            cli = subprocess.run(args, capture_output=True, text=True, env=env, cwd=tmp_path)
            assert cli.returncode == 0, cli.stderr
            assert "I am other-model." in cli.stdout
            assert [r["model"] for r in other.requests] == ["other-model"]
        replay = subprocess.run(args, capture_output=True, text=True, env=env, cwd=tmp_path)
        assert replay.returncode == 0 and "I am other-model." in replay.stdout
        hashes = [line.split("final_hash=")[1] for out in (cli.stdout, replay.stdout)
                  for line in out.splitlines() if "final_hash=" in line]
        assert hashes[0] == hashes[1]


def test_a_cassette_line_that_is_not_an_exchange_names_file_and_line(tmp_path):
    from workbench.agents.cassette import Cassette
    from workbench.errors import ConfigError

    tape = tmp_path / "bad.jsonl"
    tape.write_text(f'{{"fingerprint": "{"0" * 64}", "request": {{}}, "response": {{}}}}\n'
                    f'{{"nope": 1}}\n')
    with pytest.raises(ConfigError) as caught:
        Cassette(tape)
    assert str(caught.value).startswith(f"{tape}:2: fingerprint: ")
    with pytest.raises(ConfigError, match="allowed: auto, record, replay"):
        Cassette(tape, mode="rewind")
    assert Path(tape).read_text().count("\n") == 2  # nothing was lost


def test_a_failed_call_is_recorded_and_replays_as_the_same_failure(tmp_path, config_dir,
                                                                   chat_server, desk_registry,
                                                                   api_key):
    write_desk(config_dir, chat_server.url, max_retries=1)
    chat_server.script.extend([Fault(503), Fault(503)])
    tape = tmp_path / "t.jsonl"
    recorded = run_desk(config_dir, desk_registry, ticks=2, cassette=tape)
    assert failures(recorded)[0]["kind"] == "model_error"
    chat_server.stop()
    replayed = run_desk(config_dir, desk_registry, ticks=2, cassette=tape)
    assert replayed.ledger.to_jsonl() == recorded.ledger.to_jsonl()


def test_cassette_mode_without_a_cassette_is_one_clear_line(workbench_cli, offline_env,
                                                            repo_root):
    cli = subprocess.run([*workbench_cli, "run", "oracle-grove", "--cassette-mode", "replay"],
                         capture_output=True, text=True, env=offline_env, cwd=repo_root)
    assert cli.returncode == 2
    assert cli.stderr == "error: --cassette-mode replay needs --cassette PATH (the file to " \
                         "replay)\n"


def test_without_the_openai_extra_a_live_call_says_what_to_install(monkeypatch):
    import sys

    from workbench.agents.openai_model import OpenAIModel
    from workbench.contracts.manifest import ModelSpec
    from workbench.errors import MissingDependency

    monkeypatch.setitem(sys.modules, "openai", None)  # as if the extra were not installed
    model = OpenAIModel(ModelSpec(backend="openai", model="m", base_url="http://127.0.0.1:9/v1"))
    with pytest.raises(MissingDependency, match=r"tool-contract-workbench\[model\]"):
        model.complete({"model": "m", "messages": []}, agent="a", tick=1)


class TestSampling:
    def test_seed_and_reply_cap_are_sent_only_when_the_manifest_gives_them(self):
        from workbench.agents.openai_model import OpenAIModel
        from workbench.contracts.manifest import ModelSpec

        url = "http://127.0.0.1:9/v1"
        plain = OpenAIModel(ModelSpec(backend="openai", model="m", base_url=url))
        body = plain.request_body([{"role": "user", "content": "hi"}], [])
        assert "seed" not in body and "max_tokens" not in body
        given = OpenAIModel(ModelSpec(backend="openai", model="m", base_url=url, seed=7,
                                      max_tokens=64))
        body = given.request_body([{"role": "user", "content": "hi"}], [])
        assert (body["seed"], body["max_tokens"]) == (7, 64)

    def test_sampling_fields_belong_to_the_openai_backend(self):
        import pydantic

        from workbench.contracts.manifest import ModelSpec

        with pytest.raises(pydantic.ValidationError, match="'seed' and 'max_tokens' are for"):
            ModelSpec(backend="stub", seed=1, max_tokens=3)


def test_an_assistant_turn_with_only_tool_calls_sends_no_content_key():
    """llama-cpp-python's server answers HTTP 500 to "content": null beside tool calls."""
    lines = (Path(__file__).resolve().parents[2] / "config/cassettes/counting-house.jsonl"
             ).read_text().splitlines()
    bodies = [json.loads(line)["request"] for line in lines]
    assistants = [m for b in bodies for m in b["messages"] if m["role"] == "assistant"]
    assert assistants and all("content" not in m or m["content"] is not None
                              for m in assistants)
    assert any("tool_calls" in m and "content" not in m for m in assistants)
