"""Random strings that a regular expression matches, for testing what gates a pattern.

A gate lets a pattern run only when some trigger string is in the text, so it is sound only
if every match holds a trigger. Hand-picked examples check the matches someone thought of;
these samples walk the pattern's own syntax tree (``re._parser``), so they reach every
alternative, optional part and character class, in random case and with tabs, newlines and
runs of spaces wherever the pattern allows blank space. Lookarounds and word boundaries are
not generated: each sample is checked against the pattern and kept only if it matches.
"""

from __future__ import annotations

import random
import re
from re import _constants as C  # noqa: N812 (the module's own name for it)
from re import _parser

__all__ = ["samples"]

# Letters, digits and the punctuation the patterns mention; blank space in several forms.
_ALPHABET = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
             " \t_-.,;:'\"`/~@#<>()[]{}=+$!?*&%\\|’“”«»")
_BLANKS = (" ", " ", " ", "  ", "\t")  # no line break: sentences end at one


def _in_category(ch: str, cat: int) -> bool:
    tests = {
        C.CATEGORY_DIGIT: ch.isdigit(), C.CATEGORY_NOT_DIGIT: not ch.isdigit(),
        C.CATEGORY_SPACE: ch.isspace(), C.CATEGORY_NOT_SPACE: not ch.isspace(),
        C.CATEGORY_WORD: ch.isalnum() or ch == "_",
        C.CATEGORY_NOT_WORD: not (ch.isalnum() or ch == "_"),
    }
    return tests[cat]


def _in_set(ch: str, items: list, ignore_case: bool) -> bool:
    negate = False
    hit = False
    for op, arg in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            hit |= ch == chr(arg) or ignore_case and ch.lower() == chr(arg).lower()
        elif op is C.RANGE:
            lo, hi = arg
            hit |= lo <= ord(ch) <= hi or ignore_case and (
                lo <= ord(ch.lower()) <= hi or lo <= ord(ch.upper()) <= hi)
        elif op is C.CATEGORY:
            hit |= _in_category(ch, arg)
    return hit != negate


class _Walker:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, allowed) -> str:
        chars = [c for c in _ALPHABET if allowed(c)]
        blanks = [b for b in _BLANKS if all(allowed(c) for c in b)]
        if blanks and self.rng.random() < 0.5 and " " in chars:
            return self.rng.choice(blanks)
        return self.rng.choice(chars) if chars else ""

    def case(self, ch: str, ignore_case: bool) -> str:
        return ch.upper() if ignore_case and self.rng.random() < 0.3 else ch

    def walk(self, tree, ignore_case: bool) -> str:
        out = []
        for op, arg in tree:
            if op is C.LITERAL:
                out.append(self.case(chr(arg), ignore_case))
            elif op is C.NOT_LITERAL:
                out.append(self.pick(lambda c, a=arg: c.lower() != chr(a).lower()))
            elif op is C.ANY:
                out.append(self.pick(lambda c: c != "\n"))
            elif op is C.IN:
                out.append(self.case(self.pick(lambda c, a=arg: _in_set(c, a, ignore_case)),
                                     ignore_case))
            elif op is C.BRANCH:
                out.append(self.walk(self.rng.choice(arg[1]), ignore_case))
            elif op is C.SUBPATTERN:
                _, add, remove, sub = arg
                flag = (ignore_case or bool(add & re.I)) and not remove & re.I
                out.append(self.walk(sub, flag))
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
                lo, hi, sub = arg
                hi = lo + 3 if hi is C.MAXREPEAT else min(hi, lo + 3)
                out.append("".join(self.walk(sub, ignore_case)
                                   for _ in range(self.rng.randint(lo, hi))))
            elif op is C.CATEGORY:
                out.append(self.pick(lambda c, a=arg: _in_category(c, a)))
            # AT (anchors, \b), ASSERT, ASSERT_NOT: nothing to emit; checked after.
        return "".join(out)


def samples(pattern: re.Pattern[str], n: int = 60, seed: int = 0) -> list[str]:
    """Up to ``n`` distinct strings that ``pattern`` finds a match in (each checked)."""
    rng = random.Random(seed)
    tree = _parser.parse(pattern.pattern, pattern.flags)
    walker = _Walker(rng)
    found: list[str] = []
    for _ in range(n * 20):
        text = walker.walk(tree, bool(pattern.flags & re.I))
        for framed in (text, f"Then {text} here."):
            if pattern.search(framed) and framed not in found:
                found.append(framed)
        if len(found) >= n:
            break
    return found
