"""Pattern machinery for the audit: cheap case-blind matching, patterns gated by triggers.

The audit runs hundreds of patterns over every text a server sends. Two costs dominate, and
each class here removes one: a case-blind pattern is about 60% slower per run than a plain
one (:class:`CaseBlind` runs it plain on lowercased text when it can), and a pattern that
cannot match still costs a scan (:class:`Gated` skips it unless one of its trigger strings
is in the text). The vocabulary itself is in :mod:`~workbench.audit.lexicon`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from typing import Any, ClassVar

from workbench.audit.starts import MAX_FIRST, first_chars

__all__ = ["CaseBlind", "Gated", "alt", "compiled", "rx", "trie"]


# Escapes and inline flags that hold capital letters without naming one ("\\S", "(?-i:").
_ESCAPES = re.compile(r"\\[A-Za-z]")
_CASED = re.compile(r"[A-Z]|\(\?-i")


# -- a lookahead on a pattern's first characters ----------------------------------------
# A pattern that opens with \b and an alternation of words gives the regex engine nothing to
# scan for, so it tries every alternative at every position. Put in front, a lookahead on
# the characters a match can start with rejects most positions at once: about half the time
# for such patterns, with the same matches. The first characters are read from the
# pattern's text (:mod:`~workbench.audit.starts`); when they cannot be (a class like \w, a
# scoped flag, a pattern that can match nothing), the pattern is compiled as written.
_MAX_FIRST = MAX_FIRST


def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, with a lookahead on the characters a match starts with.

    Same matches, same groups; compiled as written when the first characters cannot be told,
    are many, or are scanned for by the engine already (a literal, or a class or
    alternation of them, none a letter when the pattern is case-blind).
    """
    found = first_chars(pattern)
    if found is None:
        return re.compile(pattern, flags)
    chars, empty, lead = found
    blind = flags & re.IGNORECASE
    scanned = lead is not None and all(not blind or c.lower() == c.upper() for c in lead)
    if empty or not chars or len(chars) > _MAX_FIRST or scanned:
        return re.compile(pattern, flags)
    chars_class = "".join(f"\\U{ord(c):08x}" for c in sorted(chars))
    try:
        return re.compile(f"(?=[{chars_class}])(?:{pattern})", flags)
    except re.error:  # a global flag such as (?x) must stay first
        return re.compile(pattern, flags)


def alt(*alternatives: str) -> str:
    """One pattern string matching any of ``alternatives``."""
    return "|".join(f"(?:{a})" for a in alternatives)


