"""The pytest plugin, run by pytester as a user's CI would run it (testing/plugin.py)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """A project with a copy of the shipped config, offline scenarios only."""
    config = pytester.path / "config"
    shutil.copytree(REPO / "config", config)
    for name in ("watch-house", "counting-house", "counting-house-curated"):
        (config / "scenarios" / f"{name}.yaml").unlink()
    shutil.rmtree(config / "surfaces" / "watch-house")
    return config


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:nbval",
                                         "--workbench", "config", "config", *args)


def break_town_square(config: Path) -> None:
    path = config / "scenarios" / "town-square.yaml"
    path.write_text(path.read_text().replace("matches: \"market opens\"",
                                             "matches: \"the bridge burns\""))


class TestScenarioItems:
    def test_every_scenario_with_expect_passes(self, pytester, project):
        result = run(pytester, "-v")
        result.assert_outcomes(passed=2)
        result.stdout.fnmatch_lines(["*scenario::oracle-grove PASSED*",
                                     "*scenario::town-square PASSED*"])

    def test_a_failure_names_the_expectation_and_the_nearest_event(self, pytester, project):
        break_town_square(project)
        result = run(pytester)
        result.assert_outcomes(passed=1, failed=1)
        out = result.stdout.str()
        assert ("town-square: said[0]: expected a news.announced event of herald matching "
                "'the bridge burns', found 6 event(s), none matching; nearest: seq ") in out
        assert "Traceback" not in out

    def test_a_bad_expect_is_one_collection_error_with_file_line_and_key(self, pytester,
                                                                         project):
        path = project / "scenarios" / "town-square.yaml"
        path.write_text(path.read_text().replace("  never:", "  nevr:"))
        result = run(pytester)
        assert result.ret != 0
        line = [x for x in result.stdout.lines if "nevr" in x]
        assert line and "town-square.yaml:" in line[0] and "expect.nevr" in line[0]
        assert "unknown key; allowed keys: ticks, seed, calls, never" in line[0]
        assert "Traceback" not in result.stdout.str()

    def test_junit_xml_has_one_testcase_per_scenario(self, pytester, project):
        import xml.etree.ElementTree as ET

        break_town_square(project)
        run(pytester, "--junit-xml=report.xml")
        cases = ET.parse(pytester.path / "report.xml").getroot().iter("testcase")
        # pytest reads "::" in an id as a level: the case is NAME in class ....scenario.
        by_name = {c.get("name"): c for c in cases}
        assert set(by_name) == {"oracle-grove", "town-square"}
        assert all(c.get("classname").endswith(".scenario") for c in by_name.values())
        failure = by_name["town-square"].find("failure")
        assert failure is not None and "said[0]" in failure.get("message")
        assert by_name["oracle-grove"].find("failure") is None

    def test_k_selects_one_scenario(self, pytester, project):
        break_town_square(project)
        result = run(pytester, "-k", "oracle", "-v")
        result.assert_outcomes(passed=1, deselected=1)

    def test_x_stops_at_the_first_failure(self, pytester, project):
        break_town_square(project)
        (project / "scenarios" / "oracle-grove.yaml").write_text(
            (project / "scenarios" / "oracle-grove.yaml").read_text().replace(
                "violations: 0", "violations: 5"))
        result = run(pytester, "-x")
        result.assert_outcomes(failed=1)

    def test_without_the_option_nothing_is_collected(self, pytester, project):
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:nbval",
                                               "config")
        assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


class TestSelectionItems:
    def test_a_surface_with_a_gate_is_one_item_and_fails_with_its_lines(self, pytester,
                                                                        project):
        surface = project / "surfaces" / "counting-house"
        (surface / "selection.yaml").write_text("selector: bm25\nmin_top1: 0.9\n")
        (surface / "tasks.jsonl").write_text(textwrap.dedent("""\
            {"query": "add 2 and 3", "tool": "add_numbers"}
            {"query": "sum of the takings", "tool": "format_report", "must_not": ["add_numbers"]}
        """))
        result = run(pytester, "-k", "selection")
        result.assert_outcomes(failed=1, deselected=2)
        out = result.stdout.str()
        assert "selection::counting-house: min_top1: bm25 reached 0.500, under 0.900" in out
        assert ("selection::counting-house: must_not: add_numbers ranks first for "
                "'sum of the takings'") in out
