"""Reading a pattern's first characters from its text (no private module of ``re``)."""

from __future__ import annotations

import ast
import pathlib

import pytest

from workbench.audit.starts import first_chars


class TestFirstChars:
    @pytest.mark.parametrize(("pattern", "chars", "empty", "lead"), [
        (r"\b(?:rea|writ)e", "rw", False, None),       # \b first: nothing the engine scans
        (r"abc|d", "ad", False, "ad"),
        (r"(?:a|b)x", "ab", False, "ab"),               # inlined: the engine scans a class
        (r"(a|b)x", "ab", False, None),                 # a capturing group is not inlined
        (r"a?b", "ab", False, None),
        (r"a*", "a", True, None),
        (r"[a-c]\w+", "abc", False, "abc"),             # past the first item, skimmed
        (r"(?<!\w)'x|\"y", "'\"", False, None),          # a lookbehind holds no text
        (r"x{0,3}y", "xy", False, None),
        (r"\.env|~/", ".~", False, ".~"),
        (r"(?:a|)b", "ab", False, None),
    ])
    def test_what_a_match_can_start_with(self, pattern, chars, empty, lead):
        got = first_chars(pattern)
        assert got is not None
        assert (got[0], got[1]) == (set(chars), empty)
        assert got[2] == (None if lead is None else set(lead))

    @pytest.mark.parametrize("pattern", [
        r"\w+x", r".a", r"[^a]b", r"(?i:ab)c", r"(?-i:ABC)d", r"(?i)abc", r"[\x00-\x7f]x",
        r"(ab", r"ab)", r"\1a", r"*a",
    ])
    def test_what_it_cannot_tell_it_does_not_claim(self, pattern):
        assert first_chars(pattern) is None

    def test_the_package_imports_no_private_module_of_the_standard_library(self):
        root = pathlib.Path(__file__).resolve().parents[2] / "workbench"
        for path in root.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module or ""] + [a.name for a in node.names]
                         if isinstance(node, ast.ImportFrom) else [])
                assert not any(n in ("sre_parse", "sre_compile", "sre_constants", "_parser",
                                     "_constants", "re._parser", "re._constants")
                               for n in names), path