def trie(tokens: Iterable[str]) -> str:
    """A pattern that finds the longest of ``tokens`` starting where it is tried.

    Zero-width, with the token as its group: ``findall`` gives the longest token at each
    position (tokens inside others included), and ``search`` finds whether any is in a text.

    The tokens as a tree of their characters, each node an alternation of the characters
    that follow it, optional past a node that ends a token: one step per character, where
    an alternation of 400 words would try each.
    """
    root: dict[str, dict] = {}
    for token in tokens:
        node = root
        for c in token:
            node = node.setdefault(c, {})
        node[""] = {}

    def pattern(node: dict[str, dict]) -> str:
        branches = [re.escape(c) + pattern(child) for c, child in sorted(node.items()) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return f"(?=({pattern(root)}))"


class CaseBlind:
    """A case-blind pattern that runs plain on the lowercased text when it can.

    Same matches and offsets as ``re.compile(pattern, re.IGNORECASE)``; a pattern that names
    a capital letter (or a text whose lowercase changes length) runs case-blind as written.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._blind = compiled(pattern, re.IGNORECASE)
        self._plain = None if _CASED.search(_ESCAPES.sub("", pattern)) else compiled(pattern)

    def _pick(self, text: str) -> tuple[re.Pattern[str], str]:
        if self._plain is not None:
            lower = text.lower()
            if len(lower) == len(text):
                return self._plain, lower
        return self._blind, text

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """The first match from ``pos``."""
        rx_, s = self._pick(text)
        return rx_.search(s, pos)

    def finditer(self, text: str, pos: int = 0,
                 endpos: int | None = None) -> Iterator[re.Match[str]]:
        """Every match between ``pos`` and ``endpos``, by position."""
        rx_, s = self._pick(text)
        return rx_.finditer(s, pos, len(s) if endpos is None else endpos)

    def match(self, text: str) -> re.Match[str] | None:
        """A match at the start of ``text``."""
        rx_, s = self._pick(text)
        return rx_.match(s)

    def findall(self, text: str) -> list[Any]:
        """Every match's text (lowercased when run plain)."""
        rx_, s = self._pick(text)
        return rx_.findall(s)


def rx(*alternatives: str) -> CaseBlind:
    """One case-blind pattern matching any of ``alternatives``."""
    return CaseBlind(alt(*alternatives))


# Triggers that most honest tool texts hold (measured on the real servers' sentences): a rule
# with another group of triggers is indexed by that one.
_COMMON = frozenset({":", "not", "n't", "never", "dont", "no need", "=no", "user", "they",
                     "customer", "human", "person", "name", "open", "content", " be ",
                     "secret", "private", "confidential", "hidden", "real", "true"})


class Gated:
    """Patterns that each run only when their trigger strings are present.

    One alternation of twenty patterns tries every alternative at every position; knowing
    first which trigger strings a text holds lets most sentences run none of them. The
    triggers present are computed once per text (``gates.gates_of``), so a rule's test
    is a set intersection or two.

    A rule is ``(triggers, pattern)`` or ``(triggers, pattern, tag)``; :meth:`tagged`
    returns the tag with each match. ``triggers`` is one group of strings, one of which every
    match holds, or a tuple of such groups, all of which every match meets (``(("=your",),
    ("instructions", "context"))``). A trigger is a run of letters and digits found inside a
    word (``ignor``), ``=`` and a whole word (``=ai``), or a phrase found in the text with
    blank space as single spaces (``so far``, ``<``). Each must hold for *every* match, or the
    gate hides it: ``tests/audit/test_match.py`` checks that on random matches.

    A case-blind pattern costs about 60% more per run than a plain one, so a pattern that
    names no capital letter runs plain on the lowercased text (same offsets; a text whose
    lowercase changes length falls back to the case-blind pattern).
    """

    registry: ClassVar[list[Gated]] = []

    def __init__(self, *rules: tuple) -> None:
        self.rules: list[tuple[frozenset[str], re.Pattern[str], str]] = []
        self._also: list[tuple[frozenset[str], ...]] = []
        self._plain: list[re.Pattern[str] | None] = []
        for rule in rules:
            groups = (rule[0],) if all(isinstance(t, str) for t in rule[0]) else rule[0]
            # Indexed by a group without words common in honest text, when it has one: the
            # rule needs every group anyway, and fewer sentences open it only to fail the rest.
            index = next((g for g in groups if _COMMON.isdisjoint(g)), groups[0])
            self.rules.append((frozenset(index), compiled(rule[1], re.IGNORECASE),
                               rule[2] if len(rule) > 2 else ""))
            self._also.append(tuple(frozenset(g) for g in groups if g is not index))
            self._plain.append(None if _CASED.search(_ESCAPES.sub("", rule[1]))
                               else compiled(rule[1]))
        self.triggers = frozenset().union(*(t for t, _, _ in self.rules))
        #: Every trigger string of every group (the trigger index must find them all).
        self.all_triggers = self.triggers.union(*(g for also in self._also for g in also))
        # Trigger -> the rules it opens, so a text's rules are found by one set intersection.
        self._any_also = any(self._also)
        self._rules_of: dict[str, list[int]] = {}
        for index, (triggers, _, _) in enumerate(self.rules):
            for trigger in triggers:
                self._rules_of.setdefault(trigger, []).append(index)
        self._last: tuple[AbstractSet[str] | None, list[int]] = (None, [])
        Gated.registry.append(self)

    def opens_alone(self, trigger: str) -> bool:
        """Whether ``trigger`` alone opens one of the rules (one it indexes, of one group)."""
        return any(not self._also[i] for i in self._rules_of.get(trigger, ()))

    def may_match(self, present: AbstractSet[str]) -> bool:
        """Whether any pattern could match a text holding the ``present`` triggers."""
        return not self.triggers.isdisjoint(present)

    def opened(self, present: AbstractSet[str]) -> list[int]:
        """Indices of the rules a text holding the ``present`` triggers opens, in order.

        Not to be changed by the caller. The last answer is kept for the ``present`` it
        was given: a sentence's triggers are one set (never changed once made), asked about
        by one reading block after another.
        """
        if self.triggers.isdisjoint(present):
            return []
        last = self._last  # one read: another thread may replace it
        if last[0] is present:
            return last[1]
        out = self._opened(present)
        self._last = (present, out)
        return out

    def _opened(self, present: AbstractSet[str]) -> list[int]:
        found = self.triggers & present
        rules_of = self._rules_of
        if len(found) == 1:
            opened = rules_of[next(iter(found))]
        else:
            opened = sorted(set().union(*map(rules_of.__getitem__, found)))
        if not self._any_also:
            return opened
        also = self._also
        out = []
        for i in opened:  # a loop, not all(...): most rules have one group or two
            for group in also[i]:
                if group.isdisjoint(present):
                    break
            else:
                out.append(i)
        return out

    def tagged(self, text: str, present: AbstractSet[str]) -> list[tuple[str, re.Match[str]]]:
        """``(tag, match)`` for every pattern's matches in ``text``, by position."""
        # (``opened``'s first test made here: most calls open nothing, and need no call.)
        opened = None if self.triggers.isdisjoint(present) else self.opened(present)
        if not opened:
            return []
        lower = text.lower()
        same = len(lower) == len(text)
        hits: list[tuple[str, re.Match[str]]] = []
        for i in opened:
            plain, tag = self._plain[i], self.rules[i][2]
            found = plain.finditer(lower) if same and plain else self.rules[i][1].finditer(text)
            hits.extend((tag, m) for m in found)
        if len(hits) > 1:
            hits.sort(key=lambda h: (h[1].start(), -h[1].end()))
        return hits

    def finditer(self, text: str, present: AbstractSet[str]) -> list[re.Match[str]]:
        """Every pattern's matches in ``text``, by position."""
        return [m for _, m in self.tagged(text, present)]

    def search(self, text: str, present: AbstractSet[str], pos: int = 0) -> re.Match[str] | None:
        """The first match in ``text`` from ``pos`` (``None`` when no rule is opened)."""
        opened = None if self.triggers.isdisjoint(present) else self.opened(present)
        if not opened:
            return None
        best: re.Match[str] | None = None
        lower = text.lower()
        same = len(lower) == len(text)
        for i in opened:
            plain = self._plain[i]
            m = plain.search(lower, pos) if same and plain else self.rules[i][1].search(text, pos)
            if m and (best is None or m.start() < best.start()):
                best = m
        return best
