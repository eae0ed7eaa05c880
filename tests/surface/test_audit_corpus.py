"""The audit's targets on the labelled corpus (tests/data/audit_corpus), so they cannot
silently regress. The corpus is data: these are behaviour tests, not timing tests (speed is
measured by ``make bench`` only)."""

from __future__ import annotations

import json

import pytest
from surface_data import REPO

from workbench.errors import ConfigError
from workbench.surface.audit_corpus import REFERENCE_SERVERS, load_corpus, score

#: Scores the whole corpus: not part of `make test-fast`.
pytestmark = pytest.mark.slow

CORPUS = REPO / "tests/data/audit_corpus"
# The order the labelled sets were written in; each "fresh" set was scored once before any
# tuning on it (the corpus README has those first scores).
SPLITS = ("dev", "held_out", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7",
          "fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13",
          "fresh14")
CLASSES = {"directive", "polite", "invisible", "schema", "overask", "shadowing", "exfil"}


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(CORPUS)


@pytest.fixture(scope="module")
def scored(corpus):
    return score(corpus)


class TestCorpus:
    def test_every_item_is_labelled_and_every_real_tool_has_a_source(self, corpus):
        assert set(REFERENCE_SERVERS) <= set(corpus["real"]) and "github" in corpus["real"]
        for server, source in corpus["sources"].items():
            assert source["repo"] and source["path"] and source["licence"] == "MIT", server
        assert {i["class"] for i in corpus["poisoned"]} == CLASSES
        ids = [i["id"] for i in corpus["poisoned"] + corpus["lookalikes"]]
        assert len(ids) == len(set(ids))
        assert {i["split"] for i in corpus["poisoned"]} == set(SPLITS)
        assert {p["kind"] for p in corpus["rugpulls"]} == {"rug_pull", "rename"}

    def test_a_bad_corpus_file_is_a_clear_error(self, tmp_path):
        (tmp_path / "real").mkdir()
        (tmp_path / "poisoned.json").write_text("{not json")
        with pytest.raises(ConfigError, match="poisoned.json"):
            load_corpus(tmp_path)


class TestTargets:
    @pytest.mark.slow
    def test_recall_at_warning_overall_and_per_class(self, scored):
        recall = scored["recall"]
        assert recall["overall"]["warning"] >= 0.95, scored["missed"]
        for cls in CLASSES:
            assert recall[cls]["warning"] >= 0.80, (cls, scored["missed"])

    def test_no_warning_on_the_reference_servers_real_tools(self, scored):
        flagged = {s: scored["real"][s]["flagged"] for s in REFERENCE_SERVERS}
        assert flagged == {s: [] for s in REFERENCE_SERVERS}

    def test_honest_look_alikes_at_most_ten_percent(self, scored):
        assert scored["lookalikes"]["rate"] <= 0.10, scored["lookalikes"]["flagged"]

    def test_no_warning_on_the_archived_reference_servers(self, scored):
        # Twelve more real servers, audited on their own: no rule was written from them.
        assert len(scored["archived"]) == 12
        assert {s: r["flagged"] for s, r in scored["archived"].items() if r["flagged"]} == {}

    def test_a_look_alikes_name_clash_with_a_real_tool_is_counted_apart(self, corpus):
        # A clash is a true finding (both servers offer the name), but it says nothing about
        # the look-alike's text: it is reported beside the false-alarm rate, not in it.
        item = {"id": "clash", "kind": "sibling", "server": "x", "split": "dev",
                "tool": {"name": "create_issue", "description": "Creates an issue.",
                         "inputSchema": {"type": "object"}, "annotations": {
                             "readOnlyHint": False, "openWorldHint": True}}}
        s = score(dict(corpus, poisoned=[], lookalikes=[item], rugpulls=[]))
        assert s["lookalikes"]["flagged"] == [] and s["lookalikes"]["collisions"] == ["clash"]

    def test_rug_pulls_and_renames_all_detected(self, scored):
        assert scored["rugpulls"]["detected"] == scored["rugpulls"]["n"] == 16

    def test_poisoned_variants_rank_above_their_originals(self, scored):
        # Reported, not a target; the last set (fresh10) is left untuned, so a few of its
        # variants may tie with their original.
        assert scored["paired"]["n"] >= 60
        assert scored["paired"]["rate"] >= 0.98, scored["paired"]

    def test_the_score_moves_when_the_audit_would_miss(self, corpus):
        # The scorer is not a constant: a poisoned item whose attack is removed is missed.
        item = next(i for i in corpus["poisoned"] if i["id"] == "directive-01")
        clean = dict(item, tool=json.loads(json.dumps(item["tool"])))
        clean["tool"]["description"] = "Get current time in a specific timezone"
        s = score(dict(corpus, poisoned=[clean], lookalikes=[], rugpulls=[]))
        assert s["missed"] == ["directive-01"] and s["recall"]["overall"]["warning"] == 0
