"""The real-tool task sets under tests/data/selection: what bench_selection.py scores.

Each set is a surface directory of real tool definitions and request files naming one of
its tools. The many-servers set's tools are a seeded sample of the audit's honest baseline,
rebuilt from it by its script (data only: the baseline files record repository, commit
and licence).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.selection import load_tasks
from workbench.surface.scoring import surface_specs

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "selection"
BASELINE = REPO / "tests" / "data" / "audit_corpus" / "baseline"
SETS = [("mcp-servers", "dev.jsonl"), ("mcp-servers", "test.jsonl"),
        ("many-servers", "requests.jsonl")]


@pytest.mark.parametrize(("directory", "tasks"), SETS)
def test_every_request_names_one_tool_of_its_set(directory: str, tasks: str) -> None:
    names = {spec.name for spec in surface_specs(DATA / directory)}
    loaded = load_tasks(DATA / directory / tasks)
    assert loaded and all(task.tool in names for task in loaded)


class TestManyServers:
    def test_its_tools_are_the_baselines_definitions_unchanged(self) -> None:
        tools = json.loads((DATA / "many-servers" / "tools.json").read_text("utf-8"))["tools"]
        sources = json.loads((DATA / "many-servers" / "sources.json").read_text("utf-8"))
        assert len(sources) == 45 and len(tools) == sum(len(s["tools"]) for s in sources)
        for source in sources:
            original = json.loads((BASELINE / f"{source['server']}.json").read_text("utf-8"))
            assert source["repository"] == original["repository"]
            assert source["licence"] == original["licence"]
            by_name = {t["name"]: t for t in original["tools"]}
            for name in source["tools"]:
                mine = next(t for t in tools if t["name"] == f"{source['server']}.{name}")
                assert mine["description"] == (by_name[name].get("description") or "")
                assert mine["parameters"] == by_name[name]["inputSchema"]

    def test_each_tool_has_two_requests(self) -> None:
        names = {spec.name for spec in surface_specs(DATA / "many-servers")}
        asked = [task.tool for task in load_tasks(DATA / "many-servers" / "requests.jsonl")]
        assert len(asked) == 2 * len(names)
        assert {n: asked.count(n) for n in names} == dict.fromkeys(names, 2)

    def test_the_script_rebuilds_the_recorded_tools(self) -> None:
        done = subprocess.run([sys.executable, str(REPO / "bench/make_selection_many.py"),
                               "--check"], capture_output=True, text=True, cwd=REPO,
                              timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr

    def test_the_script_refuses_to_make_them_again(self) -> None:
        done = subprocess.run([sys.executable, str(REPO / "bench/make_selection_many.py")],
                              capture_output=True, text=True, cwd=REPO, timeout=60)
        assert done.returncode == 1 and "built once" in done.stderr
