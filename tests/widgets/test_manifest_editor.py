from __future__ import annotations

from pathlib import Path

import pytest

from workbench.contracts.manifest import load_manifest
from workbench.widgets import ManifestEditor, Session


@pytest.fixture
def editor(config_dir: Path) -> ManifestEditor:
    return ManifestEditor(Session.from_config(config_dir), "fortune-teller")


class TestLiveEdits:
    def test_unticking_a_grant_changes_the_live_manifest(self, editor):
        editor.grant_boxes["oracle"].value = False
        assert editor.session.manifests["fortune-teller"].tools == ()
        assert "unsaved" in editor.status.value

    def test_grants_offer_every_known_tool(self, editor):
        assert set(editor.grant_boxes) == set(editor.session.known_tools())

    def test_switching_agent_loads_its_fields(self, editor):
        editor.select("herald")
        assert editor.tick_every.value == "1"
        assert editor.may_emit.value == "news.announced"
        assert not editor.grant_boxes["oracle"].value

    def test_editing_one_agent_leaves_the_others(self, editor):
        before = dict(editor.session.manifests)
        editor.persona.value = "A new seer."
        changed = {n for n, m in editor.session.manifests.items() if m != before[n]}
        assert changed == {"fortune-teller"}


class TestProblemsAsYouType:
    def test_bad_kind_is_shown_next_to_its_field(self, editor):
        editor.may_emit.value = "Oracle"
        message = editor.problems["may_emit"]
        assert "fortune-teller.yaml" in message and "may_emit[0]" in message
        assert "is not a valid event kind" in message
        assert "is not a valid event kind" in editor._problem_labels["may_emit"].value
        assert editor._problem_labels["persona"].value == ""

    def test_invalid_edit_is_not_applied(self, editor):
        editor.tick_every.value = "-1"
        assert "schedule.tick_every" in editor.problems["schedule"]
        assert "greater than or equal to 0" in editor.problems["schedule"]
        assert editor.session.manifests["fortune-teller"].schedule.tick_every is None
        assert "not applied" in editor.status.value

    def test_two_bad_fields_show_two_problems(self, editor):
        editor.tick_every.value = "soon"
        editor.subscribes_to.value = "world.observed, NOPE"
        assert set(editor.problems) == {"schedule", "subscribes_to"}

    def test_fixing_the_field_clears_the_problem_and_applies(self, editor):
        editor.tick_every.value = "x"
        editor.tick_every.value = "3"
        assert editor.problems == {}
        assert editor.session.manifests["fortune-teller"].schedule.tick_every == 3

    def test_problem_line_is_the_saved_files_line(self, editor):
        editor.tick_every.value = "x"
        path = editor.session.manifest_path("fortune-teller")
        line = int(editor.problems["schedule"].split(":")[1])
        editor.tick_every.value = "4"
        editor.save()
        assert path.read_text().splitlines()[line - 1].strip().startswith("tick_every")


class TestSave:
    def test_save_round_trips(self, editor):
        editor.grant_boxes["oracle"].value = False
        editor.persona.value = "Line one.\nLine two: with a colon."
        editor.tick_every.value = "2"
        path = editor.save()
        assert load_manifest(path) == editor.session.manifests["fortune-teller"]
        assert "live, saved" in editor.status.value

    def test_save_keeps_the_header_comment(self, editor):
        path = editor.session.manifest_path("fortune-teller")
        header = path.read_text().splitlines()[0]
        editor.save()
        assert path.read_text().splitlines()[0] == header

    def test_save_is_atomic_and_leaves_no_temp_files(self, editor):
        path = editor.save()
        assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(".")) == []

    def test_save_button_refuses_invalid_fields_and_shows_why(self, editor):
        path = editor.session.manifest_path("fortune-teller")
        before = path.read_bytes()
        editor.tick_every.value = "often"
        editor.save_button.click()
        assert path.read_bytes() == before
        assert "not saved" in str(editor.last_error)
        shown = editor.error_area.outputs[0]["data"]["text/html"]
        assert "tick_every" in shown and "not saved" in shown

    def test_revert_reloads_the_file(self, editor):
        editor.grant_boxes["oracle"].value = False
        editor.revert_button.click()
        assert editor.session.manifests["fortune-teller"].tools == ("oracle",)
        assert editor.grant_boxes["oracle"].value


