"""What a tool's text presents, checked against its schema: parameters, claims, a title.

Three general checks, each a ``params.phantom`` or ``schema.contradiction`` warning:

- **presented parameters**: an identifier the text presents as a parameter (``name=value``
  with a marked name, a backticked ``name=value``, "the upload_to parameter") must be a
  parameter of the schema, at any depth, or the name of a tool some server offers;
- **claims against defaults**: "always encrypted", "never overwrites", "nothing is shared"
  against a parameter whose name (or default) is the claim's word and whose default says
  the opposite (``encrypt: false``, ``overwrite: true``, ``skip_encryption: true``);
- **a title that excuses the tool**: a read-only or non-destructive claim in ``title`` or
  ``annotations.title`` that the tool's own annotations deny.

:func:`check_presented` returns ``(rule, severity, field, start, end, reason, text)`` as
:func:`~workbench.audit.schema.check_schema` does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from workbench.audit.params import Table, is_map, name_words, stems, walk
from workbench.audit.rules import Rule
from workbench.audit.rules import schema as R

__all__ = ["check_presented"]

_Out = list[tuple[Rule, str, str, int, int, str, str]]

# A marked identifier: snake_case with one underscore at least, or camelCase.
_MARKED = r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*"
# The words that say parameter after "the upload_to": the pattern and its gate both read them.
_PARAM_WORDS = ("parameter", "param", "argument", "arg", "flag", "option", "input")
_PRESENTED = re.compile(
    rf"(?<![\w?&/.#:=$%-])(?P<a>{_MARKED})\s?=(?![=>])\s?[\"'`]?[\w:/.\-]"
    r"|`(?P<b>[A-Za-z_][A-Za-z0-9_]*)\s?=(?!=)[^`\n]{1,80}`"
    rf"|\b(?i:the)\s+[`'\"]?(?P<c>{_MARKED})[`'\"]?\s+(?:{'|'.join(_PARAM_WORDS)})s?\b")


# Where ``name=value`` is not this tool's input: code, a query or SQL, a condition on what
# comes back, an example, or the call of another tool named in the same sentence.
_CODE = re.compile(r"```|\b(?:where|and|or|select|if|when|whether)\s+$|[({,@$]\s*$|"
                   r"\be\.g\.|\b(?:such\s+as|for\s+example|returns?|result|response|output)\b",
                   re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z][\w.-]*[\w]")


def _presented(text: str, table: Table, tools: frozenset[str], own: str,
               ) -> tuple[str, int, int] | None:
    # Each match holds "=", or "the" before a word that says parameter (as written).
    if "=" not in text and not ("he " in text and any(w in text for w in _PARAM_WORDS)):
        return None
    known: set[str] | None = None  # the parameters' names, as written and lowercased
    for m in _PRESENTED.finditer(text):
        name = m.group("a") or m.group("b") or m.group("c")
        # Inside a URL or a query string: "https://x.io/?utm_source=feed".
        token = text[text.rfind(" ", 0, m.start()) + 1:m.start() + 1]
        if "://" in token or "?" in token:
            continue
        if known is None:
            known = {p for _, p, _ in table} | {p.lower() for _, p, _ in table}
        if name in known or name.lower() in known or name in tools:
            continue
        lo = max(text.rfind(". ", 0, m.start()), text.rfind("\n", 0, m.start())) + 1
        hi = min((i for i in (text.find(". ", m.end()), text.find("\n", m.end())) if i >= 0),
                 default=len(text))
        before = text[lo:m.start()]
        indented = text[lo - 1:lo] == "\n" and before.startswith("  ")  # a line of code
        if indented or "```" in text[:m.start()] or _CODE.search(before[-40:]) or _CODE.search(
                before) and not m.group("c"):
            continue
        # The arguments of another tool: "call list_users with include_users=true".
        if any(t in tools and t != own for t in _TOKEN.findall(text, lo, hi)):
            continue
        return name, m.start(), m.end()
    return None


# -- claims against defaults --------------------------------------------------------------
_ALWAYS = re.compile(r"\b(?<!not\s)(?:always|automatically|guaranteed\s+to\s+be)\s+(?:be\s+|"
                     r"is\s+|are\s+|gets?\s+)?(?P<w>[a-z]{4,})|\b(?:is|are|gets?)\s+always\s+"
                     r"(?P<w2>[a-z]{4,})", re.IGNORECASE)
_NEVER = re.compile(r"\b(?:never|won't|will\s+not|does\s+not|doesn't|cannot|can't)\s+(?:be\s+|"
                    r"ever\s+)?(?P<w>[a-z]{4,})|\bnothing\s+is\s+(?:ever\s+)?(?P<w2>[a-z]{4,})"
                    r"|\bno\s+(?P<w3>[a-z]{4,}ing)\b", re.IGNORECASE)
_UNLESS = re.compile(r"\b(?:unless|except|if\s+\w+\s+is|when\s+\w+\s+is|by\s+default)\b",
                     re.IGNORECASE)
# A word of a parameter name that turns its meaning around: skip_encryption: true.
_INVERTS = frozenset({"no", "skip", "disable", "disabled", "without", "dont", "avoid",
                      "prevent", "unencrypted", "insecure", "plain", "plaintext"})
_GENERIC = frozenset({"include", "enable", "enabled", "use", "allow", "auto", "is", "do",
                      "should", "with", "mode", "flag", "option"})
_OFF = frozenset({"none", "off", "false", "no", "disabled", "never", "plain", "plaintext",
                  "unencrypted"})
_ON = frozenset({"always", "on", "true", "yes", "enabled"})
_SYNONYMS = {"public": "share", "publish": "share", "published": "share", "shared": "share"}
_CLAIM_HINT = ("always", "automatic", "guaranteed", "never", "n't", "not ", "nothing", "no ")


def _key(word: str) -> set[str]:
    word = _SYNONYMS.get(word, word)
    out = stems([word])
    if len(word) >= 5:
        out.add(word[:5])
    return out


def _truthy(schema: Mapping[str, Any], words: frozenset[str]) -> tuple[bool, str] | None:
    """Whether the parameter's default turns its word on, and how the default reads."""
    default = schema.get("default")
    if isinstance(default, bool):
        on = default
    elif isinstance(default, str) and default.lower() in _OFF | _ON:
        on = default.lower() in _ON
    else:
        return None
    if words & _INVERTS:
        on = not on
    return on, f"default {default!r}"


