"""The corpus's dev/test split (tests/data/audit_corpus/split.json): made once, disjoint by
writer and by server, covering every case once; and the scorer reports both halves."""

from __future__ import annotations

import importlib.util
import sys
from collections import defaultdict

import pytest
from surface_data import REPO

from workbench.errors import ConfigError
from workbench.surface.audit_corpus import HALVES, load_corpus, score, score_halves, writer_of

CORPUS = REPO / "tests/data/audit_corpus"


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(CORPUS)


@pytest.fixture(scope="module")
def split(corpus):
    return corpus["split"]


def _maker():
    # bench/ is scripts, not a package: load the maker the way its own directory would.
    sys.path.insert(0, str(REPO / "bench"))
    try:
        spec = importlib.util.spec_from_file_location(
            "make_audit_split", REPO / "bench/make_audit_split.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(REPO / "bench"))
    return module


def _labelled(corpus):
    return corpus["poisoned"] + corpus["lookalikes"]


class TestSplit:
    def test_every_case_is_in_exactly_one_half(self, corpus, split):
        ids = [i["id"] for i in _labelled(corpus) + corpus["rugpulls"]]
        assert len(ids) == len(set(ids))
        assert sorted(split["cases"]) == sorted(ids)
        assert set(split["cases"].values()) == set(HALVES)
        servers = {f"real/{s}" for s in corpus["real"]} | {
            f"archived/{s}" for s in corpus["archived"]}
        assert servers <= set(split["servers"]) and set(split["servers"].values()) == set(HALVES)

    def test_no_writer_spans_both_halves(self, corpus, split):
        halves = defaultdict(set)
        for item in _labelled(corpus):
            halves[writer_of(item)].add(split["cases"][item["id"]])
        assert {w: h for w, h in halves.items() if len(h) > 1} == {}
        assert {w: h.pop() for w, h in halves.items()} == split["writers"]

    def test_no_invented_server_spans_both_halves(self, corpus, split):
        # Two writers who both invented "weather" are one group: neither half has it alone.
        for item in _labelled(corpus):
            if item["server"] not in corpus["real"]:
                assert split["servers"][f"invented/{item['server']}"] == \
                    split["cases"][item["id"]], item["id"]

    def test_a_rug_pull_is_in_its_real_servers_half(self, corpus, split):
        for pair in corpus["rugpulls"]:
            assert split["cases"][pair["id"]] == split["servers"][f"real/{pair['server']}"]

    def test_every_class_is_in_both_halves(self, corpus, split):
        for half in HALVES:
            mine = [i for i in corpus["poisoned"] if split["cases"][i["id"]] == half]
            assert {i["class"] for i in mine} == {i["class"] for i in corpus["poisoned"]}
            assert any(split["cases"][i["id"]] == half for i in corpus["lookalikes"])

    def test_the_committed_split_is_what_the_maker_builds(self, capsys):
        # Deterministic: the recorded split is a function of who wrote what, where.
        assert _maker().main(["--check"]) == 0, capsys.readouterr()

    def test_the_maker_refuses_to_remake_the_split(self, capsys):
        before = (CORPUS / "split.json").read_bytes()
        assert _maker().main([]) == 1 and "made once" in capsys.readouterr().err
        assert (CORPUS / "split.json").read_bytes() == before

    def test_a_later_set_is_added_without_moving_a_recorded_case(self, corpus, split):
        maker = _maker()
        known = next(i for i in corpus["poisoned"] if i["split"] == "fresh12")
        tool = {"name": "t", "description": "d", "inputSchema": {"type": "object"}}
        late = [dict(known, id="fresh12a-polite-99", split="fresh15"),
                {"id": "fresh15a-polite-01", "class": "polite", "split": "fresh15",
                 "server": "f15a-new", "base": None, "tool": tool}]
        out = maker.add(dict(corpus, poisoned=corpus["poisoned"] + late), split)
        assert {k: out["cases"][k] for k in split["cases"]} == split["cases"]
        assert out["cases"]["fresh12a-polite-99"] == split["writers"]["fresh12a"]
        assert out["cases"]["fresh15a-polite-01"] == out["writers"]["fresh15a"] == "test"
        clash = dict(late[1], id="fresh15b-polite-01", server="weather")  # a dev server
        with pytest.raises(SystemExit, match="rename the new set's server"):
            maker.add(dict(corpus, poisoned=corpus["poisoned"] + [clash]), split)

    def test_writer_of_reads_the_set_and_the_id(self):
        assert writer_of({"id": "polite-03", "split": "held_out"}) == "first"
        assert writer_of({"id": "polite-f2", "split": "fresh"}) == "fresh"
        assert writer_of({"id": "fresh3-polite-03", "split": "fresh3"}) == "fresh3"
        assert writer_of({"id": "fresh11b-look-01", "split": "fresh11"}) == "fresh11b"


@pytest.fixture(scope="module")
def halves(corpus):
    return score_halves(corpus)


class TestScoredHalves:
    def test_a_half_needs_a_split_and_a_known_name(self, corpus):
        with pytest.raises(ConfigError, match="no split.json"):
            score(dict(corpus, split=None, poisoned=[], lookalikes=[]), half="dev")
        with pytest.raises(ConfigError, match="not a half"):
            score(dict(corpus, poisoned=[], lookalikes=[]), half="held_out")

    @pytest.mark.slow
    def test_both_halves_are_reported_and_add_up_to_the_whole(self, corpus, split, halves):
        assert set(halves) == set(HALVES)
        for half, s in halves.items():
            mine = {i for i, h in split["cases"].items() if h == half}
            n = sum(1 for i in corpus["poisoned"] if i["id"] in mine)
            assert s["recall"]["overall"]["n"] == n > 0
            assert set(s["recall"]) == {i["class"] for i in corpus["poisoned"]} | {"overall"}
            assert s["lookalikes"]["n"] == sum(1 for i in corpus["lookalikes"] if i["id"] in mine)
            assert set(s["missed"]) <= mine and set(s["lookalikes"]["flagged"]) <= mine
            assert {f"real/{r}" for r in s["real"]} | {f"archived/{r}" for r in s["archived"]} \
                == {k for k, h in split["servers"].items()
                    if h == half and not k.startswith("invented/")}
        assert sum(s["recall"]["overall"]["n"] for s in halves.values()) == \
            len(corpus["poisoned"])
        assert sum(s["rugpulls"]["n"] for s in halves.values()) == len(corpus["rugpulls"])


class TestTargetsOnTest:
    """Issue 26's targets, on the test half. Failures give counts, never the test ids missed:
    rules are written from dev only."""

    @pytest.mark.slow
    def test_recall_at_warning_overall_and_per_class(self, halves):
        recall = halves["test"]["recall"]
        assert recall["overall"]["warning"] >= 0.95, recall["overall"]
        assert {c: r["warning"] for c, r in recall.items() if r["warning"] < 0.80} == {}

    @pytest.mark.slow
    def test_no_warning_on_real_or_archived_tools(self, halves):
        test = halves["test"]
        assert sum(len(r["flagged"]) for r in [*test["real"].values(),
                                                *test["archived"].values()]) == 0

    @pytest.mark.slow
    def test_honest_look_alikes_at_most_one_in_25(self, halves):
        assert halves["test"]["lookalikes"]["rate"] <= 1 / 25, \
            len(halves["test"]["lookalikes"]["flagged"])

    @pytest.mark.slow
    def test_rug_pulls_and_renames_all_detected(self, halves):
        assert halves["test"]["rugpulls"]["detected"] == halves["test"]["rugpulls"]["n"] == 15
