from __future__ import annotations

import json

import pytest

from workbench.agents.cassette import Cassette, fingerprint
from workbench.errors import CassetteMiss, ConfigError

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0}


class TestFingerprint:
    def test_key_order_does_not_matter_content_does(self):
        same = {"temperature": 0, "messages": BODY["messages"], "model": "m"}
        assert fingerprint(BODY) == fingerprint(same)
        assert fingerprint(BODY) != fingerprint({**BODY, "model": "other"})


class TestRecordAndReplay:
    def test_auto_records_a_new_file_then_replays_it(self, tmp_path):
        path = tmp_path / "c.jsonl"
        tape = Cassette(path)
        assert tape.mode == "record" and not tape.replaying
        tape.record(BODY, "a", 1, response={"n": 1})
        tape.record(BODY, "a", 2, response={"n": 2})
        tape.record({**BODY, "model": "x"}, "a", 3, error={"kind": "model_error",
                                                             "message": "HTTP 500"})
        tape.close()
        line = json.loads(path.read_text().splitlines()[0])
        assert line["fingerprint"] == fingerprint(BODY) and line["request"] == BODY
        replay = Cassette(path)
        assert replay.mode == "replay" and len(replay) == 3
        # Identical requests are answered in recorded order, then the last one again.
        assert [replay.lookup(BODY, "a", t)["response"]["n"] for t in (1, 2, 3)] == [1, 2, 2]
        assert replay.lookup({**BODY, "model": "x"}, "a", 3)["error"]["message"] == "HTTP 500"

    def test_a_request_not_recorded_is_a_miss_naming_agent_and_tick(self, tmp_path):
        path = tmp_path / "c.jsonl"
        with_one = Cassette(path, "record")
        with_one.record(BODY, "a", 1, response={})
        with_one.close()
        with pytest.raises(CassetteMiss) as caught:
            Cassette(path, "replay").lookup({**BODY, "temperature": 1}, "scribe", 7)
        text = str(caught.value)
        assert "'scribe' at tick 7" in text and "re-record" in text and "\n" not in text

    def test_replay_of_a_missing_file_and_record_over_replay_are_refused(self, tmp_path):
        with pytest.raises(ConfigError, match="no such cassette"):
            Cassette(tmp_path / "none.jsonl", "replay")
        path = tmp_path / "c.jsonl"
        path.write_text("")
        with pytest.raises(ValueError, match="not record"):
            Cassette(path, "replay").record(BODY, "a", 1, response={})


FP = fingerprint(BODY)
DROP = object()


def line(**fields):
    """One cassette line: a good exchange with ``fields`` changed (DROP removes one)."""
    exchange = {"fingerprint": FP, "agent": "a", "tick": 1, "request": BODY,
                "response": {"choices": []}}
    exchange.update(fields)
    return json.dumps({k: v for k, v in exchange.items() if v is not DROP}).encode()


def nested(depth):
    return ("[" * depth + "]" * depth).encode()


#: (id, the second line of a cassette, what the one-line error must name)
HOSTILE = [
    ("fingerprint-a-list", line(fingerprint=[FP]), "fingerprint"),
    ("fingerprint-an-object", line(fingerprint={"a": 1}), "fingerprint"),
    ("fingerprint-not-a-digest", line(fingerprint="x"), "fingerprint"),
    ("not-utf8", line(agent="caf\xe9").replace(b"\\u00e9", b"\xe9"), "UTF-8"),
    ("not-json", b"{nope", "not JSON"),
    ("a-list", b"[1, 2]", "an object"),
    ("nested-deep", nested(100_000), "nested"),
    ("request-a-string", line(request="hi"), "request"),
    ("response-a-list", line(response=[1]), "response"),
    ("response-a-string", line(response="hi"), "response"),
    ("response-and-error", line(error={"kind": "model_error", "message": "x"}),
     "response or error"),
    ("neither", line(response=DROP), "response or error"),
    ("error-a-string", line(response=DROP, error="boom"), "error"),
    ("error-without-kind", line(response=DROP, error={"message": "x"}), "error.kind"),
    ("error-unknown-kind", line(response=DROP, error={"kind": "explode", "message": "x"}),
     "error.kind"),
    ("error-kind-a-list", line(response=DROP, error={"kind": ["timeout"], "message": "x"}),
     "error.kind"),
    ("error-message-a-number", line(response=DROP, error={"kind": "timeout", "message": 5}),
     "error.message"),
]


