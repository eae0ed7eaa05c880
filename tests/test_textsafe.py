"""One escaping rule for server text on a terminal (issue 10 item 5)."""

from __future__ import annotations

import unicodedata

import pytest

from workbench.textsafe import escape, is_clean

HOSTILE = [
    ("high\rinfo", "high\\rinfo"),
    ("row\nforged  row", "row\\nforged  row"),
    ("a\tb", "a\\tb"),
    ("\x1b[8mhidden\x1b[0m", "\\x1b[8mhidden\\x1b[0m"),
    ("\x9b31m", "\\x9b31m"),  # the one-byte C1 CSI
    ("evil\u202etxt.exe", "evil\\u202etxt.exe"),
    ("\u2066isolate\u2069", "\\u2066isolate\\u2069"),
    ("zero\u200bwidth\ufeff", "zero\\u200bwidth\\ufeff"),
    ("tag\U000e0041", "tag\\U000e0041"),
    ("line\u2028sep", "line\\u2028sep"),
    ("nul\x00del\x7f", "nul\\x00del\\x7f"),
    ("nbsp\u00a0", "nbsp\\xa0"),
    ("filler\u3164", "filler\\u3164"),
    ("vs\ufe0f", "vs\\ufe0f"),
]


class TestEscape:
    @pytest.mark.parametrize("raw,shown", HOSTILE)
    def test_every_class_is_spelled_out(self, raw, shown):
        assert escape(raw) == shown
        assert not is_clean(raw) and is_clean(shown)

    @pytest.mark.parametrize("text", ["get_current_time", "Café à Oslo, 東京", "a b", "",
                                      "already \\u202e escaped", "emoji 🙂"])
    def test_plain_text_is_unchanged(self, text):
        assert escape(text) == text and is_clean(text)

    def test_escaping_twice_changes_nothing(self):
        for raw, _ in HOSTILE:
            assert escape(escape(raw)) == escape(raw)

    def test_no_code_point_survives_that_a_terminal_would_act_on(self):
        every = "".join(chr(c) for c in range(0x3000)) + "".join(
            chr(c) for c in (0xFEFF, 0xFFF9, 0xE0001, 0xE007F, 0xE0100))
        shown = escape(every)
        assert "\n" not in shown and "\r" not in shown and "\x1b" not in shown
        for char in shown:
            assert unicodedata.category(char) not in ("Cc", "Cf", "Zl", "Zp", "Cs", "Cn"), \
                hex(ord(char))

    def test_non_strings_and_none(self):
        assert escape(None) == "" and escape(7) == "7"
