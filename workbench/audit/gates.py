"""Which reading blocks a text can open: the trigger strings it holds, found cheaply.

Most sentences of most tools are honest and plain. Before any pattern of a reading block
runs, :func:`gates_of` finds which triggers a text holds (words that open a block, runs of
letters inside words, phrases, punctuation marks), and :func:`opens` says whether any block
may find something behind them. The patterns themselves are
:class:`~workbench.audit.match.Gated` rules in :mod:`~workbench.audit.lexicon`.
"""

from __future__ import annotations

import re

from workbench.audit import lexicon as lex
from workbench.audit import user_data as ud
from workbench.audit.match import Gated, trie
from workbench.audit.rules import openers

__all__ = ["gates_of", "one_space", "opens", "words_in"]

_WORD = lex.WORD
# Every byte but a-z and 0-9 as a space: an ASCII text's words are then its split.
_NOT_WORD = bytes(c if chr(c) in "abcdefghijklmnopqrstuvwxyz0123456789" else 32
                  for c in range(256))


def words_in(text: str) -> set[str]:
    """``set(WORD.findall(text))``: the runs of a-z and 0-9.

    An ASCII text by a byte translation and a split, at two thirds of the pattern's cost.
    """
    if text.isascii():
        return set(text.encode().translate(_NOT_WORD).decode().split())
    return set(_WORD.findall(text))


# The one word list that is a gate of its own: an imperative sentence's first verb (the
# pattern that reads it starts at the sentence, which a trigger cannot say).
_IMPERATIVE_SET = frozenset(lex.IMPERATIVE_VERBS)


# The trigger index: every trigger of every Gated pattern (the vocabulary modules, imported
# above, have registered theirs), sorted by how it is found.
_ALL_TRIGGERS = frozenset().union(*(g.all_triggers for g in Gated.registry))
# Triggers that are one run of letters and digits: found inside a text's words.
_WORD_TRIGGERS = tuple(sorted(t for t in _ALL_TRIGGERS if t.isalnum()))
# Triggers that are a whole word, written ``=word`` ("=ai" is not in "email").
_EXACT_TRIGGERS = tuple(sorted(t for t in _ALL_TRIGGERS if t[0] == "=" and t[1:].isalnum()))
# Triggers with spaces or punctuation ("so far", "<", "[//]"): found by substring.
_PHRASE_TRIGGERS = tuple(sorted(t for t in _ALL_TRIGGERS
                                if not t.isalnum() and t not in _EXACT_TRIGGERS))


# Substring triggers (phrases such as "so far", "~/", ".env") are looked for only when
# their longest run of letters and digits occurs inside one of the text's words: that run
# must, wherever the phrase occurs. Phrases whose run is one letter ("n't", "'s", in most
# texts) or that have none ("#", "~/.") are looked for behind a mark they hold instead.
_PHRASES = frozenset(_PHRASE_TRIGGERS)


def _head(phrase: str) -> str:
    return max(_WORD.findall(phrase), key=len, default="")


def _mark(phrase: str) -> str:
    return next(c for c in phrase if not c.isalnum() and not c.isspace())


_BY_HEAD: dict[str, tuple[str, ...]] = {}
_BY_MARK: dict[str, tuple[str, ...]] = {}
for _p in sorted(_PHRASES):
    if len(_head(_p)) > 1:
        _BY_HEAD[_head(_p)] = (*_BY_HEAD.get(_head(_p), ()), _p)
    else:
        assert " " not in _p, "gates_of looks for these as written"
        _BY_MARK[_mark(_p)] = (*_BY_MARK.get(_mark(_p), ()), _p)
_HEADS = frozenset(_BY_HEAD)
_MARKED = tuple(_BY_MARK.items())
_WORD_TOKENS = tuple(sorted(set(_WORD_TRIGGERS) | _HEADS))
_EXACT = frozenset(t[1:] for t in _EXACT_TRIGGERS)


# Every token found where a match starts, with the tokens it begins with ("passw" holds
# "pass"): the longest one at each position is what the tree matches.
_LONGEST = re.compile(trie(_WORD_TOKENS))
_TOKEN_SET = frozenset(_WORD_TOKENS)
_PREFIXES = {t: frozenset(t[:i] for i in range(1, len(t) + 1) if t[:i] in _TOKEN_SET)
             for t in _WORD_TOKENS}


def _tokens_in(word: str) -> set[str]:
    """The word tokens (pattern triggers and phrase heads) inside one lowercased word.

    ``{t for t in _WORD_TOKENS if t in word}``, by one pass of :data:`_LONGEST`: a new word
    met 400 substring tests (hostile servers send endless new words).
    """
    found = _LONGEST.findall(word)
    if not found:
        return set()
    if len(found) == 1:
        return set(_PREFIXES[found[0]])
    return set().union(*map(_PREFIXES.__getitem__, found))