class TestCallbackErrors:
    def test_an_exception_in_a_callback_is_shown_not_swallowed(self, editor, config_dir):
        # A real failure: the agents directory is gone, so the atomic write cannot start.
        agents = config_dir / "agents"
        original = (agents / "fortune-teller.yaml").read_bytes()
        for path in agents.iterdir():
            path.unlink()
        agents.rmdir()
        editor.save_button.click()
        assert isinstance(editor.last_error, OSError)
        html = editor.error_area.outputs[0]["data"]["text/html"]
        assert "FileNotFoundError" in html or "No such file" in html
        assert not agents.exists() and original  # nothing half-written anywhere

    def test_repr_is_short(self, editor):
        assert repr(editor) == "ManifestEditor(agent='fortune-teller', problems=[])"


class TestGrantsPerScenario:
    def test_a_scenario_without_servers_offers_the_in_process_tools(self, config_dir):
        editor = ManifestEditor(Session.from_config(config_dir), "fortune-teller",
                                scenario="oracle-grove")
        assert [(o.tool, o.group, o.hidden) for o in editor.options] == [
            ("oracle", "in-process", False)]

    def test_a_curated_scenario_offers_its_servers_tools_grouped_hidden_ones_hidden(
            self, config_dir):
        session = Session.from_config(config_dir)
        editor = ManifestEditor(session, "timekeeper", scenario="watch-house")
        groups = {o.group for o in editor.options}
        assert groups == {"in-process", "time", "everything"}
        offered = {o.tool: o for o in editor.options}
        assert offered["get_current_time"].group == "time" and not offered["echo"].hidden
        assert offered["get-sum"].hidden and offered["get-env"].hidden
        # Hidden and not granted: cannot be ticked. Hidden but granted: can be taken away.
        assert editor.grant_boxes["get-sum"].disabled
        assert editor.grant_boxes["get-sum"].description == "get-sum (hidden by curation)"
        assert editor.grant_boxes["get-env"].value and not editor.grant_boxes["get-env"].disabled
        headers = [w.value for w in editor.grants.children if not hasattr(w, "indent")]
        assert headers == ["<b>in-process</b>", "<b>everything</b>", "<b>time</b>"]
        # Nothing was started to list them: the surface's pins say what the servers offer.
        assert session._server_resolvers == {}

    def test_a_tool_the_scenario_does_not_offer_is_flagged(self, config_dir):
        editor = ManifestEditor(Session.from_config(config_dir), "timekeeper",
                                scenario="oracle-grove")
        assert editor.grant_boxes["echo"].description == "echo (not offered)"
        editor.set_scenario("watch-house")
        assert editor.grant_boxes["echo"].description == "echo"


class TestCommentPreservingSave:
    def test_comments_explicit_keys_and_style_survive_only_the_edit_changes(self, config_dir):
        path = config_dir / "agents" / "timekeeper.yaml"
        path.write_text(path.read_text().replace(
            "may_emit: [clock.read]", "may_emit: [clock.read]  # what it says out loud"))
        before = path.read_text()
        editor = ManifestEditor(Session.from_config(config_dir), "timekeeper")
        editor.set_grant("get-env", False)
        editor.save()
        after = path.read_text()
        assert "may_emit: [clock.read]  # what it says out loud" in after
        assert "subscribes_to: []" in after  # an explicit default key stays
        changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(),
                                          strict=True) if a != b]
        assert changed == [("tools: [get_current_time, echo, get-env]",
                            "tools: [get_current_time, echo]")]
        assert load_manifest(path).tools == ("get_current_time", "echo")

    def test_a_nested_edit_keeps_the_comments_around_it(self, config_dir):
        path = config_dir / "agents" / "fortune-teller.yaml"
        text = path.read_text()
        assert "tick_every" in text
        path.write_text(text.replace("schedule:", "schedule:  # how often it acts"))
        editor = ManifestEditor(Session.from_config(config_dir), "fortune-teller")
        editor.tick_every.value = "5"
        editor.save()
        after = path.read_text()
        assert "schedule:  # how often it acts" in after and "tick_every: 5" in after
        assert load_manifest(path).schedule.tick_every == 5

    def test_grants_of_servers_not_started_are_not_called_unoffered(self, config_dir):
        (config_dir / "scenarios" / "raw-clock.yaml").write_text(
            (config_dir / "scenarios" / "watch-house.yaml").read_text()
            .replace("name: watch-house", "name: raw-clock")
            .replace("surface: surfaces/watch-house\n", ""))
        editor = ManifestEditor(Session.from_config(config_dir), "timekeeper",
                                scenario="raw-clock")
        assert editor.session.lists_unknown("raw-clock")
        assert editor.grant_boxes["echo"].description == "echo"
        assert {o.group for o in editor.options if o.tool == "echo"} == {
            "from its servers (listed after the first run)"}
