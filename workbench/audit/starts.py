r"""What a match of a regular expression can start with, read from the pattern's text.

:func:`~workbench.audit.match.compiled` puts a lookahead on a pattern's first characters in
front of it, so the regex engine rejects most positions at once. The first characters are
read here from the pattern as written, by a small reader of the syntax the audit's patterns
use: literals and escaped marks, classes of literals and short ranges, groups (plain,
named, non-capturing), alternation, quantifiers, and the zero-width ``\b``, ``^``, ``$``
and lookarounds. Anything else (``\w``, ``.``, a negated class, a scoped or global flag, a
back-reference) makes the answer "cannot be told" (``None``), and the pattern is compiled
as written; so an answer, when there is one, holds every character a match can start with.
No private module of the standard library is used.
"""

from __future__ import annotations

__all__ = ["first_chars"]

# A class range wider than this is not listed (the lookahead would be no cheaper).
MAX_FIRST = 40
_SPECIAL = frozenset(".^$*+?{}[]\\|()")
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_ZERO_WIDTH_ESCAPES = frozenset("bBAZ")


class _Unknown(Exception):
    """The pattern uses syntax this reader does not follow."""


class _Reader:
    """A recursive-descent reader over a pattern's text."""

    def __init__(self, pattern: str) -> None:
        self.s, self.i = pattern, 0
        # Past a sequence's first item that cannot match nothing, the rest is only skimmed
        # for its parentheses: what it matches no longer bears on the first characters.
        self.skim = 0

    def peek(self, n: int = 1) -> str:
        return self.s[self.i:self.i + n]

    def take(self) -> str:
        if self.i >= len(self.s):
            raise _Unknown
        c = self.s[self.i]
        self.i += 1
        return c

    # Each part answers (first characters, can match nothing, lead), and an item also
    # whether it is zero width. The lead is what the engine scans for by itself when the
    # part opens with it: the characters of a literal or a class of literals (of every
    # alternative, each opening with one), or None.
    def alternatives(self) -> tuple[set[str], bool, set[str] | None]:
        """``a|b|...`` up to a ``)`` or the end."""
        chars: set[str] = set()
        empty = False
        lead: set[str] | None = set()
        while True:
            c, e, first = self.sequence()
            chars |= c
            empty |= e
            lead = None if lead is None or first is None else lead | first
            if self.peek() != "|":
                return chars, empty, lead
            self.i += 1

    def sequence(self) -> tuple[set[str], bool, set[str] | None]:
        """Items up to ``|``, ``)`` or the end."""
        out: set[str] = set()
        lead: set[str] | None = None
        first = True
        while self.i < len(self.s) and self.peek() not in ("|", ")"):
            chars, empty, zero, item_lead = self.item()
            if first:
                lead, first = (None if zero else item_lead), False
            if zero:
                continue
            out |= chars
            if not empty:
                self.skim += 1
                while self.i < len(self.s) and self.peek() not in ("|", ")"):
                    self.item()
                self.skim -= 1
                return out, False, lead
        return out, True, lead

    def item(self) -> tuple[set[str], bool, bool, set[str] | None]:
        chars, empty, zero, lead = self.atom()
        q = self.peek()
        if q in ("?", "*", "+") or q == "{" and self._counted():
            low = self.quantifier()
            if zero:
                raise _Unknown  # a repeated assertion: not worth following
            empty, lead = empty or low == 0, None
        return chars, empty, zero, lead

    def _counted(self) -> bool:
        end = self.s.find("}", self.i)
        body = self.s[self.i + 1:end] if end > 0 else ""
        return bool(body) and all(p.isdigit() or not p for p in body.split(",", 1)) and (
            body[0].isdigit() or body.startswith(","))

    def quantifier(self) -> int:
        q = self.take()
        if q == "{":
            end = self.s.index("}", self.i)
            low = self.s[self.i:end].split(",", 1)[0]
            self.i = end + 1
            n = int(low) if low else 0
        else:
            n = 1 if q == "+" else 0
        if self.peek() in ("?", "+"):  # lazy or possessive
            self.i += 1
        return n

    def atom(self) -> tuple[set[str], bool, bool, set[str] | None]:
        c = self.take()
        if c in "^$":
            return set(), True, True, None
        if c == ".":
            if self.skim:
                return set(), False, False, None
            raise _Unknown
        if c == "\\":
            e = self.take()
            if e in _ZERO_WIDTH_ESCAPES:
                return set(), True, True, None
            one = {self._escape(e)}
            return one, False, False, one
        if c == "[":
            chars = self._class()
            return chars, False, False, chars
        if c == "(":
            return self._group()
        if c in _SPECIAL:
            raise _Unknown  # a quantifier with nothing before it, a stray ']'
        return {c}, False, False, {c}

    def _escape(self, e: str) -> str:
        if e in _ESCAPED:
            return _ESCAPED[e]
        if e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            digits = self.s[self.i:self.i + width]
            if len(digits) != width:
                raise _Unknown
            self.i += width
            return chr(int(digits, 16))
        if e.isalnum():
            if self.skim:
                return ""
            raise _Unknown  # \w, \d, \s, a back-reference, ...
        return e

    def _class(self) -> set[str]:
        if self.peek() == "^" and not self.skim:
            raise _Unknown
        out: set[str] = set()
        first = True
        while True:
            c = self.take()
            if c == "]" and not first:
                return out
            first = False
            if c == "[" and self.peek() in (":", ".", "="):
                raise _Unknown
            if c == "\\":
                c = self._escape(self.take())
            if self.peek() == "-" and self.peek(2)[1:] not in ("]", ""):
                self.i += 1
                hi = self.take()
                if hi == "\\":
                    hi = self._escape(self.take())
                if self.skim or not c or not hi:
                    continue
                if ord(hi) - ord(c) >= MAX_FIRST or ord(hi) < ord(c):
                    raise _Unknown
                out.update(map(chr, range(ord(c), ord(hi) + 1)))
            else:
                out.add(c)

    def _group(self) -> tuple[set[str], bool, bool, set[str] | None]:
        zero, capturing = False, True
        if self.peek() == "?":
            self.i += 1
            kind = self.take()
            if kind == ":":
                capturing = False
            elif kind in "=!":
                zero = True
            elif kind == "<" and self.peek() in ("=", "!"):
                self.i += 1
                zero = True
            elif kind == "P" and self.peek() == "<":
                end = self.s.index(">", self.i)
                self.i = end + 1
            elif self.skim and (kind.isalpha() or kind == "-"):  # scoped flags: (?-i:...)
                end = self.s.index(":", self.i)
                self.i = end + 1
            else:
                raise _Unknown  # flags, a back-reference, a comment, a condition
        self.skim += zero  # what a lookaround holds is not matched text
        chars, empty, lead = self.alternatives()
        self.skim -= zero
        if self.take() != ")":
            raise _Unknown
        if zero:
            return set(), True, True, None
        # The engine inlines a group that captures nothing: its lead is the group's own.
        return chars, empty, False, None if capturing or empty else lead


def first_chars(pattern: str) -> tuple[set[str], bool, set[str] | None] | None:
    r"""What a match of ``pattern`` can start with.

    Returns:
        ``(characters, can match nothing, lead)``: ``lead`` holds the characters of the
        pattern's first item when that is a literal, a class of literals or an alternation
        of such, which the engine scans for by itself (else ``None``); the whole answer is
        ``None`` when the pattern uses syntax this reader does not follow (then nothing is
        claimed about it).

    Example:
        >>> sorted(first_chars(r"\b(?:rea|writ)e")[0])
        ['r', 'w']
    """
    reader = _Reader(pattern)
    try:
        chars, empty, lead = reader.alternatives()
    except (_Unknown, ValueError, IndexError):
        return None
    if reader.i != len(pattern):
        return None  # an unbalanced ')'
    return chars, empty, lead
