"""Rankers score what an agent is shown: one renderer, real bm25s and wordllama."""

import json
import subprocess
import sys

import pytest

from workbench.agents.render import function_definition, tool_line, tool_text
from workbench.errors import ConfigError
from workbench.selection import evaluate, make_selector, surface_specs
from workbench.selection.rankers import BM25Selector, EmbeddingSelector
from workbench.selection.tasks import Task
from workbench.tools.registry import ToolSpec

CLOCK = ToolSpec("get_current_time", "Read the clock in one timezone.", input_schema={
    "type": "object", "properties": {"timezone": {"type": "string",
                                                  "description": "IANA name like Europe/Oslo"}},
    "required": ["timezone"]})
ECHO = ToolSpec("echo", "Repeat a message back exactly.", input_schema={
    "type": "object", "properties": {"message": {"type": "string"}}})


class TestTheSharedRenderer:
    def test_ranked_text_is_the_function_definition_a_model_is_sent(self):
        function = function_definition(CLOCK)["function"]
        text = tool_text(CLOCK)
        assert function["description"] in text
        assert "timezone: IANA name like Europe/Oslo" in text
        assert CLOCK.name in text and CLOCK.name in tool_line(CLOCK)

    def test_a_curated_description_changes_what_is_ranked(self, tmp_path):
        import shutil

        surface = tmp_path / "s"
        shutil.copytree("config/surfaces/watch-house", surface)
        before = {s.name: tool_text(s) for s in surface_specs(surface)}
        from workbench.surface.edits import apply

        apply(surface, [{"tool": "echo", "kind": "description",
                         "value": "Say a sentence back word for word."}])
        after = {s.name: tool_text(s) for s in surface_specs(surface)}
        assert "word for word" in after["echo"] and "word for word" not in before["echo"]
        assert after["convert_time"] == before["convert_time"]

    def test_examples_are_shown_and_ranked(self):
        [clock] = [s for s in surface_specs("config/surfaces/watch-house")
                   if s.name == "get_current_time"]
        assert 'Examples: get_current_time({"timezone":"Europe/Oslo"})' in tool_text(clock)


class TestBM25:
    def test_ranks_every_tool_best_first(self):
        [ranking] = BM25Selector().rank(["what time is it in Oslo"], [ECHO, CLOCK])
        assert [name for name, _ in ranking] == ["get_current_time", "echo"]
        assert ranking[0][1] > 0 == ranking[1][1]

    def test_words_of_a_name_count(self):
        [ranking] = BM25Selector().rank(["current time"], [ECHO, ToolSpec("get_current_time",
                                                                          "Reads it.")])
        assert ranking[0][0] == "get_current_time" and ranking[0][1] > 0

    def test_a_query_with_no_known_word_abstains(self):
        result = evaluate([ECHO, CLOCK], [Task("zzz qqq", None)])
        assert result.abstention == 1.0


class TestEmbedding:
    def test_ranks_by_meaning(self):
        [ranking] = EmbeddingSelector().rank(["say my words again"], [CLOCK, ECHO])
        assert ranking[0][0] == "echo"

    def test_loads_and_ranks_with_the_network_blocked(self, tmp_path, offline_env):
        block = tmp_path / "sitecustomize.py"
        block.write_text(
            "import socket\n"
            "def _refuse(*a, **k):\n"
            "    raise OSError('network blocked by the test')\n"
            "socket.socket.connect = _refuse\n"
            "socket.create_connection = _refuse\n"
            "socket.getaddrinfo = _refuse\n")
        env = dict(offline_env, PYTHONPATH=f"{tmp_path}:{offline_env['PYTHONPATH']}",
                   HF_HUB_OFFLINE="", TRANSFORMERS_OFFLINE="")
        code = ("import json, socket\n"
                "from workbench.selection import evaluate_surface\n"
                "try:\n    socket.create_connection(('127.0.0.1', 9))\n"
                "except OSError as e:\n    blocked = 'blocked' in str(e)\n"
                "r = evaluate_surface('config/surfaces/watch-house', selector='embedding')\n"
                "print(json.dumps({'blocked': blocked, 'cases': len(r.cases), "
                "'top3': r.top3}))\n")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        assert out["blocked"] and out["cases"] >= 30 and out["top3"] > 0.5


def test_an_unknown_selector_or_tool_is_a_config_error():
    with pytest.raises(ConfigError, match="allowed: bm25, embedding, model"):
        make_selector("magic")
    with pytest.raises(ConfigError, match="needs a model"):
        make_selector("model")
    with pytest.raises(ConfigError, match="does not show: nope"):
        evaluate([ECHO], [Task("x", "nope")])
