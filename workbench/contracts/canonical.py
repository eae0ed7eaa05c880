"""The canonical encoding: one JSON text per value, whatever it holds, for hashing ledgers.

Content is written as canonical JSON: UTF-8, keys sorted, no spaces, non-ASCII kept.
Whatever a tool's params or result hold, the call is recorded; values JSON cannot carry
as they are get one fixed spelling (so the text, and the hash, of a value never vary):

* ``NaN``, ``Infinity``, ``-Infinity`` -> the strings ``"NaN"``, ``"Infinity"``,
  ``"-Infinity"``;
* integers outside 64 bits (below -2**63 or above 2**64-1) -> their decimal digits as a
  string (``"18446744073709551616"``), since most JSON readers would round them;
* a dict with keys that are not strings: each such key becomes its canonical JSON text
  (``1`` -> ``"1"``, ``None`` -> ``"null"``, ``(1, 2)`` -> ``"[1,2]"``); if two keys then
  collide (``{1: .., "1": ..}``) the dict is written as a list of ``[key, value]`` pairs
  sorted by the keys' canonical text;
* tuples -> lists; sets -> lists sorted by their items' canonical text;
* containers nested deeper than 254 levels (the limit of the JSON libraries that read
  ledgers back) -> a string holding the deeper part's canonical JSON;
* a string with lone surrogates (not Unicode) -> the string with those code points written
  as backslash-u escape text; a reference cycle -> the string ``"<cycle>"``;
* any other object -> its ``str()``, unless orjson writes it natively (datetime, UUID,
  enum, dataclass).

Encoding is idempotent: a value read back from a ledger encodes to the same bytes, which
is what lets a resumed run re-derive recorded events hash for hash.
"""

from __future__ import annotations

import math
from typing import Any

import orjson

__all__ = ["MAX_DEPTH", "canonical_bytes", "canonical_json", "canonical_value"]

_SORT = orjson.OPT_SORT_KEYS
_dumps = orjson.dumps
#: orjson's own nesting limit; deeper containers are written as text (see the docstring).
MAX_DEPTH = 254
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1
_CONTAINERS = (dict, list, tuple, set, frozenset)


def canonical_bytes(value: Any) -> bytes:
    """Canonical JSON as UTF-8 bytes: sorted keys, no spaces, non-ASCII kept.

    orjson writes it (about six times faster than the standard library, which matters for
    a ledger of millions of events). Values it refuses, and NaN or infinities (which it
    would write as null), are first made plain by :func:`canonical_value`; plain values
    come out the same either way, so each value has exactly one text.

    Example:
        >>> canonical_bytes({"b": float("inf"), "a": 2**70, 1: None})
        b'{"1":null,"a":"1180591620717411303424","b":"Infinity"}'
    """
    try:
        out = _dumps(value, option=_SORT)
    except TypeError:  # orjson.JSONEncodeError: big ints, odd keys, depth, surrogates
        return _dumps(canonical_value(value), option=_SORT)
    if b"null" in out:  # maybe a NaN or an infinity written as null: look closer
        return _dumps(canonical_value(value), option=_SORT)
    return out


def canonical_value(value: Any) -> Any:
    """``value`` as plain JSON data, spelled as the canonical encoding spells it.

    Plain JSON data (string keys, 64-bit integers, finite floats) is returned unchanged.
    """
    return _plain(value, 1, set())


def _plain(value: Any, level: int, active: set[int]) -> Any:
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        return _plain_str(value)
    if isinstance(value, int):
        return value if _INT_MIN <= value <= _INT_MAX else str(int(value))
    if isinstance(value, float):
        return value if math.isfinite(value) else _nonfinite(value)
    if isinstance(value, _CONTAINERS):
        if level > MAX_DEPTH:
            return _text(value)
        ident = id(value)
        if ident in active:
            return "<cycle>"
        active.add(ident)
        try:
            if isinstance(value, dict):
                kind, entries = _entries(value)
                if kind == "object":
                    return {k: _plain(v, level + 1, active) for k, v in entries}
                return [[k, _plain(v, level + 2, active)] for k, v in entries]
            if isinstance(value, (set, frozenset)):
                return [_plain(v, level + 1, active) for v in _sorted_set(value)]
            return [_plain(v, level + 1, active) for v in value]
        finally:
            active.discard(ident)
    try:
        _dumps(value)
    except TypeError:
        return str(value)
    return value


def _plain_str(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: not Unicode, so not JSON either
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _nonfinite(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def _key(key: Any) -> tuple[str, Any]:
    """(the key's text in an object, the key as plain data) for a dict key."""
    if isinstance(key, str):
        plain = _plain_str(key)
        return plain, plain
    plain = _plain(key, 1, set())
    return (plain if isinstance(plain, str) else _dumps(plain, option=_SORT).decode()), plain


def _entries(value: dict) -> tuple[str, list[tuple[Any, Any]]]:
    """("object", [(key text, value)]) or, when keys collide, ("pairs", [(key, value)])."""
    if all(type(k) is str for k in value):
        return "object", list(value.items())
    keyed = [(_key(k), v) for k, v in value.items()]
    texts = {text for (text, _), _ in keyed}
    if len(texts) == len(keyed):
        return "object", [(text, v) for (text, _), v in keyed]
    # Two keys share a text: keep both, as pairs, ordered by the key's full canonical text.
    keyed.sort(key=lambda item: (_dumps(item[0][1], option=_SORT), type(item[0][1]).__name__))
    return "pairs", [(plain, v) for (_, plain), v in keyed]


def _sorted_set(value: set | frozenset) -> list[Any]:
    return sorted(value, key=_text)


class _Raw(str):
    """Text already in canonical form (a token of :func:`_text`)."""


def _text(root: Any) -> str:
    """Canonical JSON text of ``root`` at any depth (iterative: no recursion limit)."""
    out: list[str] = []
    stack: list[Any] = [root]
    active: set[int] = set()
    while stack:
        item = stack.pop()
        if type(item) is _Raw:
            out.append(item)
            continue
        if isinstance(item, tuple) and len(item) == 2 and item[0] is _Raw:  # leaving a container
            active.discard(item[1])
            continue
        if not isinstance(item, _CONTAINERS):
            out.append(_dumps(_plain(item, 1, set()), option=_SORT).decode())
            continue
        ident = id(item)
        if ident in active:
            out.append('"<cycle>"')
            continue
        active.add(ident)
        tokens: list[Any] = []
        if isinstance(item, dict):
            kind, entries = _entries(item)
            if kind == "object":
                entries.sort(key=lambda kv: kv[0])
                tokens.append(_Raw("{"))
                for i, (key, val) in enumerate(entries):
                    tokens += [_Raw(("," if i else "") + _dumps(key).decode() + ":"), val]
                tokens.append(_Raw("}"))
            else:
                tokens.append(_Raw("["))
                for i, (key, val) in enumerate(entries):
                    tokens += [_Raw(("," if i else "") + "["), key, _Raw(","), val, _Raw("]")]
                tokens.append(_Raw("]"))
        else:
            items = _sorted_set(item) if isinstance(item, (set, frozenset)) else item
            tokens.append(_Raw("["))
            for i, val in enumerate(items):
                if i:
                    tokens.append(_Raw(","))
                tokens.append(val)
            tokens.append(_Raw("]"))
        stack.append((_Raw, ident))
        stack.extend(reversed(tokens))
    return "".join(out)


def canonical_json(value: Any) -> str:
    """:func:`canonical_bytes` as text: one text per value, whatever the key order."""
    return canonical_bytes(value).decode("utf-8")
