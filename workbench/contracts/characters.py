"""Naming characters: what a look-alike tool name is really made of.

``gеt_time`` and ``get_time`` render the same, but the first holds ``U+0435 CYRILLIC
SMALL LETTER IE``. The audit, ``surface diff`` and the widgets all need to say *which*
character differs, so the naming lives here, below all of them, and does no I/O.

Example:
    >>> char_name("е")
    'U+0435 CYRILLIC SMALL LETTER IE'
    >>> named_characters("gеt_time", "get_time")
    "; 'gеt_time' has U+0435 CYRILLIC SMALL LETTER IE at 1"
    >>> distinguishable("gеt_time")
    'gеt_time (U+0435 CYRILLIC SMALL LETTER IE at 1)'
    >>> distinguishable("get_time")
    'get_time'
"""

from __future__ import annotations

import unicodedata

__all__ = ["char_name", "distinguishable", "named_characters", "non_ascii", "printable"]


def char_name(char: str) -> str:
    """``U+XXXX NAME`` for one character (``U+XXXX`` alone when Unicode names none)."""
    code = f"U+{ord(char):04X}"
    name = unicodedata.name(char, "")
    return f"{code} {name}" if name else code


def non_ascii(text: str) -> list[tuple[int, str]]:
    """``(position, char_name)`` for every character of ``text`` outside printable ASCII."""
    return [(i, char_name(c)) for i, c in enumerate(text) if not " " <= c <= "~"]


def printable(text: str) -> str:
    r"""``text`` with control, format and other invisible characters spelled out.

    A name is shown on terminals and in tables; a bidi override in it must not reorder
    the line it is printed on. The one escaping rule of the package:
    :func:`workbench.textsafe.escape` (``\r``, ``\x1b``, ``\u202e``).
    """
    from workbench.textsafe import escape

    return escape(text)


def _spelled(text: str, limit: int) -> str:
    found = non_ascii(text)
    parts = [f"{name} at {i}" for i, name in found[:limit]]
    if len(found) > limit:
        parts.append(f"{len(found) - limit} more")
    return ", ".join(parts)


def named_characters(*names: str, limit: int = 4) -> str:
    """``; 'name' has U+XXXX NAME at N`` for each of ``names`` that holds non-ASCII characters.

    Appended to an audit finding: ``'gеt_time' looks like 'get_time'`` says nothing about
    which letter differs; this says it (positions 0-based). "" when every name is ASCII.
    """
    return "".join(f"; '{printable(n)}' has {_spelled(n, limit)}" for n in names
                   if non_ascii(n))


def distinguishable(name: str, limit: int = 4) -> str:
    """``name`` as a table cell two look-alikes cannot share: non-ASCII characters named."""
    spelled = _spelled(name, limit)
    return f"{printable(name)} ({spelled})" if spelled else name
