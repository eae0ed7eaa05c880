"""Names of other servers' tools in a text, found without tokenising most texts.

A tool's text that names a tool another server offers may be shadowing it
(:func:`~workbench.audit.text.read_text` reads what it says). Tokenising every text
to compare its tokens with thousands of names costs more than reading it, so an index of the
names rules most texts out from the words the reading has already found.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from itertools import chain

from workbench.audit import lexicon as lex

__all__ = ["foreign_names_in", "names_foreign"]


# Foreign name sets -> their index, by identity: one audit passes the same set for every
# tool of a server, and comparing equal sets of thousands of names would cost more than the
# tokenising it saves. The set is kept with its index, so its id is not reused.
# An index: each name's rarest word -> its next rarest word ("" for a name of one word) ->
# the word sets of the names they key, each with its names (``None``: words cannot rule a
# name out); and the names of one word, lowercased.
_Keyed = dict[str, dict[str, list[tuple[frozenset[str], tuple[str, ...]]]]]
_Index = tuple[_Keyed | None, frozenset[str] | None]
_NAME_INDEX: dict[int, tuple[frozenset[str], _Index]] = {}


@lru_cache(maxsize=65_536)
def _words(name: str) -> frozenset[str]:
    """A name's words, lowercased (one audit indexes each name once per other server)."""
    return frozenset(lex.WORD.findall(name.lower()))


def _name_index(names: frozenset[str]) -> _Index:
    """Each name's words keyed by its two rarest words, and the names of one word, lowercased.

    Either is ``None`` when it cannot rule a name out: a name without a letter or digit, or
    one with a dot (a token may hold dots, and most texts do). Two rare words (``12`` and
    ``create`` in ``create_issue_12``, among the names ``*_0`` to ``*_58``) keep the names
    a text's words are checked against few: one word is often a number or a common verb.
    """
    hit = _NAME_INDEX.get(id(names))
    if hit is not None and hit[0] is names:
        return hit[1]
    split: dict[frozenset[str], list[str]] = {}
    for name in names:
        split.setdefault(_words(name), []).append(name)
    by_key: _Keyed | None = None
    if frozenset() not in split:
        rarity = Counter(chain.from_iterable(split)).__getitem__
        by_key = {}
        for ws, named in split.items():
            key, *rest = sorted(ws, key=rarity)
            by_key.setdefault(key, {}).setdefault(rest[0] if rest else "", []).append(
                (ws, tuple(named)))
    plain: frozenset[str] | None = frozenset(
        n.lower() for n in names if "_" not in n and "-" not in n)
    if by_key is None or any("." in n for n in names):
        plain = None
    if len(_NAME_INDEX) >= 16:
        _NAME_INDEX.clear()
    _NAME_INDEX[id(names)] = (names, (by_key, plain))
    return by_key, plain


def _held(words: set[str], by_key: _Keyed) -> Iterator[str]:
    """The indexed names all of whose words are among ``words``."""
    for key in words & by_key.keys():
        then = by_key[key]
        seconds = words & then.keys()
        if "" in then:
            seconds.add("")  # the names of one word: their key is all of them
        for second in seconds:
            for ws, named in then[second]:
                if ws <= words:
                    yield from named


def names_foreign(text: str, words: set[str], foreign: frozenset[str],
                  indexed: frozenset[str] | None = None) -> bool:
    """Whether ``text`` holds, as a whole token, the name of a tool some other server offers.

    ``indexed`` is a set of names that holds ``foreign`` (every name of the audit), whose
    index then rules texts out: it is built once for all servers, and a text it lets
    through is checked against ``foreign`` itself.

    A name found as a token has all its words among the text's words (``words``): a token's
    edges are never inside a word. So an ASCII text that lacks a word of every name holds no
    name; and a text without ``_`` or ``-`` holds only names of one word, which are then
    words of it. Most texts skip the tokenising. (Lowercasing a non-ASCII text can make
    words its tokens lack.)
    """
    if not foreign:
        return False
    if text.isascii():
        by_key, plain = _name_index(foreign if indexed is None else indexed)
        if plain is not None and "_" not in text and "-" not in text and plain.isdisjoint(words):
            return False
        # A name held as a token is held as a string: most names whose words a text holds
        # (this server's own, as often as not) are not in it as written.
        if by_key is not None and not any(name in foreign and name in text
                                          for name in _held(words, by_key)):
            return False
    # Every token, and the name of each qualified one, found at C speed: ``foreign_names_in``
    # gives the same names one by one, with their spans, for the sentences that need them.
    tokens = set(lex.TOOL_TOKEN.findall(text))
    if "." in text:
        tokens.update([t.rpartition(".")[2] for t in tokens if "." in t])
    return not foreign.isdisjoint(tokens)


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
