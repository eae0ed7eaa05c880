"""Names of other servers' tools in a text, found without tokenising most texts.

A tool's text that names a tool another server offers may be shadowing it
(:func:`~workbench.surface.audit_text.read_text` reads what it says). Tokenising every text
to compare its tokens with thousands of names costs more than reading it, so an index of the
names rules most texts out from the words the reading has already found.
"""

from __future__ import annotations

from collections.abc import Iterator

from workbench.surface import audit_lexicon as lex

__all__ = ["foreign_names_in", "names_foreign"]


# Foreign name sets -> their index, by identity: one audit passes the same set for every
# tool of a server, and comparing equal sets of thousands of names would cost more than the
# tokenising it saves. The set is kept with its index, so its id is not reused.
_Index = tuple[frozenset[str] | None, frozenset[str] | None]
_NAME_INDEX: dict[int, tuple[frozenset[str], _Index]] = {}


def _name_index(names: frozenset[str]) -> _Index:
    """The longest word of each name, and the names of one word, lowercased.

    Either is ``None`` when it cannot rule a name out: a name without a letter or digit, or
    one with a dot (a token may hold dots, and most texts do).
    """
    hit = _NAME_INDEX.get(id(names))
    if hit is not None and hit[0] is names:
        return hit[1]
    heads: frozenset[str] | None = frozenset(
        max(lex.WORD.findall(name.lower()), key=len, default="") for name in names)
    if "" in heads:
        heads = None
    plain: frozenset[str] | None = frozenset(
        n.lower() for n in names if "_" not in n and "-" not in n)
    if heads is None or any("." in n for n in names):
        plain = None
    if len(_NAME_INDEX) >= 16:
        _NAME_INDEX.clear()
    _NAME_INDEX[id(names)] = (names, (heads, plain))
    return heads, plain


def names_foreign(text: str, words: set[str], foreign: frozenset[str]) -> bool:
    """Whether ``text`` holds, as a whole token, the name of a tool some other server offers.

    A name found as a token has all its words among the text's words (``words``), so an
    ASCII text that holds no name's longest word holds no name; and a text without ``_`` or
    ``-`` holds only names of one word, which are then words of it. Most texts skip the
    tokenising. (Lowercasing a non-ASCII text can make words its tokens lack.)
    """
    if not foreign:
        return False
    if text.isascii():
        heads, plain = _name_index(foreign)
        if heads is not None and heads.isdisjoint(words):
            return False
        if plain is not None and "_" not in text and "-" not in text and plain.isdisjoint(words):
            return False
    return next(foreign_names_in(text, foreign), None) is not None


def foreign_names_in(text: str, foreign: frozenset[str]) -> Iterator[tuple[str, int, int]]:
    """``(name, start, end)`` for each token of ``text`` that is a name in ``foreign``.

    A name may come qualified by its server (``github.create_issue``): the span is the name's.
    """
    for t in lex.TOOL_TOKEN.finditer(text):
        name, start = t.group(), t.start()
        if name not in foreign and "." in name:
            server, _, name = name.rpartition(".")
            start += len(server) + 1
        if name in foreign:
            yield name, start, t.end()
