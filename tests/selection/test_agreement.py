"""Top-1 agreement between selectors on the same tasks."""

import pytest

from workbench.errors import ConfigError
from workbench.selection import agreement, evaluate, score
from workbench.selection.rankers import Ranking
from workbench.selection.tasks import Task
from workbench.surface.scoring import surface_specs

TASKS = [Task("what time is it", "clock"), Task("say it back", "echo"),
         Task("capital of Peru", None)]


def run(selector, picks):
    rankings = [Ranking.of([(p, 1.0)]) if p else Ranking() for p in picks]
    return score(TASKS, rankings, selector=selector)


class TestCounts:
    def test_pairs_and_all_count_the_same_pick_including_none(self):
        agreed = agreement([run("a", ["clock", "echo", None]),
                            run("b", ["clock", "clock", None]),
                            run("c", ["clock", "echo", "echo"])])
        assert agreed.pairs == (("a", "b", 2), ("a", "c", 2), ("b", "c", 1))
        assert agreed.all_agreed == 1 and agreed.all_share == pytest.approx(1 / 3)
        assert agreed.disagreed == (("say it back", ("echo", "clock", "echo")),
                                    ("capital of Peru", (None, None, "echo")))

    def test_a_threshold_that_makes_a_ranker_abstain_counts_as_its_pick(self):
        low = score(TASKS, [Ranking.of([("clock", 0.05)])] * 3, selector="a", threshold=0.1)
        agreed = agreement([low, run("b", [None, None, None])])
        assert agreed.pairs == (("a", "b", 3),)

    def test_the_report_lines_and_json(self):
        agreed = agreement([run("bm25", ["clock", "echo", None]),
                            run("hybrid", ["clock", "clock", None])])
        assert agreed.lines() == ["top-1 agreement, bm25 and hybrid: 0.667 (2 of 3)"]
        data = agreed.to_dict()
        assert data["pairs"] == [{"a": "bm25", "b": "hybrid", "agreed": 2,
                                  "share": pytest.approx(2 / 3)}]
        assert data["disagreed"] == [{"query": "say it back",
                                      "picked": {"bm25": "echo", "hybrid": "clock"}}]

    def test_a_selector_agrees_with_itself(self):
        specs = surface_specs("config/surfaces/watch-house")
        a = evaluate(specs, TASKS[:2], selector="bm25", strict=False)
        agreed = agreement([a, evaluate(specs, TASKS[:2], selector="bm25", strict=False)])
        assert agreed.all_share == 1.0 and agreed.disagreed == ()


def test_different_tasks_are_refused():
    with pytest.raises(ConfigError, match="different tasks"):
        agreement([run("a", ["clock", "echo", None]),
                   score(TASKS[:2], [Ranking(), Ranking()], selector="b")])


def test_nothing_to_compare_is_empty_not_an_error():
    assert agreement([]).tasks == 0 and agreement([]).all_share == 0.0
