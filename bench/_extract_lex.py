"""A tokenizer for TypeScript/JavaScript and Go source text (``_extract_parse`` reads it).

Tokens are ``(kind, value, position)``: ``id``, ``num``, ``str`` (escapes cooked as the
language does), ``tpl`` (a template literal: its text parts and, for each ``${...}``, that
substitution's tokens), ``regex`` and ``p`` (punctuation). Comments are dropped; in Go the
newline that ends a statement becomes a ``;`` token (the language's own rule), and for
JavaScript the indexes of tokens that start a line are kept (automatic semicolon insertion).
The text is only read: nothing is run.
"""

from __future__ import annotations

import re
from typing import Any

#: Longest source text tokenized; longer files are bundles, not definitions.
MAX_CHARS = 2_000_000

_PUNCT = sorted("""=== !== ... ?. ?? => == != <= >= && || ++ -- += -= *= /= **= ** := <- &^ << >>
{ } ( ) [ ] ; , < > + - * / % & | ^ ! ~ ? : = . @ #""".split(), key=len, reverse=True)
_REGEX_BEFORE = set("( , = : [ ! & | ? { } ; + - * % < > ~ ^ => == === != !== && || ?? return "
                    "typeof case do else in of new delete void throw yield await".split())
_ID = re.compile(r"[A-Za-z_$\u00c0-\uffff][\w$\u00c0-\uffff]*")
_NUM = re.compile(r"0[xX][0-9a-fA-F_]+n?|0[bB][01_]+n?|0[oO][0-7_]+n?|"
                  r"(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?n?")
_ESC = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def _ends_statement(out: list[tuple]) -> bool:
    """Whether a newline after the last token ends a Go statement (the spec's rule)."""
    if not out:
        return False
    kind, val, _ = out[-1]
    return kind in ("id", "num", "str") or (kind == "p" and val in (")", "]", "}", "++", "--"))


class LexError(Exception):
    """Text the tokenizer cannot read (an unterminated string, for example)."""


def _escape(src: str, i: int, go: bool) -> tuple[str, int]:
    """The character an escape at ``src[i] == '\\\\'`` stands for, and the index after it."""
    c = src[i + 1]
    if c in _ESC and not (c == "0" and i + 2 < len(src) and src[i + 2].isdigit() and not go):
        return _ESC[c], i + 2
    if c == "x":
        return chr(int(src[i + 2:i + 4], 16)), i + 4
    if c == "u" and src[i + 2] == "{":
        end = src.index("}", i)
        return chr(int(src[i + 3:end], 16)), end + 1
    if c == "u":
        return chr(int(src[i + 2:i + 6], 16)), i + 6
    if c == "U" and go:
        return chr(int(src[i + 2:i + 10], 16)), i + 10
    if c == "\r" and src[i + 2:i + 3] == "\n":
        return "", i + 3
    if c in "\n\u2028\u2029":
        return "", i + 2
    return c, i + 2


