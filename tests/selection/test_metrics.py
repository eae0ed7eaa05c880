"""Each metric on small cases computed by hand."""

import pytest

from workbench.selection import Task, score
from workbench.selection.ab import compare, mcnemar_exact

TASKS = [Task("q1", "a"), Task("q2", "a"), Task("q3", "b"), Task("q4", "b"), Task("q5", None)]
RANKINGS = [
    [("a", 3.0), ("b", 1.0), ("c", 0.0)],     # a first: hit, rank 1, margin 2/3
    [("b", 2.0), ("c", 1.0), ("a", 0.5)],     # a third: miss, rank 3
    [("b", 1.0), ("a", 0.95), ("c", 0.0)],    # b first by a hair: hit, margin 0.05
    [("c", 1.0), ("a", 0.5), ("x", 0.2), ("b", 0.1)],  # b fourth: miss, not in top 3
    [("a", 0.0), ("b", 0.0), ("c", 0.0)],     # nothing scores: abstains (threshold 0)
]


@pytest.fixture
def result():
    return score(TASKS, RANKINGS, selector="hand")


def test_top1_top3_mrr(result):
    assert result.top1 == pytest.approx(2 / 4)
    assert result.top3 == pytest.approx(3 / 4)
    assert result.mrr == pytest.approx((1 + 1 / 3 + 1 + 1 / 4) / 4)


def test_abstention_uses_the_threshold(result):
    assert result.abstention == 1.0
    picky = score(TASKS, RANKINGS, selector="hand", threshold=2.5)
    assert picky.abstention == 1.0 and picky.top1 == pytest.approx(1 / 4)  # only q1 clears
    eager = score(TASKS[4:], [[("a", 0.1)]], selector="hand")
    assert eager.abstention == 0.0


def test_per_tool_recall_and_confusions(result):
    rows = {r["tool"]: r for r in result.per_tool()}
    assert rows["a"]["cases"] == 2 and rows["a"]["top1"] == 0.5
    assert rows["a"]["confused_with"] == {"b": 1}
    assert rows["b"]["confused_with"] == {"c": 1}
    assert rows["a"]["min_margin"] == pytest.approx(2 / 3)
    assert rows["b"]["min_margin"] == pytest.approx(0.05)


def test_needs_work_names_misses_and_thin_margins():
    clean = score([Task("x", "a"), Task("y", "b")],
                  [[("a", 2.0), ("b", 1.0)], [("b", 1.0), ("a", 0.97)]], selector="hand")
    assert clean.top1 == 1.0
    assert clean.needs_work() == ["b"]  # wins, but by 3 %
    assert score([Task("x", "a")], [[("a", 2.0), ("b", 1.0)]],
                 selector="hand").needs_work() == []


def test_the_json_shape(result):
    d = result.to_dict()
    assert set(d) >= {"selector", "cases", "top1", "top3", "mrr", "per_tool", "needs_work",
                      "details"}
    assert d["cases"] == 5
    assert d["details"][1] == {"query": "q2", "expected": "a", "ranked": ["b", "c", "a"],
                               "picked": "b", "hit": False}
    assert set(d["per_tool"][0]) >= {"tool", "cases", "top1", "confused_with"}


class TestAB:
    @pytest.mark.parametrize("fixed, broken, p", [
        (0, 0, 1.0), (3, 0, 0.25), (0, 3, 0.25), (5, 0, 0.0625), (6, 1, 0.125),
        (10, 2, 0.0386), (4, 4, 1.0),
    ])
    def test_exact_mcnemar_against_the_binomial_by_hand(self, fixed, broken, p):
        assert mcnemar_exact(fixed, broken) == pytest.approx(p, abs=5e-5)

    def test_fixed_broken_unchanged(self):
        tasks = [Task("q1", "a"), Task("q2", "b"), Task("q3", "a"), Task("q4", None)]
        a = score(tasks, [[("b", 1)], [("b", 1)], [("a", 1)], [("a", 1)]], selector="h")
        b = score(tasks, [[("a", 1)], [("a", 1)], [("a", 1)], []], selector="h")
        result = compare(a, b)
        assert result.fixed == ["q1", "q4"] and result.broken == ["q2"]
        assert result.unchanged == 1
        assert result.delta_top1 == pytest.approx(2 / 3 - 2 / 3)
        assert result.p_value == pytest.approx(1.0)
        assert set(result.to_dict()) == {"a", "b", "delta_top1", "p_value", "fixed", "broken",
                                         "unchanged"}

    def test_different_tasks_cannot_be_compared(self):
        from workbench.errors import ConfigError

        a = score([Task("q1", "a")], [[("a", 1)]], selector="h")
        b = score([Task("other", "a")], [[("a", 1)]], selector="h")
        with pytest.raises(ConfigError, match="same --tasks"):
            compare(a, b)
