"""Approval through the host, without processes: the question, the answer, the retry's state.

The question carries a server's and a model's text, so it is escaped; the answer counts as
a yes only when the person accepted with ``approve: true``; the state a 2026-07-28 host
echoes is attacker-controlled, so it counts once, for the one call it was issued for.
"""

from __future__ import annotations

import time

from workbench.gateway.approval import (
    ANSWER_KEY,
    GatewayApprover,
    NeedsAnswer,
    PendingApprovals,
    answer_of,
    question,
)
from workbench.surface.approval import ApprovalRequest


def request(tool="wipe", params=None, server="demo"):
    return ApprovalRequest("prober", tool, params if params is not None else {"all": True},
                           server, False, f"{tool!r} may change things (no readOnlyHint)")


class TestTheQuestion:
    def test_it_names_the_tool_server_arguments_and_why(self):
        text = question(request())
        assert text.startswith('prober wants to call wipe on server demo with arguments '
                               '{"all":true}.')
        assert "may change things" in text

    def test_server_and_model_text_is_escaped(self):
        text = question(request(tool="wipe\u202e", params={"note": "\x1b[8mhidden\r"},
                                server="de\nmo"))
        assert "\u202e" not in text and "\x1b" not in text and "\n" not in text
        assert "\\u202e" in text and "\\u001b" in text  # JSON spells it so already

    def test_huge_arguments_are_cut_to_what_a_person_reads(self):
        text = question(request(params={"blob": "x" * 100_000}))
        assert len(text) < 3000


class TestTheAnswer:
    def test_only_accept_with_approve_true_is_a_yes(self):
        assert answer_of({"action": "accept", "content": {"approve": True}}).approved
        assert not answer_of({"action": "accept", "content": {"approve": False}}).approved
        assert not answer_of({"action": "accept", "content": {"approve": "yes"}}).approved
        assert not answer_of({"action": "accept"}).approved
        assert answer_of({"action": "decline"}).action == "decline"
        assert answer_of({"action": "cancel"}).action == "cancel"
        assert answer_of({"action": "sure!"}).action == "no answer"


class TestTheApprover:
    def test_approve_says_yes_without_asking_and_is_recorded(self):
        approver, recorded, asked = GatewayApprover(["demo:wipe"]), [], []
        with approver.asking(lambda r: asked.append(r), recorded.append):
            assert approver(request()) is True
        assert asked == [] and recorded[0]["by"] == "--approve"

    def test_approve_for_another_server_does_not_count(self):
        approver = GatewayApprover(["other:wipe"])
        with approver.asking(None, lambda payload: None):
            assert approver(request()) is False

    def test_nobody_to_ask_is_a_no_and_nothing_is_recorded(self):
        approver, recorded = GatewayApprover(), []
        with approver.asking(None, recorded.append):
            assert approver(request()) is False
        assert recorded == []

    def test_a_need_to_ask_later_escapes_the_call(self):
        approver = GatewayApprover()

        def later(req):
            raise NeedsAnswer(req)

        with approver.asking(later, lambda payload: None):
            try:
                approver(request())
            except NeedsAnswer as needs:
                assert needs.request.tool == "wipe"
            else:
                raise AssertionError("NeedsAnswer was not raised")


def yes():
    return {ANSWER_KEY: {"action": "accept", "content": {"approve": True}}}


class TestPendingApprovals:
    def test_the_question_is_an_input_required_result_with_a_state(self):
        result = PendingApprovals().ask(request())
        assert result["resultType"] == "input_required"
        asked = result["inputRequests"][ANSWER_KEY]
        assert asked["method"] == "elicitation/create"
        assert asked["params"]["requestedSchema"]["required"] == ["approve"]
        assert len(result["requestState"]) >= 24

    def test_the_answer_counts_for_the_same_call_once(self):
        pending = PendingApprovals()
        state = pending.ask(request())["requestState"]
        assert pending.answer("wipe", {"all": True}, state, yes()).approved
        assert pending.answer("wipe", {"all": True}, state, yes()) is None

    def test_the_answer_does_not_count_for_other_arguments_or_tools(self):
        pending = PendingApprovals()
        state = pending.ask(request())["requestState"]
        assert pending.answer("wipe", {"all": True, "also": "the backups"}, state, yes()) \
            is None
        state = pending.ask(request())["requestState"]
        assert pending.answer("drop", {"all": True}, state, yes()) is None

    def test_a_forged_or_missing_state_asks_again(self):
        pending = PendingApprovals()
        pending.ask(request())
        assert pending.answer("wipe", {"all": True}, "forged", yes()) is None
        assert pending.answer("wipe", {"all": True}, None, yes()) is None

    def test_an_old_question_expires_and_the_oldest_is_dropped_past_the_cap(self):
        pending = PendingApprovals(timeout=0.05, cap=3)
        old = pending.ask(request())["requestState"]
        time.sleep(0.1)
        assert pending.answer("wipe", {"all": True}, old, yes()) is None
        states = [pending.ask(request(params={"n": i}))["requestState"] for i in range(5)]
        assert len(pending) == 3
        assert pending.answer("wipe", {"n": 0}, states[0], yes()) is None
        assert pending.answer("wipe", {"n": 4}, states[4], yes()).approved