def _against_default(text: str, table: Table) -> tuple[int, int, str] | None:
    lower = text.lower()
    if not any(h in lower for h in _CLAIM_HINT):
        return None
    claims = [(m, True) for m in _ALWAYS.finditer(text)] + [
        (m, False) for m in _NEVER.finditer(text)]
    if not claims:
        return None
    params = []
    for path, param, schema in table:
        if not is_map(schema) or "default" not in schema:
            continue
        words = name_words(param)
        keys = set().union(*(_key(w) for w in words - _INVERTS - _GENERIC))
        default = schema["default"]
        if isinstance(default, str) and default.lower() not in _OFF | _ON:
            # The default's own words: on_conflict: "overwrite" overwrites.
            params.append((path, set().union(*(_key(w) for w in re.findall(
                r"[a-z]{4,}", default.lower()))), True, f"default {default!r}"))
            continue
        truth = _truthy(schema, words)
        if truth is not None and keys:
            params.append((path, keys, *truth))
    for m, always in claims:
        word = (m.group("w") or m.group("w2") or m.groupdict().get("w3") or "").lower()
        end = text.find(".", m.end())
        if _UNLESS.search(text, m.start(), end if end > 0 else len(text)):
            continue
        claim = _key(word)
        for path, keys, on, how in params:
            if claim & keys and on != always:
                return m.start(), m.end(), f"says {m.group()!r}, but parameter {path!r} has " \
                                           f"{how}"
    return None


# -- a title that excuses the tool ---------------------------------------------------------
_EXCUSES = re.compile(r"\bread[\s-]?only\b|\bview[\s-]?only\b|\bnon[\s-]?destructive\b|"
                      r"\bharmless\b|\bno\s+(?:changes|side[\s-]?effects)\b|\bchanges\s+nothing"
                      r"\b", re.IGNORECASE)


def _excuse(title: str, hints: Mapping[str, Any]) -> tuple[int, int, str] | None:
    m = _EXCUSES.search(title)
    if m is None:
        return None
    if hints.get("readOnlyHint") is False:
        return m.start(), m.end(), f"title says {m.group()!r}, but readOnlyHint is false"
    if hints.get("destructiveHint") is True:
        return m.start(), m.end(), f"title says {m.group()!r}, but destructiveHint is true"
    return None


def check_presented(tool: Mapping[str, Any], texts: Sequence[tuple[str, str]],
                    props: Mapping[str, Any], tools: frozenset[str],
                    table: Table | None = None) -> _Out:
    """The three checks over ``texts`` (``(field, text)`` of the title and description).

    ``props`` are the schema's properties, ``tools`` the names of every tool offered (a
    backticked tool name is no parameter); ``table`` is ``tuple(walk(props))`` when the
    caller has walked it already.
    """
    out: _Out = []
    if table is None:
        table = tuple(walk(props)) if props else ()
    # A claim can go against a default only where a parameter has one.
    defaults = tuple(row for row in table if is_map(row[2]) and "default" in row[2])
    hints = tool.get("annotations")
    hints = hints if is_map(hints) else {}
    presented = against = excused = False
    for field, text in texts:
        if not presented and field == "description":
            found = _presented(text, table, tools, str(tool.get("name")))
            if found is not None:
                presented = True
                name, start, end = found
                out.append((R.PRESENTED, "warning", field, start, end,
                            f"presents {name!r} as a parameter, but the schema has no such "
                            "parameter", text))
        if not against and defaults:
            claim = _against_default(text, defaults)
            if claim is not None:
                against = True
                out.append((R.CLAIM_AGAINST_DEFAULT, "warning", field, *claim, text))
        if not excused and field.endswith("title") and hints:
            excuse = _excuse(text, hints)
            if excuse is not None:
                excused = True
                out.append((R.CLAIM_AGAINST_HINTS, "warning", field, *excuse, text))
    return out
