"""Atomic writes keep the file's mode and write through a symlink (issue 11)."""

from __future__ import annotations

import os

import pytest

from workbench.atomic import write_text_atomic


@pytest.mark.parametrize("mode", [0o644, 0o664, 0o600, 0o444])
def test_the_mode_is_kept(tmp_path, mode):
    path = tmp_path / "agent.yaml"
    path.write_text("old\n")
    path.chmod(mode)
    write_text_atomic(path, "new\n")
    assert path.stat().st_mode & 0o7777 == mode and path.read_text() == "new\n"


def test_a_link_stays_a_link_even_a_relative_one(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "agent.yaml"
    target.write_text("old\n")
    link = tmp_path / "agent.yaml"
    link.symlink_to(os.path.join("real", "agent.yaml"))
    write_text_atomic(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == os.path.join("real", "agent.yaml")
    assert target.read_text() == "new\n" and sorted(os.listdir(tmp_path / "real")) == [
        "agent.yaml"]


def test_the_manifest_editor_saves_through_it(config_dir):
    from workbench.widgets import ManifestEditor, Session

    path = config_dir / "agents" / "fortune-teller.yaml"
    path.chmod(0o640)
    editor = ManifestEditor(Session.from_config(config_dir), "fortune-teller")
    editor.grant_boxes["oracle"].value = False
    assert editor.save() == path
    assert path.stat().st_mode & 0o7777 == 0o640
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]