def _word_gates(word: str) -> frozenset[str]:
    """The reading blocks, pattern triggers and phrase heads one lowercased word holds."""
    out = _tokens_in(word)
    if word in _EXACT:
        out.add("=" + word)
    if word in _IMPERATIVE_SET:
        out.add("imperative")
    if "0x" in word or "bc1" in word:  # a wallet address
        out.add("dest")
    if "tool" in word or "function" in word:
        out.add("generic")
    return frozenset(out)


# Word -> gates for the words met that open something, and the set of words met that open
# nothing: one C-level set difference drops most of a text's words before any lookup.
# Bounded: a hostile server can send endless words.
_WORD_GATES: dict[str, frozenset[str]] = {}
_WORD_INERT: set[str] = set()
_WORD_MEMO_MAX = 200_000


def one_space(text: str) -> str:
    r"""``re.sub(r"\s+", " ", text)``: each run of blank space as one space.

    By ``str.split``, which splits on the same blank space as ``\s``, at a fraction of the
    cost of a pattern that looks at every character.
    """
    inner = " ".join(text.split())
    if not inner:
        return " " if text else ""
    return (" " if text[0].isspace() else "") + inner + (" " if text[-1].isspace() else "")


def gates_of(lower: str, words: set[str] | None = None) -> set[str]:
    """Which reading blocks a (lowercased) text can trigger, and which triggers it holds.

    The triggers are those of the gated patterns (:class:`~workbench.audit.match.
    Gated`). A set difference, a dictionary lookup per word that opens something and a few
    substring tests, so most sentences run none of a block's patterns. ``words`` are the
    text's words (``_WORD`` runs), when the caller has them already.
    """
    memo = _WORD_GATES
    out: set[str] = set()
    if words is None:
        words = words_in(lower)
    for word in words - _WORD_INERT:
        gates = memo.get(word)
        if gates is None:
            gates = _word_gates(word)
            if len(memo) + len(_WORD_INERT) < _WORD_MEMO_MAX:
                if gates:
                    memo[word] = gates
                else:
                    _WORD_INERT.add(word)
        out.update(gates)
    # Phrases are looked for with blank space as one space: "no  need\tto" is "no need to"
    # (collapsed only when a phrase with a space is not found as is).
    spaced: str | None = None
    for head in out & _HEADS:
        for p in _BY_HEAD[head]:
            if p in lower:
                out.add(p)
            elif " " in p:
                if spaced is None:
                    # Printable ASCII holds no blank space but single spaces and runs of them.
                    plain = lower.isascii() and lower.isprintable() and "  " not in lower
                    spaced = lower if plain else one_space(lower)
                if p in spaced:
                    out.add(p)
    for mark, phrases in _MARKED:  # none holds a space
        if mark in lower:
            out.update(p for p in phrases if p in lower)
    if "/" in lower or "\\" in lower:
        out.add("path")
    if "_" in lower or "-" in lower:
        out.add("hook")
    if "@" in lower or "+" in lower:  # (0x and bc1 of a wallet address: by word)
        out.add("dest")
    return out


# Every gate and trigger a reading rule opens on (its ``opens_on``, in
# :mod:`workbench.audit.rules.reading`): a text holding none of them cannot produce a
# finding, so its sentences are not read one by one. (Counting each Gated rule's AND groups
# too skipped a quarter more texts, but cost more than it saved.)
# A gate that opens a rule only beside a vocabulary (an imperative only through a transfer
# or a claim to priority, a hyphenated name only in a hook) is checked with it: most texts
# hold a hyphen or an imperative verb, few a hook.
_OPENERS, _OPENERS_BOTH, _OPENED_BY = openers({name: value for module in (lex, ud)
                                               for name, value in vars(module).items()
                                               if isinstance(value, Gated)})
_BOTH_GATES = frozenset(_OPENERS_BOTH)
# The triggers that open a rule of theirs alone (a rule of one group of triggers): a text
# holding one opens a block whatever else it holds (most texts that open do so this way).
_OPEN_ALONE = frozenset(
    t for t in _OPENERS if t not in _OPENED_BY
    or any(v.opens_alone(t) for v in _OPENED_BY[t]))


def opens(gates: set[str]) -> bool:
    """Whether a reading block of ``text.read_text`` may find something behind ``gates``.

    A trigger opens a vocabulary's rule only with the rest of that rule's triggers (``we``
    and ``appreciate``): most texts that hold one trigger hold no whole rule's.
    """
    if not gates.isdisjoint(_OPENERS):
        if not gates.isdisjoint(_OPEN_ALONE):
            return True
        for trigger in _OPENERS.intersection(gates):
            vocabularies = _OPENED_BY.get(trigger)
            if vocabularies is None:
                return True  # a plain gate: its block looks for itself
            for vocabulary in vocabularies:
                if vocabulary.opened(gates):
                    return True
    if _BOTH_GATES.isdisjoint(gates):
        return False
    return any(vocabulary.opened(gates) for gate in _BOTH_GATES & gates
               for vocabulary in _OPENERS_BOTH[gate])