class Lexer:
    """Tokens of one file: ``(kind, value, position)`` with kind id/num/str/tpl/regex/p."""

    def __init__(self, src: str, go: bool = False) -> None:
        if len(src) > MAX_CHARS:
            raise LexError("file too long")
        self.src, self.go = src, go

    def tokens(self, i: int = 0, stop_at_brace: bool = False) -> tuple[list[tuple], int]:
        src, out, depth = self.src, [], 0
        n = len(src)
        nl: set[int] = set()
        if not stop_at_brace:
            self.newlines = nl  # indexes of tokens that start a line (JavaScript's ASI)
        last_nl = -1
        while i < n:
            c = src[i]
            if c == "\n" and last_nl != len(out):
                nl.add(len(out))
                last_nl = len(out)
            if c == "\n" and self.go and _ends_statement(out):
                out.append(("p", ";", i))  # Go's automatic semicolon at a line's end
            if c in " \t\r\n\ufeff\u00a0":
                i += 1
                continue
            if src.startswith("//", i):
                j = src.find("\n", i)
                i = n if j < 0 else j
                continue
            if src.startswith("/*", i):
                j = src.find("*/", i + 2)
                if j < 0:
                    raise LexError("unterminated comment")
                if self.go and "\n" in src[i:j] and _ends_statement(out):
                    out.append(("p", ";", i))
                if "\n" in src[i:j]:
                    nl.add(len(out))
                i = j + 2
                continue
            if c in "\"'":
                s, i = self._string(i, c)
                out.append(("str", s, i))
                continue
            if c == "`":
                if self.go:
                    j = src.find("`", i + 1)
                    if j < 0:
                        raise LexError("unterminated raw string")
                    out.append(("str", src[i + 1:j].replace("\r", ""), i))
                    i = j + 1
                else:
                    parts, i = self._template(i)
                    out.append(("tpl", parts, i))
                continue
            m = _ID.match(src, i)
            if m:
                out.append(("id", m.group(), i))
                i = m.end()
                continue
            if c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
                m = _NUM.match(src, i)
                text = m.group().replace("_", "").rstrip("n")
                try:
                    val: Any = int(text, 0) if text[:2].lower() in ("0x", "0b", "0o") \
                        else (float(text) if any(ch in text for ch in ".eE") else int(text))
                except ValueError:
                    val = None
                out.append(("num", val, i))
                i = m.end()
                continue
            if c == "/" and not self.go and self._regex_allowed(out):
                j, i = i, self._skip_regex(i)
                out.append(("regex", src[j:i], j))
                continue
            if c == "#" and src.startswith("#!", i) and i == 0:
                j = src.find("\n")
                i = n if j < 0 else j
                continue
            for p in _PUNCT:
                if src.startswith(p, i):
                    break
            else:
                raise LexError(f"unexpected character {c!r}")
            if stop_at_brace:
                if p == "{":
                    depth += 1
                elif p == "}":
                    if depth == 0:
                        return out, i + 1
                    depth -= 1
            out.append(("p", p, i))
            i += len(p)
        if stop_at_brace:
            raise LexError("unterminated template substitution")
        return out, i

    def _regex_allowed(self, out: list[tuple]) -> bool:
        if not out:
            return True
        kind, val, _ = out[-1]
        return (kind == "p" and val in _REGEX_BEFORE and val not in (")", "]")) or (
            kind == "id" and val in _REGEX_BEFORE)

    def _skip_regex(self, i: int) -> int:
        src, j, cls = self.src, i + 1, False
        while j < len(src):
            c = src[j]
            if c == "\\":
                j += 2
                continue
            if c == "\n":
                raise LexError("unterminated regex")
            if c == "[":
                cls = True
            elif c == "]":
                cls = False
            elif c == "/" and not cls:
                j += 1
                while j < len(src) and (src[j].isalnum()):
                    j += 1
                return j
            j += 1
        raise LexError("unterminated regex")

    def _string(self, i: int, quote: str) -> tuple[str, int]:
        src, j, buf = self.src, i + 1, []
        while j < len(src):
            c = src[j]
            if c == "\\":
                ch, j = _escape(src, j, self.go)
                buf.append(ch)
                continue
            if c == quote:
                return "".join(buf), j + 1
            if c == "\n":
                raise LexError("newline in a string")
            buf.append(c)
            j += 1
        raise LexError("unterminated string")

    def _template(self, i: int) -> tuple[list[Any], int]:
        src, j, buf, parts = self.src, i + 1, [], []
        while j < len(src):
            c = src[j]
            if c == "\\":
                ch, j = _escape(src, j, False)
                buf.append(ch)
                continue
            if c == "`":
                parts.append("".join(buf))
                return parts, j + 1
            if src.startswith("${", j):
                parts.append("".join(buf))
                buf = []
                toks, j = self.tokens(j + 2, stop_at_brace=True)
                parts.append(toks)
                continue
            buf.append("\n" if c == "\r" and src[j + 1:j + 2] == "\n" else c)
            j += 2 if c == "\r" and src[j + 1:j + 2] == "\n" else 1
        raise LexError("unterminated template literal")



def tokenize(src: str, go: bool = False) -> list[tuple]:
    """Every token of ``src``."""
    return Lexer(src, go).tokens()[0]


def tokenize_lines(src: str) -> tuple[list[tuple], set[int]]:
    """Every token of ``src``, and the indexes of those that start a line."""
    lexer = Lexer(src)
    toks = lexer.tokens()[0]
    return toks, lexer.newlines
