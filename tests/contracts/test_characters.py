"""Look-alike names: the characters are named, in findings and in diff rows."""

from __future__ import annotations

from workbench.contracts.characters import (
    char_name,
    distinguishable,
    named_characters,
    printable,
)

LOOKALIKE = "g\u0435t_time"  # CYRILLIC SMALL LETTER IE in place of the Latin e


class TestNaming:
    def test_a_character_is_named_by_code_point_and_unicode_name(self):
        assert char_name("\u0435") == "U+0435 CYRILLIC SMALL LETTER IE"
        assert char_name("\U000e0041") == "U+E0041 TAG LATIN CAPITAL LETTER A"

    def test_only_names_with_foreign_characters_are_spelled(self):
        assert named_characters(LOOKALIKE, "get_time") == (
            f"; '{LOOKALIKE}' has U+0435 CYRILLIC SMALL LETTER IE at 1")
        assert named_characters("get_time") == ""

    def test_distinguishable_rows_differ_for_look_alikes(self):
        assert distinguishable("get_time") == "get_time"
        assert distinguishable(LOOKALIKE) != distinguishable("get_time")
        assert "U+0435" in distinguishable(LOOKALIKE)

    def test_invisible_characters_are_spelled_not_printed(self):
        assert printable("a\u202eb") == "a\\u202eb"
        assert "\u202e" not in distinguishable("a\u202eb")


class TestWhereTheyShow:
    def test_the_audit_finding_names_the_character(self):
        from workbench.audit import audit

        tools = [{"name": n, "description": "Read the clock.",
                  "inputSchema": {"type": "object", "properties": {}}}
                 for n in ("get_time", LOOKALIKE)]
        found = [f for f in audit({"srv": tools}) if f.code == "name.confusable"]
        assert found and all("U+0435 CYRILLIC SMALL LETTER IE at 1" in f.evidence
                             for f in found)

    def test_a_surface_diff_row_of_a_look_alike_is_distinguishable(self):
        from workbench.frames import diff_frame

        wire = {"name": "get_time", "description": "Read the clock.",
                "inputSchema": {"type": "object", "properties": {}}}
        frame = diff_frame([wire], [{**wire, "name": LOOKALIKE}])
        # One rename row: the two names side by side, the look-alike's letter named.
        assert frame["item"].tolist() == [
            f"get_time -> {LOOKALIKE} (U+0435 CYRILLIC SMALL LETTER IE at 1)"]
