"""The foreign-name index never rules out a text that names a foreign tool.

``names_foreign`` must answer exactly what tokenising the text would: the index only skips
the tokenising when no name can be there.
"""

from __future__ import annotations

import random

import pytest
from audit_data import REPO

from workbench.audit import lexicon as lex
from workbench.audit import tool_texts
from workbench.audit.names import names_foreign
from workbench.surface.audit_corpus import load_corpus


def by_tokens(text: str, names: frozenset[str]) -> bool:
    return any(t in names or t.rpartition(".")[2] in names
               for t in lex.TOOL_TOKEN.findall(text))


def check(text: str, names: frozenset[str]) -> bool:
    words = set(lex.WORD.findall(text.lower()))
    return names_foreign(text, words, names)


NAMES = frozenset({"fetch", "getMe", "read_file", "get-env", "v2", "list_issues",
                   "searchCode", "Ünïcode_tool", "x"})


@pytest.mark.parametrize("text", [
    "Use fetch first.", "Call getMe to learn who you are.", "Prefer read_file.",
    "then get-env runs", "api v2 only", "a fetcher, not a fetch.py", "read file",
    "call getme", "GETME", "x", "xx", "list_issues_v2", "Ünïcode_tool here", "İ fetch",
    "searchCode.", "(searchCode)", "fetch_all", "-fetch-", "", "github.read_file",
    "server.fetch now", "a.b.getMe",
])
def test_the_index_answers_what_tokenising_does(text):
    assert check(text, NAMES) == by_tokens(text, NAMES)


def test_names_with_dots_or_without_words_are_still_found():
    names = frozenset({"tool.v1", "___"})
    for text in ("call tool.v1 now", "call ___ now", "tool v1", "nothing here"):
        assert check(text, names) == by_tokens(text, names), text


def test_on_every_text_of_the_corpus_against_every_real_name():
    corpus = load_corpus(REPO / "tests/data/audit_corpus")
    names = frozenset(t["name"] for tools in corpus["real"].values() for t in tools)
    rng = random.Random(7)
    sample = rng.sample(corpus["poisoned"] + corpus["lookalikes"], 300)
    found = 0
    for item in sample:
        for _, text in tool_texts(item["tool"], deep=True):
            expected = by_tokens(text, names)
            found += expected
            assert check(text, names) == expected, text[:120]
    assert found >= 20  # the sample does name real tools


RENAMED = frozenset(f"{n}_{i}" for n in ("create_issue", "list_issues", "get_me", "fetch")
                    for i in range(40)) | {"create_issue", "issue"}


@pytest.mark.parametrize("text", [
    "create an issue", "create_issue_12 now", "create issue 12", "12 issues created",
    "call list_issues_39.", "get me 3", "github.get_me_7", "fetch_0", "fetch 0", "issue",
    "the create_issue tool", "create_issue_12_draft", "an issue_12",
])
def test_names_that_share_words_are_told_apart_by_all_their_words(text):
    # Keyed by its rarest word ("12"), a name is found only with all its words present.
    assert check(text, RENAMED) == by_tokens(text, RENAMED)


def test_an_index_of_every_name_answers_for_one_servers_foreign_names():
    # As the audit asks: one index of every name, a server's foreign names a part of it. A
    # text that holds its own server's names (as written, or word by word) names nothing
    # foreign; the qualified or plain name of another server's tool is found.
    corpus = load_corpus(REPO / "tests/data/audit_corpus")
    servers = {srv: frozenset(t["name"] for t in tools) for srv, tools in corpus["real"].items()}
    every = frozenset().union(*servers.values())
    checked = named = 0
    for srv, tools in corpus["real"].items():
        foreign = every - servers[srv]
        for tool in tools:
            for _, text in tool_texts(tool, deep=True):
                words = set(lex.WORD.findall(text.lower()))
                expected = by_tokens(text, foreign)
                assert names_foreign(text, words, foreign, every) == expected, (srv, text[:120])
                checked += 1
                named += expected
    own = sorted(servers["github"])[0]
    other = sorted(every - servers["github"])[0]
    for text, expected in ((f"call {own} first", False), (f"call {other} first", True),
                           (f"then x.{other}", True), (own.replace("_", " "), False)):
        words = set(lex.WORD.findall(text.lower()))
        assert names_foreign(text, words, every - servers["github"], every) is expected, text
    assert checked > 1000 and named >= 1