class TestHostileCassette:
    @pytest.mark.parametrize("bad,named", [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
    def test_each_is_one_config_error_naming_path_line_and_field(self, tmp_path, bad, named):
        path = tmp_path / "tape.jsonl"
        path.write_bytes(line() + b"\n" + bad + b"\n")
        with pytest.raises(ConfigError) as caught:
            Cassette(path)
        message = str(caught.value)
        assert caught.value.line == 2 and message.startswith(f"{path}:2: ")
        assert named in message and "re-record" in message
        assert "\n" not in message and len(message) < 400
        assert path.read_bytes().endswith(bad + b"\n")  # nothing was lost

    def test_a_line_over_the_cap_is_refused_without_reading_it_whole(self, tmp_path,
                                                                     monkeypatch):
        from workbench.agents.cassette import LINE_BYTES_ENV

        monkeypatch.setenv(LINE_BYTES_ENV, "4096")
        path = tmp_path / "tape.jsonl"
        path.write_bytes(line() + b"\n" + line(agent="x" * 10_000) + b"\n")
        with pytest.raises(ConfigError) as caught:
            Cassette(path)
        assert caught.value.line == 2 and "over 4096 bytes" in str(caught.value)
        assert LINE_BYTES_ENV in str(caught.value)

    def test_a_hostile_response_replays_as_a_model_error_and_the_run_goes_on(
            self, tmp_path, config_dir, chat_server, desk_registry, api_key):
        from desk import write_desk

        from workbench.engine.conductor import Conductor

        write_desk(config_dir, chat_server.url)
        tape = tmp_path / "desk.jsonl"
        Conductor.from_config(config_dir, "desk", registry=desk_registry,
                              cassette=tape).run(1)
        chat_server.stop()
        lines = [json.loads(raw) for raw in tape.read_text().splitlines()]
        lines[0]["response"]["choices"][0]["message"]["tool_calls"] = "oracle"
        tape.write_text("".join(json.dumps(x) + "\n" for x in lines))
        result = Conductor.from_config(config_dir, "desk", registry=desk_registry,
                                       cassette=tape, cassette_mode="replay").run(1)
        (failed,) = [e.payload for e in result.ledger.of_kind("agent.failed")]
        assert failed["kind"] == "model_error" and "tool_calls" in failed["message"]
        assert result.reason == "ticks"


HOLDER = """
import sys
from workbench.agents.cassette import Cassette
body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0}
tape = Cassette(sys.argv[1], "record")
tape.record(body, "a", 1, response={"n": 1})
print("recording", flush=True)
sys.stdin.readline()
tape.record(body, "a", 2, response={"n": 2})
tape.close()
"""


class TestOneRecorder:
    def test_a_second_recorder_is_refused_at_once_and_the_first_keeps_its_file(self,
                                                                               tmp_path):
        path = tmp_path / "tape.jsonl"
        first = Cassette(path, "record")
        first.record(BODY, "a", 1, response={"n": 1})
        with pytest.raises(ConfigError) as caught:
            Cassette(path, "record")
        message = str(caught.value)
        assert str(path) in message and "being recorded" in message and "\n" not in message
        first.record(BODY, "a", 2, response={"n": 2})
        first.close()
        replay = Cassette(path, "replay")
        assert [replay.lookup(BODY, "a", t)["response"]["n"] for t in (1, 2)] == [1, 2]
        Cassette(path, "record").close()  # once closed, the next recording may start

    def test_a_cli_run_recording_another_process_s_cassette_is_refused_with_one_line(
            self, tmp_path, config_dir, chat_server, api_key, python, workbench_cli,
            offline_env):
        import subprocess

        from desk import API_KEY, write_desk

        write_desk(config_dir, chat_server.url)
        path = tmp_path / "tape.jsonl"
        holder = subprocess.Popen([python, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=offline_env)
        try:
            assert holder.stdout.readline() == "recording\n"
            cli = subprocess.run(
                [*workbench_cli, "run", "desk", "--config", str(config_dir), "--ticks", "1",
                 "--cassette", str(path), "--cassette-mode", "record"],
                capture_output=True, text=True, env={**offline_env, "DESK_API_KEY": API_KEY},
                cwd=tmp_path)
            holder.stdin.write("go on\n")
            holder.stdin.flush()
            assert holder.wait(timeout=30) == 0
        finally:
            if holder.poll() is None:
                holder.kill()
        assert cli.returncode == 2
        assert cli.stderr.count("\n") == 1 and "being recorded" in cli.stderr
        assert chat_server.requests == []  # refused before any model call
        replay = Cassette(path, "replay")
        assert [replay.lookup(BODY, "a", t)["response"]["n"] for t in (1, 2)] == [1, 2]


def test_a_fifo_cassette_is_refused_at_once(tmp_path):
    import os

    path = tmp_path / "tape.jsonl"
    os.mkfifo(path)
    with pytest.raises(ConfigError, match="is a FIFO, not a regular file"):
        Cassette(path, mode="replay")


def test_a_refused_cassette_leaves_no_ledger_behind(tmp_path, repo_root):
    import os

    from workbench.engine.conductor import Conductor

    tape = tmp_path / "tape.jsonl"
    os.mkfifo(tape)
    ledger = tmp_path / "run.jsonl"
    with pytest.raises(ConfigError, match="FIFO"):
        Conductor.from_config(repo_root / "config", "counting-house", ledger_path=ledger,
                              cassette=tape, cassette_mode="replay")
    assert not ledger.exists()
    # The ledger's lock was let go: the same path can be claimed at once.
    Conductor.from_config(repo_root / "config", "oracle-grove", ledger_path=ledger).run(ticks=1)


class TestProvenance:
    PROV = {"model": "qwen2.5-coder-0.5b-instruct", "sha256": "1d" * 32,
            "quantisation": "Q4_K_M", "licence": "apache-2.0", "chat_format": "gguf",
            "tool_calls_in_text": "json"}

    def test_provenance_is_the_first_line_and_comes_back_on_replay(self, tmp_path):
        path = tmp_path / "c.jsonl"
        tape = Cassette(path, "record", provenance=self.PROV,
                        annotate=lambda body: {"prompt": {"format": "gguf", "text": "P"}})
        tape.record(BODY, "clerk", 1, response={"n": 1})
        tape.close()
        first = json.loads(path.read_text().splitlines()[0])
        assert first == {"provenance": self.PROV}
        replay = Cassette(path)
        assert replay.provenance == self.PROV and len(replay) == 1
        assert replay.entries == [{"request": BODY, "agent": "clerk", "tick": 1,
                                   "prompt": {"format": "gguf", "text": "P"}}]
        assert replay.lookup(BODY, "clerk", 1)["response"] == {"n": 1}

    def test_a_cassette_without_provenance_says_nothing(self, tmp_path):
        path = tmp_path / "c.jsonl"
        tape = Cassette(path, "record")
        tape.record(BODY, "a", 1, response={})
        tape.close()
        assert Cassette(path).provenance == {}

    @pytest.mark.parametrize(("provenance", "field"), [
        ({"model": {"nested": 1}}, "provenance.model"),
        ({"licence": "x" * 5000}, "provenance.licence"),
        ({f"k{i}": 1 for i in range(40)}, "provenance"),
    ])
    def test_a_hostile_provenance_line_is_refused_naming_the_field(self, tmp_path,
                                                                  provenance, field):
        path = tmp_path / "c.jsonl"
        path.write_text(json.dumps({"provenance": provenance}) + "\n")
        with pytest.raises(ConfigError) as caught:
            Cassette(path, "replay")
        assert f"c.jsonl:1: {field}:" in str(caught.value)

    def test_provenance_after_the_first_line_is_not_an_exchange(self, tmp_path):
        path = tmp_path / "c.jsonl"
        tape = Cassette(path, "record")
        tape.record(BODY, "a", 1, response={})
        tape.close()
        with path.open("a") as fh:
            fh.write(json.dumps({"provenance": self.PROV}) + "\n")
        with pytest.raises(ConfigError, match="fingerprint"):
            Cassette(path, "replay")

    def test_replay_reads_calls_in_text_when_the_cassette_says_the_model_writes_them(
            self, tmp_path):
        from workbench.agents.openai_model import OpenAIModel
        from workbench.contracts.manifest import ModelSpec

        spec = ModelSpec(backend="openai", model="qwen", base_url="http://127.0.0.1:9/v1")
        path = tmp_path / "c.jsonl"
        body = OpenAIModel(spec).request_body([{"role": "user", "content": "add"}], [])
        text = '<tool_call>{"name": "add_numbers", "arguments": {"a": 1}}</tool_call>'
        for provenance, calls in ((self.PROV, ["add_numbers"]), ({"model": "qwen"}, [])):
            tape = Cassette(path, "record", provenance=provenance)
            tape.record(body, "clerk", 1, response={"choices": [
                {"message": {"role": "assistant", "content": text}}]})
            tape.close()
            model = OpenAIModel(spec, cassette=Cassette(path, "replay"))
            got = model.complete(body, agent="clerk", tick=1)
            assert [c.name for c in got.tool_calls] == calls

    def test_a_model_made_from_a_cassette_sends_what_the_recording_sent(self, tmp_path):
        from workbench.agents.openai_model import OpenAIModel
        from workbench.contracts.manifest import ModelSpec

        path = tmp_path / "c.jsonl"
        spec = ModelSpec(backend="openai", model="qwen-alias", base_url="http://x.invalid/v1",
                         max_tokens=96)
        body = OpenAIModel(spec).request_body([{"role": "user", "content": "add"}], [])
        tape = Cassette(path, "record", provenance={**self.PROV, "alias": "qwen-alias",
                                                    "max_tokens": 96})
        tape.record(body, "selector", 0, response={"choices": [
            {"message": {"role": "assistant", "content": '{"name": "add", "arguments": {}}'}}]})
        tape.close()
        model = OpenAIModel.replaying(path)
        assert model.request_body([{"role": "user", "content": "add"}], []) == body
        assert [c.name for c in model.complete(body, agent="selector", tick=0).tool_calls] \
            == ["add"]
        with pytest.raises(CassetteMiss):
            model.complete({**body, "messages": []}, agent="selector", tick=1)

    def test_a_cassette_that_names_no_model_cannot_make_one(self, tmp_path):
        from workbench.agents.openai_model import OpenAIModel

        path = tmp_path / "c.jsonl"
        Cassette(path, "record", provenance={"model": "qwen"}).close()
        with pytest.raises(ConfigError, match="provenance.alias"):
            OpenAIModel.replaying(path)

    def test_the_recordings_reply_cap_is_sent_unless_the_manifest_sets_one(self, tmp_path):
        from workbench.agents.openai_model import OpenAIModel
        from workbench.contracts.manifest import ModelSpec

        path = tmp_path / "c.jsonl"
        Cassette(path, "record", provenance={"alias": "m", "max_tokens": 256}).close()
        messages = [{"role": "user", "content": "add"}]
        for spec, cap in ((ModelSpec(backend="openai", model="m"), 256),
                          (ModelSpec(backend="openai", model="m", max_tokens=8), 8)):
            model = OpenAIModel(spec, cassette=Cassette(path, "replay"))
            assert model.request_body(messages, [])["max_tokens"] == cap
        recording = OpenAIModel(ModelSpec(backend="openai", model="m"), cassette=Cassette(
            tmp_path / "r.jsonl", "record", provenance={"max_tokens": 64}))
        assert recording.request_body(messages, [])["max_tokens"] == 64
        bare = OpenAIModel(ModelSpec(backend="openai", model="m"))
        assert "max_tokens" not in bare.request_body(messages, [])
