"""The canonical encoding: one text per value, whatever the value holds."""

from __future__ import annotations

import datetime
import json

import orjson
import pytest

from workbench.contracts.canonical import MAX_DEPTH, canonical_bytes, canonical_value


def nested(depth: int, leaf: object = 1) -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


class TestCanonicalEncoding:
    @pytest.mark.parametrize(("value", "text"), [
        ({"b": 1, "a": [1.5, None, True]}, '{"a":[1.5,null,true],"b":1}'),
        (float("nan"), '"NaN"'),
        ([float("inf"), float("-inf")], '["Infinity","-Infinity"]'),
        (2**64, '"18446744073709551616"'),
        (-(2**63) - 1, '"-9223372036854775809"'),
        (2**64 - 1, "18446744073709551615"),  # still 64 bits: a number
        ({1: "a", "b": 2, None: 3, (1, 2): 4}, '{"1":"a","[1,2]":4,"b":2,"null":3}'),
        ({1: "int", "1": "str"}, '[["1","str"],[1,"int"]]'),  # colliding keys: pairs
        ({3, 1, 2}, "[1,2,3]"),
        ((1, "x"), '[1,"x"]'),
        ("caf\u00e9 \ud800", '"caf\u00e9 \\\\ud800"'),  # a lone surrogate is not Unicode
        (b"raw", '"b\'raw\'"'),
        (datetime.date(2026, 11, 30), '"2026-11-30"'),  # orjson writes it natively
    ])
    def test_values_json_lacks_have_one_spelling(self, value, text):
        assert canonical_bytes(value).decode() == text

    def test_plain_json_is_what_orjson_writes(self):
        value = {"z": [1, 2.5, "ü", {"y": None, "x": False}], "a": -(2**63)}
        assert canonical_bytes(value) == orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        assert canonical_value(value) == value

    def test_a_string_holding_null_is_not_mistaken_for_nan(self):
        assert canonical_bytes({"text": "null", "v": None}) == b'{"text":"null","v":null}'

    @pytest.mark.parametrize("value", [
        {"big": 2**100, "inf": float("inf"), 7: {"nan": float("nan")}},
        {1: "a", "1": {2: [2**70]}},
        {"deep": nested(2000)},
        {"set": {("a", 1), ("b", 2)}},
    ])
    def test_reading_back_encodes_to_the_same_bytes(self, value):
        text = canonical_bytes(value)
        back = orjson.loads(text)  # what a ledger reader gets
        assert canonical_bytes(back) == text
        assert canonical_bytes(canonical_value(value)) == text
        assert json.loads(text) == back  # any JSON reader can read it

    def test_deep_nesting_becomes_text_past_the_readers_limit(self):
        text = canonical_bytes(nested(MAX_DEPTH + 50))
        back = orjson.loads(text)
        for _ in range(MAX_DEPTH):
            back = back[0]
        assert isinstance(back, str)
        assert back == "[" * 50 + "1" + "]" * 50
        # Exactly at the limit it stays nested: orjson and the slow path agree.
        assert canonical_bytes(nested(MAX_DEPTH)) == b"[" * MAX_DEPTH + b"1" + b"]" * MAX_DEPTH

    def test_a_cycle_is_written_not_followed(self):
        loop: dict = {"name": "loop"}
        loop["self"] = loop
        assert canonical_bytes(loop) == b'{"name":"loop","self":"<cycle>"}'

    def test_key_order_never_matters(self):
        a = {1: "x", "b": float("nan"), (2, 3): {4: 5}}
        b = {(2, 3): {4: 5}, "b": float("nan"), 1: "x"}
        assert canonical_bytes(a) == canonical_bytes(b)
