r"""Server text made safe to show: one escaping rule for every table, log line and frame.

Tool names, descriptions and evidence come from servers nobody vetted. Printed raw, a CR
moves the cursor back so a ``high`` row reads ``info``, a LF forges a row of its own, an
ANSI sequence recolours or hides text, and a bidi override reverses what a person reads.
:func:`escape` spells every such character as a visible escape, the way Python's ``repr``
does (``\n``, ``\x1b``, ``\u202e``), and leaves everything else as it was:

* control characters: C0 (including TAB, LF, CR), DEL and C1; so ANSI escape sequences
  lose their ESC and print as harmless text;
* format characters (Unicode category Cf): bidi embeddings, overrides and isolates,
  zero-width spaces and joiners, tag characters, the BOM;
* line and paragraph separators, surrogates, private-use and unassigned code points,
  and every space other than the plain ASCII one;
* invisible letters and marks that render as nothing: Hangul fillers, the combining
  grapheme joiner, variation selectors, Khmer and Mongolian invisibles.

Backslashes are left alone so that text escaped once (by the audit's evidence, say) is
not escaped twice; :func:`escape` of an already escaped string returns it unchanged.

Example:
    >>> escape("get_time\r\x1b[32minfo")
    'get_time\\r\\x1b[32minfo'
    >>> escape("plain text, café")
    'plain text, café'
"""

from __future__ import annotations

import re

__all__ = ["FORMULA_STARTS", "clip", "csv_cell", "escape", "is_clean"]

# Printable in Python's sense but invisible on a screen: Hangul fillers, the combining
# grapheme joiner, Khmer inherent vowels, Mongolian variation selectors, variation
# selectors (both blocks).
_INVISIBLE = ("\u115f\u1160\u3164\uffa0\u034f\u17b4\u17b5\u180b-\u180f\ufe00-\ufe0f"
              "\U000e0100-\U000e01ef")
_INVISIBLE_RE = re.compile(f"[{_INVISIBLE}]")
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


_INVISIBLE_SET = frozenset(
    chr(c) for lo, hi in ((0x115F, 0x1160), (0x3164, 0x3164), (0xFFA0, 0xFFA0),
                          (0x034F, 0x034F), (0x17B4, 0x17B5), (0x180B, 0x180F),
                          (0xFE00, 0xFE0F), (0xE0100, 0xE01EF))
    for c in range(lo, hi + 1))


def _unsafe(char: str) -> bool:
    # isprintable() is False for categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs (bar " ").
    return not char.isprintable() or char in _INVISIBLE_SET


def _spell(char: str) -> str:
    short = _SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def is_clean(text: str) -> bool:
    """True when :func:`escape` would return ``text`` unchanged."""
    return text.isprintable() and _INVISIBLE_RE.search(text) is None


def escape(text: object) -> str:
    """``text`` (``str()`` of it, for non-strings) with every unsafe character escaped.

    Use it on anything a server (or a model) wrote before it reaches a terminal, a log
    line or a table cell. ``None`` becomes ``""``.
    """
    if text is None:
        return ""
    if not isinstance(text, str):
        text = str(text)
    if is_clean(text):  # the common case: nothing to do, no per-character work
        return text
    return "".join(_spell(c) if _unsafe(c) else c for c in text)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how many were left out.

    Messages quote untrusted values (an enum of 100,000 choices, a 10 MB argument); a
    message is for reading, so it keeps the start and counts the rest.

    Example:
        >>> clip("abcdefghij", 4)
        'abcd... (6 more characters)'
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"


#: What a spreadsheet reads as the start of a formula in a CSV cell (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def csv_cell(value: object) -> object:
    r"""``value`` made safe for a CSV cell: text a spreadsheet would run is quoted.

    A string that starts with ``=``, ``+``, ``-``, ``@``, TAB or CR is a live formula
    when a spreadsheet opens the file (``=HYPERLINK(...)``, ``@SUM(...)``), and tool
    results come from servers nobody vetted. Such a string gets a leading ``'``, the
    spreadsheet convention for "this is text"; a plain number (``-5``, ``+1.5e3``) is
    left alone, since it runs nothing. Anything that is not a string is returned as is.

    Example:
        >>> csv_cell("=HYPERLINK(\"http://x.test\")"), csv_cell("-5"), csv_cell(3)
        ('\'=HYPERLINK("http://x.test")', '-5', 3)
    """
    if (isinstance(value, str) and value.startswith(FORMULA_STARTS)
            and not _PLAIN_NUMBER.fullmatch(value)):
        return "'" + value
    return value
