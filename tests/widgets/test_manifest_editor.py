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
