"""Text a person does not see but a model reads: invisible characters, padding, look-alikes.

A tool description is shown to a person in a UI that hides format characters, collapses
blank space and renders Cyrillic ``е`` like Latin ``e``; the model reads every code point.
:func:`hidden_findings` names what is hidden and where; :func:`model_view` returns the text
as the model reads it (tag characters decoded, invisible ones dropped, look-alike letters
and compatibility forms folded to ASCII) so the rest of the audit reads that.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from workbench.audit.rules import Rule
from workbench.audit.rules import hidden as rules
from workbench.textsafe import escape

__all__ = ["HOMOGLYPHS", "SUSPECT", "char_names", "excerpt", "hidden_findings", "model_view"]

# Letters that render like ASCII ones (Cyrillic, Greek) and digits that pass for letters.
HOMOGLYPHS = str.maketrans({
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i",
    "ј": "j", "ѕ": "s", "ԁ": "d", "ɡ": "g", "һ": "h", "ӏ": "l", "ο": "o", "α": "a",
    "ν": "v", "ρ": "p", "τ": "t", "ι": "i", "κ": "k", "0": "o", "1": "l", "|": "l",
})


def _latin_fold() -> dict[int, str | None]:
    """Latin letters with marks -> their ASCII letters; combining marks -> dropped."""
    table: dict[int, str | None] = dict.fromkeys(range(0x300, 0x370))
    for cp in (*range(0xC0, 0x250), *range(0x1E00, 0x1F00)):
        c = chr(cp)
        base = "".join(x for x in unicodedata.normalize("NFKD", c)
                       if not unicodedata.combining(x))
        if unicodedata.name(c, "").startswith("LATIN") and base.isascii() and base.isalpha():
            table[cp] = base
    return table


# "Ígnore all prévious instructions" reads as an order to a model; a keyword reading of the
# raw text sees other words. (İ also lowercases to two characters.)
LATIN_FOLD = _latin_fold()


# -- invisible characters --------------------------------------------------------------------
_TAG = "\U000e0000-\U000e007f"
_BIDI = "\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
# Format characters, fillers that render as nothing, variation selectors, private use.
_ZERO_WIDTH = ("\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d"
               "\u2060-\u2064\u206a-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0"
               "\U0001d173-\U0001d17a\U000e0100-\U000e01ef\ue000-\uf8ff")
_CONTROL = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029"
#: Any character a person does not see.
SUSPECT = re.compile(f"[{_TAG}{_BIDI}{_ZERO_WIDTH}{_CONTROL}]")
_CLASS_OF = (
    (re.compile(f"[{_TAG}]"), rules.TAG, "high"),
    (re.compile(f"[{_BIDI}]"), rules.BIDI, "high"),
    (re.compile(f"[{_CONTROL}]"), rules.CONTROL, "high"),
    (re.compile(f"[{_ZERO_WIDTH}]"), rules.ZERO_WIDTH, "warning"),
)
# An emoji presentation selector after a symbol is ordinary text ("⚠️"), not hiding.
_EMOJI_VS = re.compile("(?<=[\u2190-\u2bff\u2600-\u27bf\U0001f000-\U0001faff])\ufe0f")
_BLANK = "[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]"
_PADDING = re.compile(f"{_BLANK}{{40,}}\\S|\\n(?:{_BLANK}*\\n){{7,}}{_BLANK}*\\S")
# Scripts whose letters pass for Latin ones.
_LOOKALIKE_SCRIPTS = ("CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC")
_WORDS = re.compile(r"[^\W\d_]+")


def excerpt(text: str, start: int, end: int, pad: int = 40) -> str:
    """The span with ``pad`` characters either side, blank space collapsed, escaped."""
    lo, hi = max(0, start - pad), min(len(text), end + pad)
    core = " ".join(text[lo:hi].split())
    return escape(("…" if lo else "") + core + ("…" if hi < len(text) else ""))[:200]


def char_names(chars: Iterable[str]) -> str:
    """``U+0435 CYRILLIC SMALL LETTER IE, ...`` for each distinct character, sorted."""
    return ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'UNNAMED')}" for c in sorted(set(chars)))


def _lookalike_letters(word: str) -> list[str]:
    return [c for c in word if not c.isascii()
            and unicodedata.name(c, "").startswith(_LOOKALIKE_SCRIPTS)]


def _disguised(text: str) -> list[tuple[re.Match[str], list[str]]]:
    """Words in Latin text spelled partly or wholly with letters that look Latin.

    A word that mixes Latin letters with look-alike ones ("sеnd" with a Cyrillic e) is a
    disguise in any text. A word spelled wholly in look-alike letters that fold to ASCII
    through :data:`HOMOGLYPHS` ("сор") counts only in mostly-Latin text: a Russian or
    Greek sentence is not a disguise.
    """
    if text.isascii():
        return []
    latin: bool | None = None  # read once, for the first word spelled wholly in look-alike letters

    def mostly_latin() -> bool:
        letters = [c for c in text if c.isalpha()]
        return bool(letters) and sum(c.isascii() for c in letters) >= 0.6 * len(letters)

    out = []
    for m in _WORDS.finditer(text):
        word = m.group()
        if word.isascii():
            continue
        odd = _lookalike_letters(word)
        if not odd:
            continue
        if not any(c.isascii() for c in word):
            if latin is None:
                latin = mostly_latin()
            if not (latin and word.lower().translate(HOMOGLYPHS).isascii()):
                continue
        out.append((m, odd))
    return out


def hidden_findings(text: str) -> list[tuple[Rule, str, int, int, str, str]]:
    """``(rule, severity, start, end, evidence, reason)`` for each kind of hiding in ``text``."""
    found = []
    scan = _EMOJI_VS.sub("", text) if "\ufe0f" in text else text
    for pattern, rule, severity in _CLASS_OF:
        hits = pattern.findall(scan)
        if not hits:
            continue
        first = pattern.search(text) or pattern.search(scan)
        assert first is not None
        if rule is rules.TAG:
            decoded = "".join(chr(ord(c) - 0xE0000) for c in hits if 0xE0020 <= ord(c) <= 0xE007E)
            evidence = f"{len(hits)} tag characters, decoded: {decoded[:160]!r}"
            reason = "invisible Unicode tag characters carry text the model reads"
        else:
            evidence = f"{len(hits)}x {char_names(hits)[:100]}: " + excerpt(
                text, first.start(), first.end(), 20)
            reason = {"hidden.bidi": "bidirectional controls make the text read differently "
                                     "from how it displays",
                      "hidden.control": "control characters or terminal escapes can hide or "
                                        "rewrite what a person sees",
                      }.get(rule.code, "invisible characters the model reads but a person does "
                            "not see")
        found.append((rule, severity, first.start(), first.end(), evidence, reason))
    m = _PADDING.search(text)
    if m:
        found.append((rules.PADDING, "warning", m.start(), m.end(),
                      f"{m.end() - m.start() - 1} blank characters, then: "
                      + excerpt(text, m.end() - 1, m.end() + 60, 0),
                      "a run of blank space pushes the rest of the text out of view"))
    if not text.isascii():
        disguised = _disguised(text)
        if disguised:
            first, odd = disguised[0]
            found.append((rules.HOMOGLYPH, "warning", first.start(), first.end(),
                          f"{len(disguised)} word(s), first {escape(first.group())!r}: "
                          + char_names(odd)[:120],
                          "letters of another script that look Latin spell words a person "
                          "reads differently from the model (or from a keyword search)"))
        folded = unicodedata.normalize("NFKC", text)
        if folded != text and folded.isascii() != text.isascii() and _WORDS.search(
                "".join(c for c in text if not c.isascii() and unicodedata.normalize(
                    "NFKC", c).isascii() and c.isalpha())):
            found.append((rules.COMPATIBILITY, "warning", -1, -1,
                          "compatibility letters (fullwidth or mathematical) that read as: "
                          + excerpt(folded, 0, 0, 160),
                          "styled letters spell words a keyword search does not see"))
    return found


def model_view(text: str) -> str:
    """The text as the model reads it.

    Hidden characters are dropped, tag text is decoded and appended, look-alike letters,
    compatibility forms and Latin letters with marks (``é``, ``İ``) are folded to ASCII.
    """
    if text.isascii():
        return text
    decoded = "".join(chr(ord(c) - 0xE0000) for c in text if 0xE0020 <= ord(c) <= 0xE007E)
    plain = SUSPECT.sub("", text)
    if not plain.isascii():
        plain = unicodedata.normalize("NFKC", plain).translate(LATIN_FOLD)
        # One pass over the pieces: rebuilding the string per word is quadratic, and a
        # hostile description can hold a million disguised words.
        pieces, done = [], 0
        for m, _ in _disguised(plain):
            pieces.append(plain[done:m.start()])
            pieces.append("".join(c if c.isascii() else c.lower().translate(HOMOGLYPHS)
                                  for c in m.group()))
            done = m.end()
        plain = "".join(pieces) + plain[done:]
    return plain + (f" {decoded}" if decoded else "")
