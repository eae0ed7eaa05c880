"""Freezing a run as its expect: block (testing/freeze.py, `workbench test --freeze`)."""

from __future__ import annotations

import subprocess

import pytest

from workbench.contracts.config import ConfigTree
from workbench.testing import check_scenario
from workbench.testing.freeze import freeze


def strip_expect(path):
    path.write_text(path.read_text().split("# What a run must show")[0])


class TestFreeze:
    def test_freeze_then_test_passes_and_comments_are_kept(self, config_dir):
        path = config_dir / "scenarios" / "town-square.yaml"
        strip_expect(path)
        path.write_text("# The square, as a person wrote it.\n" + path.read_text().replace(
            "max_ticks: 6", "max_ticks: 6  # six ticks: enough for two announcements"))
        before = path.read_text()
        frozen = freeze(config_dir, "town-square")
        assert frozen.written and not frozen.existed and frozen.deterministic
        after = path.read_text()
        assert after.startswith(before)  # everything as written, the block appended
        block = after[len(before):]
        assert block.startswith("expect:\n")
        assert "- {agent: herald, tool: oracle, reason: not granted}" in block
        assert "violations: 2" in block and "final_hash: " in block
        verdict = check_scenario(ConfigTree.load(config_dir), "town-square")
        assert verdict.ok, verdict.lines()

    def test_a_second_freeze_changes_nothing_and_shows_the_diff(self, config_dir):
        path = config_dir / "scenarios" / "town-square.yaml"
        herald = config_dir / "agents" / "herald.yaml"
        herald.write_text(herald.read_text().replace("tools: []", "tools: [oracle]"))
        before = path.read_bytes()
        frozen = freeze(config_dir, "town-square")
        assert frozen.existed and not frozen.written
        assert path.read_bytes() == before
        assert "-    - {agent: herald, tool: oracle, reason: not granted}" in frozen.diff
        assert "+    - {agent: herald, tool: oracle, count: 2}" in frozen.diff
        forced = freeze(config_dir, "town-square", force=True)
        assert forced.written
        text = path.read_text()
        # A person's promises and comments in the block stay; only derived keys change.
        assert "never:\n    - {agent: herald, tool: oracle}" in text
        assert "# at the boundary every time" in text
        assert "denied:" not in text and "violations: 0" in text
        verdict = check_scenario(ConfigTree.load(config_dir), "town-square")
        assert [f.expectation for f in verdict.failures] == ["never[0]"]

    def test_an_unchanged_block_is_left_alone(self, config_dir):
        path = config_dir / "scenarios" / "oracle-grove.yaml"
        before = path.read_bytes()
        frozen = freeze(config_dir, "oracle-grove")
        assert frozen.diff == "" and not frozen.written and path.read_bytes() == before


@pytest.mark.slow


def test_the_cli_freeze_exits_1_when_it_would_change_a_block(config_dir, workbench_cli,
                                                             offline_env):
    herald = config_dir / "agents" / "herald.yaml"
    herald.write_text(herald.read_text().replace("tools: []", "tools: [oracle]"))
    path = config_dir / "scenarios" / "town-square.yaml"
    before = path.read_bytes()
    out = subprocess.run([*workbench_cli, "test", str(config_dir), "--freeze", "town-square"],
                         capture_output=True, text=True, env=offline_env, timeout=60)
    assert out.returncode == 1 and out.stdout.startswith("---")
    assert "nothing was written. Run again with --force" in out.stderr
    assert path.read_bytes() == before
    forced = subprocess.run([*workbench_cli, "test", str(config_dir), "--freeze",
                             "town-square", "--force"], capture_output=True, text=True,
                            env=offline_env, timeout=60)
    assert forced.returncode == 0 and "froze town-square" in forced.stderr
