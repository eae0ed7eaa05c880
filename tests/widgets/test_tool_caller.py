"""ToolCaller: calls by hand through the session's registry, grants, guards and approval.

In-process calls, a refused call, and calls over MCP to real servers started as
subprocesses: our built-in server, and a scenario's own server whose tool takes nested,
typed arguments (tests/tools/servers/schema_server.py, untrusted, so approval counts).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.widgets.conftest import cells, output_html
from workbench.errors import ConfigError, FormError
from workbench.frames import calls_frame
from workbench.tools.builtins import oracle

pytestmark = pytest.mark.timeout(120)

TRIP = {"trip": {"title": "north", "mode": "sea", "lead": {"name": "Ada", "age": None},
                 "stops": [{"city": "Bodø", "nights": 2}, {"city": "Tromsø"}]}}


@pytest.fixture
def session(config_dir: Path):
    from workbench.widgets import Session

    s = Session.from_config(config_dir)
    yield s
    s.close()


@pytest.fixture
def trip_desk(config_dir: Path, repo_root: Path) -> Path:
    """A scenario whose own (untrusted) server offers plan_trip, and an agent granted it."""
    server = repo_root / "tests/tools/servers/schema_server.py"
    (config_dir / "scenarios" / "trip-desk.yaml").write_text(
        "name: trip-desk\ncast: [planner]\nservers:\n  - name: schema\n"
        f"    command: \"{sys.executable} {server}\"\n")
    (config_dir / "agents" / "planner.yaml").write_text(
        "name: planner\nrole: worker\npersona: Plans trips.\nmay_emit: [trip.planned]\n"
        "schedule: {tick_every: 1}\ntools: [plan_trip]\n")
    return config_dir


class TestInProcess:
    def test_a_granted_call_shows_its_result_and_ledger_row(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        assert caller.tool_select.value == "oracle"
        assert "oracle" in caller.grants.value
        assert caller.form.paths() == ["seed"]
        caller.form.field("seed").box.value = "dawn"
        caller.call_button.click()
        assert caller.last_error is None, caller.last_error
        outcome = caller.outcome
        assert outcome.ok and not outcome.is_error
        assert outcome.structured_content == oracle("dawn")
        assert outcome.event.kind == "tool.called"
        assert outcome.event.payload == {"tool": "oracle", "params": {"seed": "dawn"},
                                         "result": oracle("dawn")}
        shown = output_html(caller.result_output)
        assert "structuredContent" in shown and oracle("dawn")["omen"] in shown
        assert "tool.called" in cells(shown)
        assert "isError: false" in caller.status.value
        assert caller.history.matches == 1

    def test_a_call_not_granted_is_refused_and_recorded(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session)
        outcome = caller.call({"seed": "dawn"}, agent="scene-whisperer", tool="oracle")
        assert outcome.denied and outcome.reason == "not granted"
        assert outcome.event.kind == "tool.denied"
        assert outcome.result is None and outcome.transport == "none"
        assert "Refused: not granted" in caller.status.value
        assert "Add &#x27;oracle&#x27; to its manifest" in output_html(caller.result_output)
        assert "none: every call will be refused" in caller.grants.value

    def test_a_grant_removed_in_the_session_counts_at_the_next_call(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        assert caller.call({"seed": "a"}).ok
        teller = session.manifests["fortune-teller"]
        session.manifests["fortune-teller"] = teller.model_copy(update={"tools": ()})
        assert caller.call({"seed": "a"}).reason == "not granted"
        frame = calls_frame(caller.hand)
        assert list(frame["outcome"]) == ["ok", "denied"]
        assert list(frame["tick"]) == [1, 2]
        caller.hand.ledger.verify()
        # Both are in the session's call history too, as calls made by hand.
        history = session.history.frame()
        assert list(history["source"]) == ["hand", "hand"]
        assert list(history["outcome"]) == ["ok", "denied"]

    def test_a_form_problem_is_shown_and_nothing_is_called(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        caller.call_button.click()
        assert isinstance(caller.last_error, FormError)
        assert "seed: required" in str(caller.last_error)
        assert "required" in caller.form.field("seed").problem.value
        assert len(caller.hand) == 0

    def test_a_form_value_is_typed_by_its_field(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        outcome = caller.call({"seed": 5})  # a text box holds text: "5" is sent
        assert outcome.ok and outcome.params == {"seed": "5"}
        with pytest.raises(FormError, match="no field 'colour'"):
            caller.call({"seed": "x", "colour": "red"})

    def test_a_tool_error_is_is_error_and_recorded_like_in_a_run(self, session):
        from workbench.widgets import ToolCaller

        def dry_well(depth: int) -> dict:
            raise RuntimeError(f"the well is dry at {depth} m")

        session.registry.register("well", "Draw water.", dry_well, input_schema={
            "type": "object", "properties": {"depth": {"type": "integer", "minimum": 1}},
            "required": ["depth"]})
        teller = session.manifests["fortune-teller"]
        session.manifests["fortune-teller"] = teller.model_copy(update={"tools": ("well",)})
        caller = ToolCaller(session, agent="fortune-teller", tool="well")
        failed = caller.call({"depth": 3})
        assert failed.is_error and failed.error == {"kind": "tool_error",
                                                    "message": "the well is dry at 3 m"}
        assert failed.event.payload["error"] == failed.error
        assert "isError: true" in caller.status.value
        assert "the well is dry at 3 m" in output_html(caller.result_output)
        # The registry checks the schema before the tool runs, as in a run.
        invalid = caller.call({"depth": 0})
        assert invalid.is_error and "must be bigger than or equal to 1" in invalid.message

    def test_unknown_choices_list_what_is_offered(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session)
        with pytest.raises(ConfigError, match="'nope' is not offered here; choose one of: "
                                              "oracle"):
            caller.select(tool="nope")
        with pytest.raises(ConfigError, match="agent"):
            caller.select(agent="nobody")


class TestOverMCP:
    @pytest.mark.slow
    def test_builtin_server_gives_the_in_process_result(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, source="MCP", agent="fortune-teller")
        outcome = caller.call({"seed": "dawn"}, tool="oracle")
        assert outcome.ok, outcome
        assert outcome.transport.startswith("stdio")
        assert outcome.structured_content == oracle("dawn")

    @pytest.mark.slow

    def test_nested_schema_form_calls_a_real_server(self, trip_desk):
        from workbench.widgets import Session, ToolCaller

        session = Session.from_config(trip_desk)
        try:
            caller = ToolCaller(session, source="trip-desk", agent="planner")
            assert caller.tool_select.value == "plan_trip"
            assert "trip.lead.name" in caller.form.paths()
            # Untrusted server: its readOnlyHint is not believed, so approval is needed.
            refused = caller.call(TRIP)
            assert refused.denied and refused.reason == "not approved"
            assert "not believed" in refused.message

            # By hand: fill the nested form's widgets as a person would.
            caller.form.fill({})
            form = caller.form
            form.field("trip.title").box.value = "north"
            form.field("trip.mode").box.value = "sea"
            form.field("trip.lead.name").box.value = "Ada"
            form.field("trip.lead.age").null.value = True
            form.field("trip.stops").add_button.click()
            form.field("trip.stops[0].city").box.value = "Bodø"
            form.field("trip.stops[0].nights").box.value = "2"
            form.field("trip.stops").add_button.click()
            form.field("trip.stops[1].city").box.value = "Tromsø"
            caller.approve.value = True
            caller.call_button.click()
            assert caller.last_error is None, caller.last_error
            outcome = caller.outcome
            assert outcome.ok, outcome
            # A new list item starts from its schema's defaults (nights: 1).
            by_hand = {"trip": {**TRIP["trip"], "stops": [{"city": "Bodø", "nights": 2},
                                                          {"city": "Tromsø", "nights": 1}]}}
            assert outcome.params == by_hand
            assert outcome.structured_content["summary"] == (
                "north: Ada by sea, 2 stops, 3 nights")
            assert outcome.structured_content["received"]["stops"][1] == {
                "city": "Tromsø", "nights": 1}
            assert outcome.transport == "stdio:schema"
            assert [e.kind for e in caller.hand.ledger] == ["tool.denied", "tool.called"]
        finally:
            session.close()


@pytest.mark.slow


def test_a_self_referencing_server_schema_gives_a_capped_form(config_dir, repo_root):
    """Issue 23 item 5: ten required copies of the schema itself, from a hostile server."""
    from workbench.widgets import Session, ToolCaller

    server = repo_root / "tests/tools/servers/hostile_server.py"
    (config_dir / "scenarios" / "loops.yaml").write_text(
        "name: loops\ncast: [looper]\nservers:\n  - name: hostile\n"
        f"    command: \"{sys.executable} {server} --mode selfref\"\n")
    (config_dir / "agents" / "looper.yaml").write_text(
        "name: looper\nrole: worker\npersona: Loops.\nmay_emit: [loop.done]\n"
        "schedule: {tick_every: 1}\ntools: [loop, bigenum]\n")
    session = Session.from_config(config_dir)
    try:
        caller = ToolCaller(session, source="loops", agent="looper")
        caller.tool_select.value = "loop"
        assert caller.form.capped
        caller.tool_select.value = "bigenum"
        caller.approve.value = True
        outcome = caller.call({"pick": "value-000007"})
        assert outcome.ok, outcome
    finally:
        session.close()


@pytest.mark.external
def test_curated_surface_hides_and_approval_counts(config_dir, repo_root):
    """watch-house: mcp-server-time and server-everything behind the curated surface."""
    from workbench.widgets import Session, ToolCaller

    (config_dir.parent / "external").symlink_to(repo_root / "external")
    session = Session.from_config(config_dir)
    try:
        caller = ToolCaller(session, source="watch-house", agent="timekeeper")
        options = list(caller.tool_select.options)
        assert set(options[:3]) == {"echo", "get_current_time", "convert_time"}
        assert "get-env (hidden by curation)" in options
        assert "get-env</code> <i>(hidden here)" in caller.grants.value
        hidden = caller.call({}, tool="get-env", approve=True)
        assert hidden.denied and hidden.reason == "hidden by curation"
        echo = caller.call({"message": "the watch is set"}, tool="echo", approve=True)
        assert echo.ok and echo.content is not None
        assert "the watch is set" in echo.content[0]["text"]
        assert "wb-call-text" in output_html(caller.result_output)
    finally:
        session.close()


def test_close_closes_every_widget_below(session):
    from workbench.widgets import ToolCaller

    caller = ToolCaller(session, agent="fortune-teller")
    caller.call({"seed": "x"})

    def tree(widget):
        yield widget
        for part in (getattr(widget, "layout", None), getattr(widget, "style", None)):
            if part is not None:
                yield part
        for child in getattr(widget, "children", ()):
            yield from tree(child)

    everything = list(tree(caller))
    assert len(everything) > 50 and all(w.comm is not None for w in everything)
    caller.close()
    assert [w for w in everything if w.comm is not None] == []


class TestNothingStale:
    """What the caller shows belongs to what is selected (issue 30 item 3)."""

    def test_choosing_another_agent_or_tool_clears_the_last_outcome(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        refused = caller.call({"seed": "the market"}, agent="herald", tool="oracle")
        assert refused.denied and "Refused" in caller.status.value
        caller.select(agent="fortune-teller")
        assert caller.status.value == ""
        assert caller.result_output.outputs == ()
        assert caller.history.matches == 1  # the calls made here stay listed below

    def test_choosing_another_source_clears_the_outcome_and_the_error(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        caller.call_button.click()  # the seed is empty: a form error is shown
        assert caller.error_area.outputs
        caller.call({"seed": "dawn"})
        caller.form.field("seed").box.value = ""
        caller.call_button.click()
        assert caller.error_area.outputs and caller.status.value == ""
        caller.agent_select.value = "herald"
        assert caller.error_area.outputs == () and caller.result_output.outputs == ()

    def test_an_approval_ticked_for_one_tool_does_not_carry_to_the_next(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        caller.approve.value = True
        caller.select(source="MCP")
        assert caller.approve.value is False


class TestLongResults:
    """A 200,000-character result is folded, not printed in full (issue 30 item 5)."""

    def test_a_huge_result_is_folded_with_its_size_and_the_page_stays_small(self, session):
        from workbench.widgets import ToolCaller

        big = "y" * 200_000
        session.registry.register("flood", "Return a very long text.", lambda: {"text": big},
                                  input_schema={"type": "object", "properties": {}},
                                  annotations={"readOnlyHint": True})
        teller = session.manifests["fortune-teller"]
        session.manifests["fortune-teller"] = teller.model_copy(
            update={"tools": (*teller.tools, "flood")})
        caller = ToolCaller(session, agent="fortune-teller")
        outcome = caller.call({}, tool="flood")
        assert outcome.ok and outcome.structured_content == {"text": big}  # kept whole
        shown = output_html(caller.result_output)
        assert "<details" in shown and "characters: click to read" in shown
        assert len(shown) < 50_000, len(shown)
        caller.history.show_payload.value = True
        assert len(output_html(caller.history.table)) < 30_000
        assert "caller.outcome" in shown  # where the whole value is
