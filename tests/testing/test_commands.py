"""`workbench test`: exit 0, 1 and 2, a line per broken expectation, JUnit (cli/test.py)."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET

import pytest

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess


def wb(workbench_cli, env, *args, cwd=None):
    return subprocess.run([*workbench_cli, "test", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=180)


@pytest.mark.slow
def test_the_shipped_config_passes(workbench_cli, offline_env, repo_root, tmp_path):
    out = wb(workbench_cli, offline_env, "config", "--junit", str(tmp_path / "j.xml"),
             cwd=repo_root)
    assert out.returncode == 0, out.stdout + out.stderr
    names = ["counting-house", "counting-house-curated", "oracle-grove", "town-square",
             "watch-house"]
    assert [line.split()[1] for line in out.stdout.splitlines()] == names
    assert out.stderr.strip().startswith("5 scenario(s): 5 passed, 0 failed")
    cases = list(ET.parse(tmp_path / "j.xml").getroot().iter("testcase"))
    assert [c.get("name") for c in cases] == [f"scenario::{n}" for n in names]


class TestOfflineScenarios:
    def test_a_broken_copy_exits_1_with_one_line_per_expectation(self, config_dir,
                                                                 workbench_cli, offline_env):
        # A grant given to the herald: it now calls the oracle it must never call.
        herald = config_dir / "agents" / "herald.yaml"
        herald.write_text(herald.read_text().replace("tools: []", "tools: [oracle]"))
        out = wb(workbench_cli, offline_env, str(config_dir), "--scenario", "town-square")
        assert out.returncode == 1
        lines = [x.strip() for x in out.stdout.splitlines()[1:]]
        assert [x.split(":")[1].strip() for x in lines] == [
            "never[0]", "denied[0]", "violations", "final_hash"]
        assert lines[0].startswith("town-square: never[0]: expected herald never to call "
                                   "oracle, found 2 call(s); nearest: seq ")

    def test_json_gives_each_failure_with_its_seq(self, config_dir, workbench_cli,
                                                  offline_env):
        path = config_dir / "scenarios" / "oracle-grove.yaml"
        path.write_text(path.read_text().replace("violations: 0", "violations: 3"))
        out = wb(workbench_cli, offline_env, str(config_dir), "--scenario", "oracle-grove",
                 "--format", "json")
        assert out.returncode == 1
        (report,) = json.loads(out.stdout)
        assert report["ok"] is False and report["failures"][0]["expectation"] == "violations"
        assert isinstance(report["failures"][0]["seq"], int)

    @pytest.mark.parametrize("edit, words", [
        (("  never:", "  nevr:"), "town-square.yaml:"),
        (("matches: \"market opens\"", "matches: \"(unclosed\""), "is not a regular expression"),
        (("  violations: 2", "  violations: -1"), "violations"),
    ])
    def test_a_bad_expect_block_exits_2_with_one_line(self, config_dir, workbench_cli,
                                                      offline_env, edit, words):
        path = config_dir / "scenarios" / "town-square.yaml"
        text = path.read_text()
        assert edit[0] in text
        path.write_text(text.replace(*edit))
        out = wb(workbench_cli, offline_env, str(config_dir))
        assert out.returncode == 2
        assert out.stderr.startswith("error: ") and out.stderr.count("\n") == 1
        assert words in out.stderr and "expect" in out.stderr

    def test_an_unknown_or_untested_scenario_exits_2(self, config_dir, workbench_cli,
                                                     offline_env):
        assert wb(workbench_cli, offline_env, str(config_dir), "--scenario",
                  "nowhere").returncode == 2
        path = config_dir / "scenarios" / "oracle-grove.yaml"
        path.write_text(path.read_text().split("# What a run must show")[0])
        out = wb(workbench_cli, offline_env, str(config_dir), "--scenario", "oracle-grove")
        assert out.returncode == 2 and "has no expect: block" in out.stderr

    def test_a_model_agent_without_a_cassette_fails_and_calls_nothing(
            self, config_dir, workbench_cli, offline_env):
        path = config_dir / "scenarios" / "counting-house.yaml"
        path.write_text(path.read_text().replace(
            "approve: [add_numbers, format_report]",
            "approve: [add_numbers, format_report]\n  cassette: cassettes/none.jsonl"))
        out = wb(workbench_cli, offline_env, str(config_dir), "--scenario", "counting-house")
        assert out.returncode == 1
        assert "counting-house: run: expect: cassette: " in out.stdout
        assert "does not exist" in out.stdout
