"""The real model's cassettes (config/cassettes/real/): they replay with no model present.

They were recorded once by ``make record-model`` from a local GGUF model behind llama.cpp's
server; the tutorials replay them. Here: every cassette says what made it, every recorded
request is answered again from it (the scenarios through the conductor and the demo MCP
server, the trials and the selector through the model alone), and nothing is sent anywhere.
"""

from __future__ import annotations

import json
import re

import pytest

from workbench.agents.cassette import Cassette
from workbench.agents.openai_model import OpenAIModel
from workbench.agents.seen import seen_in_prompt
from workbench.selection.trials import load_trials, obeyed, run_trials, trial_bodies

CASSETTES = ("counting-house", "counting-house-curated", "obedience", "selection")


@pytest.fixture(scope="module")
def real(repo_root):
    return repo_root / "config" / "cassettes" / "real"


class TestProvenance:
    @pytest.mark.parametrize("name", CASSETTES)
    def test_each_cassette_names_the_model_file_and_how_it_was_served(self, real, name):
        prov = Cassette(real / f"{name}.jsonl", "replay").provenance
        assert re.fullmatch(r"[0-9a-f]{64}", prov["sha256"])
        for field in ("model", "alias", "file", "quantisation", "licence", "chat_format",
                      "server", "source"):
            assert isinstance(prov[field], str) and prov[field], field
        assert "Apache-2.0" in prov["licence"]
        assert prov["tool_calls_in_text"] == "json"

    def test_one_model_file_made_them_all(self, real):
        digests = {Cassette(real / f"{n}.jsonl", "replay").provenance["sha256"]
                   for n in CASSETTES}
        assert len(digests) == 1

    def test_every_exchange_keeps_the_prompt_the_template_rendered(self, real):
        tape = Cassette(real / "counting-house.jsonl", "replay")
        assert tape.entries and all(e["prompt"]["format"] == "gguf" for e in tape.entries)
        (seen, *_) = seen_in_prompt(tape.entries[0]["request"],
                                    tape.entries[0]["prompt"]["text"])
        assert seen.description  # the model's own template shows descriptions


class TestReplay:
    @pytest.mark.subprocess
    @pytest.mark.parametrize("scenario", ["counting-house", "counting-house-curated"])
    def test_the_scenarios_replay_to_the_ledger_they_recorded(self, repo_root, real, scenario):
        from workbench import Conductor
        from workbench.surface.approval import ApprovalPolicy

        path = real / f"{scenario}.jsonl"
        alias = Cassette(path, "replay").provenance["alias"]
        runs = [Conductor.from_config(repo_root / "config", scenario, cassette=path,
                                      cassette_mode="replay", model_name=alias,
                                      approver=ApprovalPolicy(allow=["add_numbers",
                                                                     "format_report"])).run()
                for _ in range(2)]
        assert runs[0].final_hash == runs[1].final_hash
        assert runs[0].reason == "ticks"

    def test_every_trial_is_answered_from_the_cassette(self, real):
        spec = load_trials(real / "obedience.json")
        model = OpenAIModel.replaying(real / "obedience.jsonl")
        first = Cassette(real / "counting-house.jsonl", "replay").entries[0]["request"]
        curated = Cassette(real / "counting-house-curated.jsonl", "replay").entries[0]["request"]
        poisoned = trial_bodies(first, spec, "poisoned", spec["phrasings"])
        trials = poisoned + trial_bodies(curated, spec, "curated", seeds=range(len(poisoned)))
        outcomes = run_trials(model, trials)
        assert len(outcomes) == len(spec["seeds"]) * len(spec["phrasings"]) * 2
        assert not [o.error for o in outcomes if o.error]
        judge = obeyed(spec["tool"], spec["parameter"])
        assert sum(map(judge, outcomes)) <= len(outcomes)

    def test_the_selector_replays_every_variant(self, repo_root, real):
        from workbench.selection import evaluate, load_tasks
        from workbench.selection.rankers import ModelSelector
        from workbench.selection.variants import VARIANTS, variant
        from workbench.surface.scoring import surface_specs

        surface = repo_root / "config" / "surfaces" / "watch-house"
        specs, tasks = surface_specs(surface), load_tasks(surface / "tasks.jsonl")
        selector = ModelSelector(OpenAIModel.replaying(real / "selection.jsonl"))
        for name in VARIANTS:
            result = evaluate(*variant(name, specs, tasks), selector=selector)
            assert len(result.cases) == len(tasks)

    def test_the_formats_file_shows_a_format_that_drops_descriptions(self, real):
        formats = json.loads((real / "formats.json").read_text())
        shown = {fmt: seen_in_prompt(formats["request"], text)
                 for fmt, text in formats["prompts"].items()}
        assert all(s.description for s in shown["gguf"])
        assert not any(s.description for s in shown["chatml-function-calling"])
        assert all(s.named for s in shown["chatml-function-calling"])
        # The clerk still reads them there, in its own system prompt's AVAILABLE TOOLS.
        assert all(s.in_messages for s in shown["chatml-function-calling"])


class TestTextCallsOnRecordedReplies:
    """The parser on what the real model wrote, each reply labelled by hand (by fingerprint)."""

    LABELLED = [
        ("counting-house", "974158db6caffa1d", ["format_report"]),   # a bare call
        ("counting-house", "3cf01b02165059bb", []),                  # the user's words echoed
        ("counting-house", "dad9466cb793414b", []),                  # a tool result echoed
        ("obedience", "e19aaa06605df958", ["add_numbers"]),          # a bare call
        ("obedience", "5d12516abd273e2c", []),                       # two objects and a comma
        ("obedience", "361d5d7c5073f553", []),                       # prompt echoed, then a fence
        ("obedience", "eacddf450bbf898b", []),                       # a call told in prose
        ("playground", "8d4e3f10c155f5f3", ["add_numbers"]),         # a fenced call
        ("selection", "ba04c0e7d933916c", ["convert_time"]),         # a fenced call
        ("selection", "2caa8bbda0613ef8", []),                       # a call cut short
    ]

    @pytest.mark.parametrize(("cassette", "prefix", "names"), LABELLED)
    def test_a_recorded_reply_is_a_call_exactly_when_it_is_nothing_but_one(
            self, real, cassette, prefix, names):
        from workbench.agents.replies import parse_reply

        lines = (real / f"{cassette}.jsonl").read_text().splitlines()[1:]
        (exchange,) = [json.loads(line) for line in lines
                       if json.loads(line)["fingerprint"].startswith(prefix)][:1]
        reply = parse_reply(exchange["response"], text_calls="json")
        assert [c.name for c in reply.tool_calls] == names
        assert parse_reply(exchange["response"]).tool_calls == ()  # never without the parser
