"""Judging a ledger against expect: (testing/judge.py): every key fails when it should."""

from __future__ import annotations

import pytest

from workbench.contracts.events import Event
from workbench.contracts.expect import Expectations
from workbench.testing.judge import judge, subset


def ev(seq, kind, actor, **payload):
    return Event(run_id="r", seq=seq, tick=1, kind=kind, actor=actor, payload=payload,
                 caused_by=None, hash="")


LEDGER = [
    ev(0, "run.started", "conductor", scenario="s"),
    ev(1, "tool.called", "clerk", tool="add", params={"a": 1, "b": {"c": [1, 2]}},
       result={"sum": 3}),
    ev(2, "tool.denied", "clerk", tool="wipe", params={}, reason="not approved"),
    ev(3, "tool.called", "clerk", tool="add", params={"a": 2}, result={"sum": 4}),
    ev(4, "news.announced", "herald", text="The market opens at noon."),
    ev(5, "tool.denied", "herald", tool="oracle", params={}, reason="not granted"),
]


def failures(**block):
    return judge("s", Expectations(**block), LEDGER, "f" * 64)


class TestCalls:
    def test_a_call_that_happened_holds(self):
        assert failures(calls=[{"agent": "clerk", "tool": "add"}]) == []

    def test_an_exact_count_holds_and_breaks(self):
        assert failures(calls=[{"agent": "clerk", "tool": "add", "count": 2}]) == []
        (f,) = failures(calls=[{"agent": "clerk", "tool": "add", "count": 1}])
        assert f.expectation == "calls[0]" and "1 time(s)" in f.message and "found 2" in f.message
        assert f.seq == 3  # the first call past the count

    def test_params_match_as_a_nested_subset(self):
        assert failures(calls=[{"agent": "clerk", "tool": "add",
                                "params": {"b": {"c": [1, 2]}}}]) == []
        (f,) = failures(calls=[{"agent": "clerk", "tool": "add", "params": {"a": 9}}])
        assert "found 0 (2 with other params)" in f.message

    def test_a_missing_call_points_at_the_refusal_of_it(self):
        (f,) = failures(calls=[{"agent": "herald", "tool": "oracle"}])
        assert f.seq == 5 and "tool.denied oracle by herald (not granted)" in f.message
        assert f.line().startswith("s: calls[0]: expected herald to call oracle")


class TestNeverDeniedViolations:
    def test_a_refusal_does_not_break_never(self):
        assert failures(never=[{"tool": "wipe"}, {"agent": "herald", "tool": "oracle"}]) == []

    def test_a_call_breaks_never_at_its_seq(self):
        (f,) = failures(never=[{"tool": "add"}])
        assert f.expectation == "never[0]" and f.seq == 1 and "2 call(s)" in f.message

    def test_denied_matches_agent_tool_and_the_start_of_the_reason(self):
        assert failures(denied=[{"tool": "oracle", "reason": "not granted"},
                                {"agent": "clerk", "tool": "wipe", "reason": "not"}]) == []
        (f,) = failures(denied=[{"tool": "wipe", "reason": "pin drift"}])
        assert f.expectation == "denied[0]" and f.seq == 2

    def test_violations_count_exactly(self):
        assert failures(violations=2) == []
        (f,) = failures(violations=1)
        assert "expected 1 tool.denied, found 2" in f.message and f.seq == 5
        (f,) = failures(violations=3)
        assert f.seq == 5


class TestSaidAndHash:
    def test_said_searches_the_events_text(self):
        assert failures(said=[{"agent": "herald", "kind": "news.announced",
                               "matches": "market|bridge"}]) == []
        (f,) = failures(said=[{"agent": "herald", "matches": "^bridge"}])
        assert "matching '^bridge'" in f.message and f.seq == 5

    def test_final_hash_compares_the_whole_ledger(self):
        assert failures(final_hash="f" * 64) == []
        (f,) = failures(final_hash="0" * 64)
        assert f.expectation == "final_hash" and "freeze again" in f.message

    def test_failures_come_in_the_blocks_order(self):
        got = failures(calls=[{"agent": "x", "tool": "y"}], never=[{"tool": "add"}],
                       violations=0)
        assert [f.expectation for f in got] == ["calls[0]", "never[0]", "violations"]

    def test_an_empty_ledger_says_so(self):
        (f,) = judge("s", Expectations(calls=[{"agent": "a", "tool": "t"}]), [])
        assert f.seq is None and "the ledger is empty" in f.message


@pytest.mark.parametrize("expected, actual, ok", [
    ({"a": 1}, {"a": 1, "b": 2}, True), ({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}}, True),
    ({"a": [1]}, {"a": [1, 2]}, False), ({"a": 1}, {"a": True}, False),
    ({"a": 1}, {"a": 1.0}, True), ({"a": "1"}, {"a": 1}, False), ({"a": 1}, {}, False),
    ({"a": None}, {"a": None}, True), ([{"x": 1}], [{"x": 1, "y": 2}], True)])
def test_subset(expected, actual, ok):
    assert subset(expected, actual) is ok
