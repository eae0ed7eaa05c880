"""A tool's parameters as the schema checks read them: a flat table, and the words of names.

The schema cross-check (:mod:`~workbench.audit.schema`) and the claim check
(:mod:`~workbench.audit.claims`) each read every parameter, nested ones included,
and the words of its name with their plain inflections stripped. Names repeat across a
server's tools (owner, repo, path), so the word lookups are memoised.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeGuard

from workbench.audit.context import words_of

__all__ = ["NAME_TOKEN", "NESTING", "VERB_SPLIT", "Table", "is_map", "name_stems", "name_words",
           "stems", "walk"]

# The JSON types a wire schema holds besides objects: ``isinstance(x, Mapping)`` runs the
# ABC's Python-level check on each of them, a cost the audit paid hundreds of times a tool.
_NOT_MAPS = frozenset({str, int, float, bool, list, type(None)})


def is_map(value: object) -> TypeGuard[Mapping[str, Any]]:
    """``isinstance(value, Mapping)``, without the ABC's cost for plain JSON values."""
    kind = type(value)
    return kind is dict or (kind not in _NOT_MAPS and isinstance(value, Mapping))


# Every parameter of a schema as ``(path, name, schema)``, nested ones included: walked once
# per tool by ``schema.check_schema`` and read by each of its checks.
Table = tuple[tuple[str, str, Any], ...]
#: The keys under which a parameter's schema nests more parameters (its own ``properties``,
#: or those of its array ``items``): a schema holding neither nests nothing.
NESTING = frozenset({"items", "properties"})


def walk(props: Mapping[str, Any], where: str = "", depth: int = 0,
         ) -> Iterator[tuple[str, str, Any]]:
    """``(path, name, schema)`` for each parameter, nested objects and array items included."""
    for param, schema in props.items():
        path = f"{where}{param}"
        yield path, str(param), schema
        # Most parameters nest nothing: one pass over their keys says so.
        if depth < 4 and is_map(schema) and not NESTING.isdisjoint(schema):
            for child in (schema, schema.get("items")):
                nested = child.get("properties") if is_map(child) else None
                if is_map(nested):
                    yield from walk(nested, f"{path}.", depth + 1)
                    break


@functools.lru_cache(maxsize=4096)
def name_words(name: str) -> frozenset[str]:
    """Words of a parameter name (names repeat across a server's tools: owner, repo, path)."""
    return words_of(name)


@functools.lru_cache(maxsize=4096)
def name_stems(name: str) -> frozenset[str]:
    """Words of a parameter name with their plain inflections stripped."""
    return frozenset(stems(words_of(name)))


_INFLECTIONS = (("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("d", ""), ("ing", "e"),
                ("ed", "e"))


@functools.lru_cache(maxsize=8192)
def _word_stems(word: str) -> tuple[str, ...]:
    """The word and its plain inflections stripped (words repeat across tools: get, list)."""
    return (word, *(word[:-len(suffix)] + keep for suffix, keep in _INFLECTIONS
                    if word.endswith(suffix) and len(word) > len(suffix) + 2))


def stems(words: Iterable[str]) -> set[str]:
    """Each word with its plain inflections stripped ("writes", "closed", "closing")."""
    return set().union(*map(_word_stems, words))


# A tool or parameter name as written in a sentence: ``read_text_file``, ``git.status``.
NAME_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*[A-Za-z0-9_]")
# The words of a name: snake, kebab, dotted or camel case.
VERB_SPLIT = re.compile(r"[_\-.]+|(?<=[a-z])(?=[A-Z])")
