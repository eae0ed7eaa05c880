"""The context a tool's text is read in, and the text cut into sentences, words and gates.

:class:`ToolContext` is what :func:`~workbench.audit.text.read_text` reads a text against
(the tool's name, title and parameters, its server's tools and the others'); :func:`words_of`
splits names and texts into lowercased words; :func:`sentences` cuts a text where a
sentence ends; :func:`tokenise` gives a text's words and, per sentence, the gates that decide
which reading blocks may run (:mod:`~workbench.audit.gates`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from workbench.audit.gates import gates_of, opens, words_in

__all__ = ["MEMO_TEXT", "ToolContext", "sentences", "tokenise", "tokenised", "words_of"]


@dataclass(frozen=True)
class ToolContext:
    """What a text is read against.

    Attributes:
        name: The tool's name.
        title: The tool's title ("" when it has none).
        params: The tool's parameter names.
        siblings: Names of the tools of the same server (its own name included).
        foreign: Names of tools that some other server offers.
        every: Every tool name of the audit, when known: one index of them serves every
            server's look for foreign names (each server's foreign names are nearly all).
    """

    name: str
    title: str
    params: frozenset[str]
    siblings: frozenset[str]
    foreign: frozenset[str]
    every: frozenset[str] | None = None

    @cached_property
    def topic(self) -> frozenset[str]:
        """Lowercased words of the name and title: what the tool says it is about."""
        # Paths in a title are content, not purpose: "OCR (licence = ~/.config/gcloud/...)".
        return words_of(self.name, _PATHS.sub(" ", self.title))

    @cached_property
    def path_words(self) -> frozenset[str]:
        """Words of the parameters that take a path, a file or a directory."""
        return words_of(*(p for p in self.params if _PATHISH.search(p)))

    @cached_property
    def purpose(self) -> frozenset[str]:
        """The topic plus the words of the parameter names."""
        return self.topic | words_of(*self.params)


_PATHISH = re.compile(r"(?i:path|file|dir|folder|location)")
# Paths, dotfiles and asides in a title are content, not purpose.
_PATHS = re.compile(r"\S*[/~\\]\S*|(?<![\w.])\.\w[\w.-]*|\([^)]*\)")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def words_of(*texts: str) -> frozenset[str]:
    """Lowercased word tokens, splitting ``snake_case``, ``kebab-case`` and ``camelCase``."""
    out: set[str] = set()
    for text in texts:
        # No capital, no camel hump to split at (most names and parameter names).
        out |= words_in((text if text.islower() else _CAMEL.sub(" ", text)).lower())
    return frozenset(out)


# A sentence ends at . ! ? before a space, or at a line break (list items stay separate);
# the dots of ~/.aws/credentials or e.g. do not end one.
# Nor do the dots of "e.g." and "i.e." (an example list stays in its sentence).
_SENTENCE = re.compile(r"(?:[^.!?\n]+|(?<=\be)\.g\.|(?<=\bi)\.e\.|(?<=\betc)\.|(?<=\bvs)\.|"
                       r"(?<=\bcf)\.|[.!?]+(?![\s]|$))+(?:[.!?]+|\n|$)", re.IGNORECASE)


def sentences(text: str) -> Iterator[tuple[int, str]]:
    """``(offset, sentence)`` for each sentence of ``text``."""
    for m in _SENTENCE.finditer(text):
        if m.group().strip():
            yield m.start(), m.group()


_Parts = list[tuple[int, str, set[str], bool]]
_Tokens = tuple[bool, set[str], set[str], _Parts | None, bool]
# Texts up to this length are tokenised once per process: parameter descriptions repeat
# across a server's tools ("Repository owner"), and their words and gates do not depend on
# the tool. Longer ones are tokenised each time (a hostile server sends megabytes).
MEMO_TEXT = 2_000


def tokenise(text: str) -> _Tokens:
    """A text's words and gates: ``(single sentence, words, gates, sentences, opens)``.

    Gates first: a block whose words a sentence lacks skips it. A short text's gates serve
    all its sentences (``sentences`` is None); a long one's are each sentence's own
    (``(offset, sentence, gates, opens)`` each), and the text's are their union (so a long
    text is tokenised once, by sentence). ``opens``: whether a reading block of
    ``text.read_text`` may find something in the text, or in the sentence
    (:func:`~workbench.audit.gates.opens`), decided once per text whatever tool it is
    read for. Shared, so never changed by a reader.
    """
    single = "." not in text and "\n" not in text and "!" not in text and "?" not in text
    if single or len(text) < 200:
        lower = text.lower()
        words = words_in(lower)
        gates = gates_of(lower, words)
        return single, words, gates, None, opens(gates)
    words = set()
    parts = []
    for offset, sentence in sentences(text):
        lowered = sentence.lower()
        said = words_in(lowered)
        words |= said
        gates = gates_of(lowered, said)
        parts.append((offset, sentence, gates, opens(gates)))
    # A text whose sentences open nothing has nothing to read, though their triggers together
    # might open a block: each sentence is read on its own.
    return (single, words, set().union(*(g for _, _, g, _ in parts)), parts,
            any(o for *_, o in parts))


class _Tokenised(dict):
    """:func:`tokenise` once per text: ``tokenised[text]``, a lookup in C when it is known.

    Texts of up to :data:`MEMO_TEXT` characters are kept, 4,096 at most (then all are
    dropped: a hostile server sends endless texts). A longer one is kept until the next
    one, so the readers that read it in turn (the sentence reading, tips, other languages)
    tokenise it once between them.
    """

    def __init__(self) -> None:
        super().__init__()
        self._last: tuple[str | None, tuple] = (None, ())

    def __missing__(self, text: str) -> _Tokens:
        last = self._last  # one read: another thread may replace it
        if last[0] is text:
            return last[1]
        found = tokenise(text)
        if len(text) > MEMO_TEXT:
            self._last = (text, found)
        else:
            if len(self) >= 4096:
                self.clear()
            self[text] = found
        return found

    def cache_clear(self) -> None:
        """Forget every text (a test's fresh start)."""
        self.clear()
        self._last = (None, ())


#: ``tokenised[text]``: :func:`tokenise`, remembered (see :class:`_Tokenised`).
tokenised = _Tokenised()
