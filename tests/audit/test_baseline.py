"""The honest baseline (tests/data/audit_corpus/baseline) loads and is what its README says.

Only its shape is tested here: the audit's false-alarm rate on it is a measurement
(``python bench/bench_audit_baseline.py``), never a test. It is split once by repository
(``baseline_split.json``): rules may be written from the dev half, never from test.
"""

from __future__ import annotations

import json
import re

import pytest
from audit_data import REPO

BASELINE = REPO / "tests/data/audit_corpus/baseline"
CORPUS = REPO / "tests/data/audit_corpus"
REQUIRED = ("server", "repository", "commit", "licence", "source_files", "tools")
LICENCES = {"MIT", "Apache-2.0", "BSD-3-Clause", "BSD-2-Clause", "ISC", "MPL-2.0"}
WIRE = {"name", "title", "description", "inputSchema", "outputSchema", "annotations"}
MARKS = {"schema", "schema_note", "annotations_note"}
HINTS = {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}


@pytest.fixture(scope="module")
def servers():
    return {p.name: json.loads(p.read_text("utf-8")) for p in sorted(BASELINE.glob("*.json"))}


class TestBaselineFiles:
    def test_every_file_records_where_its_tools_came_from(self, servers):
        for name, data in servers.items():
            assert all(key in data for key in REQUIRED), name
            assert name == f"{data['server']}.json"
            assert re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", data["repository"]), name
            assert re.fullmatch(r"[0-9a-f]{40}", data["commit"]), name
            assert data["licence"] in LICENCES, name
            assert data["source_files"] and data["extraction"], name

    def test_holds_at_least_1000_tools_from_at_least_40_servers(self, servers):
        assert len(servers) >= 40
        assert sum(len(d["tools"]) for d in servers.values()) >= 1000
        assert all(d["tools"] for d in servers.values())

    def test_server_tool_pairs_are_unique(self, servers):
        pairs = [(d["server"], t["name"]) for d in servers.values() for t in d["tools"]]
        assert len(pairs) == len(set(pairs))
        assert len({d["server"] for d in servers.values()}) == len(servers)

    def test_tools_are_wire_data_only(self, servers):
        for data in servers.values():
            for tool in data["tools"]:
                where = f"{data['server']}/{tool.get('name')}"
                assert set(tool) <= WIRE | MARKS, where
                assert isinstance(tool["name"], str) and tool["name"], where
                assert isinstance(tool.get("description", ""), str), where
                assert isinstance(tool["inputSchema"], dict), where
                assert tool["inputSchema"].get("type") == "object", where
                assert set(tool.get("annotations", {})) <= HINTS, where
                assert tool.get("schema") in (None, "not extracted"), where
                if tool.get("schema"):
                    assert tool["inputSchema"] == {"type": "object"}, where

    def test_no_server_is_one_the_rest_of_the_corpus_uses(self, servers):
        used = {json.loads(p.read_text("utf-8"))["server"]
                for folder in ("real", "archived") for p in (CORPUS / folder).glob("*.json")}
        assert not used & {d["server"] for d in servers.values()}
        sources = {json.loads(p.read_text("utf-8"))["source"]["repo"]
                   for folder in ("real", "archived") for p in (CORPUS / folder).glob("*.json")}
        assert not sources & {d["repository"] for d in servers.values()}


class TestBaselineReadme:
    def test_lists_every_server_with_its_licence_and_tool_count(self, servers):
        text = (BASELINE / "README.md").read_text("utf-8")
        rows = {}
        for line in text.splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) == 7 and cells[4].isdigit():
                rows[cells[0]] = (cells[1], cells[3], int(cells[4]))
        assert rows == {d["server"]: (d["repository"], d["licence"], len(d["tools"]))
                        for d in servers.values()}


@pytest.fixture(scope="module")
def split():
    return json.loads((CORPUS / "baseline_split.json").read_text("utf-8"))


class TestBaselineSplit:
    """The split recorded once: whole repositories, every one in exactly one half."""

    def test_every_repository_is_in_exactly_one_half(self, servers, split):
        dev, test = set(split["dev"]), set(split["test"])
        assert not dev & test
        assert dev | test == {data["repository"] for data in servers.values()}

    def test_the_recorded_tool_counts_are_the_halves(self, servers, split):
        counts = {"dev": 0, "test": 0}
        for data in servers.values():
            counts["dev" if data["repository"] in split["dev"] else "test"] += len(
                data["tools"])
        assert counts == split["tools"]
        assert min(counts.values()) >= 1000  # each half large enough to measure alone

    def test_the_split_script_rebuilds_the_recorded_split(self):
        import subprocess
        import sys

        done = subprocess.run([sys.executable, str(REPO / "bench/make_baseline_split.py"),
                               "--check"], capture_output=True, text=True, cwd=REPO,
                              timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr

    def test_the_script_refuses_to_make_it_again(self):
        import subprocess
        import sys

        done = subprocess.run([sys.executable, str(REPO / "bench/make_baseline_split.py")],
                              capture_output=True, text=True, cwd=REPO, timeout=60)
        assert done.returncode == 1 and "made once" in done.stderr
