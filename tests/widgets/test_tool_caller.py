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
        # The form checks the schema's bounds before any call: nothing is sent or recorded.
        with pytest.raises(FormError, match="depth: 0 is less than the minimum of 1"):
            caller.call({"depth": 0})
        assert "less than the minimum" in caller.form.field("depth").problem.value
        assert len(caller.hand) == 1
        # Raw JSON is sent as given: the registry checks it before the tool runs, as in a run.
        invalid = caller.call(raw='{"depth": 0}')
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
            # The tick is shown, with why, only for a tool whose calls need a yes.
            assert caller.approve.layout.display is None
            assert "not believed" in caller.approval_note.value
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


class TestApprovalTick:
    """Issue 30 item 9: "Approve this call" only where a call needs approval."""

    def test_a_trusted_in_process_tool_shows_no_tick(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller", tool="oracle")
        assert caller.approve.layout.display == "none"
        assert caller.approval_note.value == ""

    def test_an_in_process_tool_without_hints_runs_unasked_as_in_a_run(self, session):
        from workbench.widgets import ToolCaller

        # In a run, in-process tools are our own code and no approval guard stands before
        # them; the caller does not offer a tick that would change nothing.
        session.registry.register("wipe", "Erase the slate.", lambda: {"wiped": True},
                                  input_schema={"type": "object", "properties": {}})
        teller = session.manifests["fortune-teller"]
        session.manifests["fortune-teller"] = teller.model_copy(update={"tools": ("wipe",)})
        caller = ToolCaller(session, agent="fortune-teller", tool="wipe")
        assert caller.approve.layout.display == "none"
        assert caller.call({}).ok


class TestRawJson:
    """Issue 30 item 10: arguments typed or pasted as JSON, sent exactly as given."""

    def test_an_arguments_object_is_sent_as_is(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        outcome = caller.call(raw='{"seed": "dusk"}')
        assert outcome.ok and outcome.params == {"seed": "dusk"}
        assert caller.args_mode.value == "json"
        assert caller.form_box.children == (caller.raw_args,)

    def test_a_pasted_tools_call_request_selects_its_tool(self, session):
        from workbench.widgets import ToolCaller

        session.registry.register("echo2", "Echo.", lambda text: {"text": text},
                                  input_schema={"type": "object",
                                                "properties": {"text": {"type": "string"}}},
                                  annotations={"readOnlyHint": True})
        teller = session.manifests["fortune-teller"]
        session.manifests["fortune-teller"] = teller.model_copy(
            update={"tools": ("oracle", "echo2")})
        caller = ToolCaller(session, agent="fortune-teller", tool="oracle")
        request = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "echo2", "arguments": {"text": "hi"}}}
        outcome = caller.call(raw=__import__("json").dumps(request))
        assert outcome.tool == "echo2" and outcome.params == {"text": "hi"}
        assert caller.tool_select.value == "echo2"

    def test_an_openai_tool_call_is_read_with_its_string_arguments(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        outcome = caller.call(raw='{"id": "call_1", "type": "function", "function": '
                                  '{"name": "oracle", "arguments": "{\\"seed\\": \\"x\\"}"}}')
        assert outcome.ok and outcome.params == {"seed": "x"}

    @pytest.mark.parametrize(("text", "match"), [
        ('{"seed": ', "not JSON \\(line 1, column 10\\)"),
        ("[1, 2]", "the JSON is a list; a tool's arguments are an object"),
        ('"dawn"', "the JSON is a string"),
        ("[" * 100_000, "not JSON"),
        ('{"seed": NaN}', "NaN is not a JSON number"),
        ('{"seed": -Infinity}', "-Infinity is not a JSON number"),
        ('{"seed": 1e999}', "1e999 is not a JSON number"),
    ])
    def test_json_that_is_not_an_object_is_a_form_error_and_nothing_is_sent(
            self, session, text, match):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        with pytest.raises(FormError, match=match):
            caller.call(raw=text)
        assert len(caller.hand) == 0

    def test_a_paste_past_the_cap_is_refused_unread(self, session):
        from workbench.widgets import ToolCaller
        from workbench.widgets.raw_call import MAX_RAW_CHARS

        caller = ToolCaller(session, agent="fortune-teller")
        with pytest.raises(FormError, match="characters of JSON; at most"):
            caller.call(raw='{"seed": "' + "x" * MAX_RAW_CHARS + '"}')
        assert len(caller.hand) == 0

    def test_switching_to_the_form_takes_the_json_along_and_back(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        caller.form.fill({"seed": "noon"})
        caller.args_mode.value = "json"
        assert __import__("json").loads(caller.raw_args.value) == {"seed": "noon"}
        caller.raw_args.value = '{"seed": "night"}'
        caller.args_mode.value = "form"
        assert caller.form.value == {"seed": "night"}
        assert caller.form_box.children == (caller.form,)

    def test_json_that_does_not_fit_the_form_stays_json_with_the_reason(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        caller.args_mode.value = "json"
        caller.raw_args.value = '{"seed": "a", "extra": 1}'
        caller.args_mode.value = "form"
        assert caller.args_mode.value == "json" and caller.raw_args.value.startswith('{"seed"')
        assert "extra" in output_html(caller.error_area)


class TestPastCalls:
    """Issue 30 item 10: re-send a call from the history, or load it to change it."""

    def test_resend_makes_the_same_call_again(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        first = caller.call({"seed": "dawn"})
        caller.form.fill({"seed": "other"})
        caller.past.value = 0
        caller.resend_button.click()
        assert caller.last_error is None, caller.last_error
        again = caller.outcome
        assert again is not first and again.params == first.params == {"seed": "dawn"}
        assert again.result == first.result
        assert [e.kind for e in caller.hand.ledger] == ["tool.called", "tool.called"]
        assert [label for label, _ in caller.past.options] == [
            "#1 fortune-teller → oracle (ok)", "#2 fortune-teller → oracle (ok)"]

    @pytest.mark.slow
    def test_resend_goes_back_to_the_calls_agent_and_asks_approval_again(self, trip_desk):
        from workbench.widgets import Session, ToolCaller

        session = Session.from_config(trip_desk)
        try:
            caller = ToolCaller(session, source="trip-desk", agent="planner")
            assert caller.call(TRIP, approve=True).ok
            caller.select(source="in-process", agent="fortune-teller")
            again = caller.resend()
            assert (again.agent, again.tool, again.params) == ("planner", "plan_trip", TRIP)
            assert caller.source_select.value == "trip-desk"
            assert again.denied and again.reason == "not approved"  # a yes is not carried
        finally:
            session.close()

    def test_load_puts_the_call_back_in_the_form(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        caller.call({"seed": "dawn"})
        caller.form.fill({"seed": "changed"})
        caller.load_button.click()
        assert caller.form.value == {"seed": "dawn"} and caller.args_mode.value == "form"

    def test_a_call_that_was_never_made_is_a_clear_error(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        assert caller.resend_button.disabled
        with pytest.raises(ConfigError, match="no call 0 was made here \\(0 so far\\)"):
            caller.resend(0)


class TestCopy:
    """Issue 30 item 10: copy a call as JSON (a tools/call request) or as Python."""

    def test_as_json_is_the_request_a_host_sends_and_pastes_back(self, session):
        import json

        from workbench.widgets import ToolCaller
        from workbench.widgets.raw_call import parse_raw_call

        caller = ToolCaller(session, agent="fortune-teller")
        caller.form.fill({"seed": "dawn"})
        text = caller.as_json()
        assert json.loads(text) == {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                    "params": {"name": "oracle",
                                               "arguments": {"seed": "dawn"}}}
        assert parse_raw_call(text) == ("oracle", {"seed": "dawn"})
        caller.copy_json.click()
        assert caller.snippet.value == text and caller.snippet.layout.display is None

    def test_as_python_is_a_line_that_makes_the_same_call(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        caller.form.fill({"seed": "dawn"})
        line = caller.as_python()
        assert line == ("outcome = caller.call({'seed': 'dawn'}, source='in-process', "
                        "agent='fortune-teller', tool='oracle')")
        scope = {"caller": caller}
        exec(line, scope)  # the caller's own line, run as a person would paste it
        assert scope["outcome"].ok and scope["outcome"].params == {"seed": "dawn"}

    def test_unreadable_arguments_are_a_shown_error_not_a_snippet(self, session):
        from workbench.widgets import ToolCaller

        caller = ToolCaller(session, agent="fortune-teller")
        caller.copy_python.click()  # the seed is required and empty
        assert "seed: required" in output_html(caller.error_area)
        assert "FormError" not in output_html(caller.error_area)
        assert caller.snippet.layout.display == "none"
