"""The model key is redacted from everything a run writes or shows, whatever the reply.

A hostile (or merely careless) server echoes the key it was sent in every field it can:
the reply text, tool-call arguments (spelt with a JSON escape, so only a parser sees it),
a tool name, the model name, the response id, a 200 carrying an error, a refusal. The run
goes through the real CLI and in-process, and no byte of the key may reach the ledger,
the calls log, the cassette, the printed table, a transcript, a frame or an export.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from chat_server import ChatServer, completion
from desk import API_KEY, write_desk

from workbench.agents.secrets import MIN_SECRET_CHARS, Redactor
from workbench.engine.conductor import Conductor
from workbench.export import export_ledger
from workbench.frames import calls_frame, ledger_frame

#: The key with its first letter as a JSON escape: equal once parsed, not as text.
ESCAPED = "\\u00" + format(ord(API_KEY[0]), "02x") + API_KEY[1:]


def echoing_script():
    """Answers that put the key everywhere, over three ticks of the desk."""
    call = completion(None, [("oracle", '{"seed": "' + ESCAPED + '"}')])
    call.update(model=API_KEY, id=f"chatcmpl-{API_KEY}")
    call["choices"][0]["finish_reason"] = API_KEY
    return [
        call,                                                        # tick 1, step 1
        completion(f"Your key is {API_KEY}; sent as Bearer {API_KEY}."),  # step 2
        {"error": {"message": f"bad key {API_KEY}", "type": "auth"}},     # tick 2
        completion(None, refusal=f"I will not repeat {API_KEY}"),         # tick 3
    ]


class TestRedactedEverywhere:
    @pytest.mark.slow
    def test_no_file_table_transcript_frame_or_export_holds_the_key(
            self, tmp_path, config_dir, chat_server, desk_registry, api_key, workbench_cli,
            offline_env):
        write_desk(config_dir, chat_server.url, max_retries=0)
        out = tmp_path / "out"
        out.mkdir()
        chat_server.script.extend(echoing_script())
        env = {**offline_env, "DESK_API_KEY": API_KEY}
        cli = subprocess.run(
            [*workbench_cli, "run", "desk", "--config", str(config_dir), "--ticks", "3",
             "--ledger", str(out / "cli.jsonl"), "--cassette", str(out / "cli.cassette.jsonl")],
            capture_output=True, text=True, env=env, cwd=out)
        assert cli.returncode == 0, cli.stderr
        assert API_KEY not in cli.stdout + cli.stderr
        assert "Your key is ***; sent as Bearer ***." in cli.stdout

        chat_server.script.extend(echoing_script())
        result = Conductor.from_config(config_dir, "desk", registry=desk_registry,
                                       ledger_path=out / "run.jsonl",
                                       cassette=out / "run.cassette.jsonl").run(3)
        export_ledger(result, out / "export.csv")
        export_ledger(result, out / "export.jsonl")
        written = {p.name: p.read_text() for p in out.iterdir()}
        assert {"cli.jsonl", "cli.calls.jsonl", "cli.cassette.jsonl", "run.jsonl",
                "run.calls.jsonl", "run.cassette.jsonl", "export.csv"} <= set(written)
        for name, text in written.items():
            assert API_KEY not in text, name
            assert ESCAPED not in text, name
        shown = [json.dumps(result.transcripts), json.dumps(result.model_calls),
                 ledger_frame(result).to_csv(), calls_frame(result).to_csv()]
        assert not [s for s in shown if API_KEY in s]

        # What was redacted is still there to read, marked.
        called = result.ledger.of_kind("tool.called")[0].payload
        assert called["params"] == {"seed": "***"}
        kinds = [(f["kind"], f["message"]) for f in
                 (e.payload for e in result.ledger.of_kind("agent.failed"))]
        assert kinds == [("model_error", kinds[0][1]), ("refusal",
                                                        "the model refused: I will not "
                                                        "repeat ***")]
        assert "bad key ***" in kinds[0][1]
        assert result.model_calls[0]["model"] == "***"

    def test_a_tool_name_that_is_the_key_is_denied_under_the_mask(
            self, config_dir, chat_server, desk_registry, api_key):
        write_desk(config_dir, chat_server.url, max_retries=0)
        chat_server.script.append(completion(None, [(API_KEY, {})]))
        chat_server.script.append(completion("done"))
        result = Conductor.from_config(config_dir, "desk", registry=desk_registry).run(1)
        assert API_KEY not in result.ledger.to_jsonl()
        (denied,) = result.ledger.of_kind("tool.denied")
        assert denied.payload["tool"] == "***"
        # The next request carries the masked name, which a real API refuses (as the
        # loopback server does): that turn fails, and still without the key.
        ((status, refused),) = chat_server.rejected
        assert status == 400 and "'***'" in refused and API_KEY not in refused
        (failed,) = [e.payload for e in result.ledger.of_kind("agent.failed")]
        assert "HTTP 400" in failed["message"]


class TestShortKeys:
    def test_a_key_shorter_than_a_secret_redacts_nothing(self, config_dir, desk_registry,
                                                         monkeypatch):
        short = "ollama"  # what local servers are often given: a word, not a secret
        assert len(short) < MIN_SECRET_CHARS
        monkeypatch.setenv("DESK_API_KEY", short)
        with ChatServer(lambda body: completion("ollama served this; ollama is up."),
                        api_key=short) as server:
            write_desk(config_dir, server.url)
            result = Conductor.from_config(config_dir, "desk", registry=desk_registry).run(1)
        said = [e.payload["text"] for e in result.ledger.of_kind("clerk.said")]
        assert said == ["ollama served this; ollama is up."]

    def test_a_key_of_the_minimum_length_is_a_secret(self):
        key = "k" * MIN_SECRET_CHARS
        redact = Redactor([key, None, "", "short"])
        assert redact.text(f"a {key} b") == "a *** b"
        assert redact.text("short words stay") == "short words stay"
        assert redact.value({key: [f"x{key}", 1, None]}) == {"***": ["x***", 1, None]}
