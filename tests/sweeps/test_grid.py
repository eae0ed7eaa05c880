import time

import pytest

from workbench.errors import ConfigError
from workbench.sweeps.grid import (
    MAX_VARIANTS,
    VARIANTS_ENV,
    Override,
    build_variants,
    parse_seeds,
    parse_set,
    variant_grid,
)


class TestSeeds:
    @pytest.mark.parametrize("text, seeds", [
        ("3", [3]), ("0-3", [0, 1, 2, 3]), ("5,1,5", [1, 5]), ("0-1,7", [0, 1, 7]),
    ])
    def test_forms(self, text, seeds):
        assert parse_seeds(text) == seeds

    @pytest.mark.parametrize("text", ["", "a", "3-1", "-2", "1-b", "0-99999999"])
    def test_bad_ranges_name_the_flag(self, text):
        with pytest.raises(ConfigError) as err:
            parse_seeds(text)
        assert "--seeds" in str(err.value)


class TestSet:
    def test_values_are_yaml(self):
        assert parse_set("governor.max_ticks=50") == Override("governor.max_ticks", 50)
        assert parse_set("agents.a.tools=[]") == Override("agents.a.tools", [])
        assert parse_set("agents.a.tools=[oracle, x]").value == ["oracle", "x"]
        assert parse_set("title=a=b").value == "a=b"

    @pytest.mark.parametrize("text", ["nokey", "=5", "a..b=1", "a=[unclosed"])
    def test_bad_overrides_name_the_flag(self, text):
        with pytest.raises(ConfigError) as err:
            parse_set(text)
        assert "--set" in str(err.value)


class TestVariants:
    def test_same_key_alternates_other_keys_multiply(self):
        variants = build_variants(["a=1", "a=2", "b=x"], surfaces=["s1", "s2"])
        assert [v.label for v in variants] == [
            "a=1, b=x, surface=s1", "a=1, b=x, surface=s2",
            "a=2, b=x, surface=s1", "a=2, b=x, surface=s2"]
        assert [v.index for v in variants] == [0, 1, 2, 3]

    def test_no_overrides_is_one_base_variant(self):
        [variant] = build_variants()
        assert variant.label == "base" and variant.id.startswith("v000-")

    def test_ids_are_stable_and_distinct(self):
        first = [v.id for v in build_variants(["a=1", "a=2"])]
        again = [v.id for v in build_variants(["a=1", "a=2"])]
        assert first == again and len(set(first)) == 2


class TestGridCap:
    """A grid past the variant cap is refused from its size alone, before it is built."""

    def test_a_hundred_million_variants_are_one_error_at_once(self):
        sets = [f"k{key}={value}" for key in range(8) for value in range(10)]
        started = time.monotonic()
        with pytest.raises(ConfigError) as err:
            build_variants(sets)
        assert time.monotonic() - started < 5  # from the axes' sizes, not by building it
        message = str(err.value)
        assert message.startswith("--set: ") and "100,000,000 variants" in message
        assert f"{MAX_VARIANTS:,}" in message and VARIANTS_ENV in message

    def test_surfaces_multiply_the_count(self):
        sets = [f"a={i}" for i in range(MAX_VARIANTS // 2 + 1)]
        with pytest.raises(ConfigError, match="variants"):
            build_variants(sets, surfaces=["s1", "s2"])

    def test_the_cap_itself_is_allowed_and_streamed(self):
        sets = [f"a={i}" for i in range(MAX_VARIANTS)]
        grid = variant_grid(sets)
        assert grid.size == MAX_VARIANTS
        first = next(iter(grid))
        assert first.index == 0 and first.label == "a=0"

    def test_the_environment_raises_the_cap(self):
        sets = [f"a={i}" for i in range(MAX_VARIANTS + 1)]
        assert variant_grid(sets, env={VARIANTS_ENV: str(MAX_VARIANTS + 1)}).size == (
            MAX_VARIANTS + 1)

    @pytest.mark.parametrize("raw", ["0", "-3", "many", "inf"])
    def test_a_bad_cap_in_the_environment_is_one_error(self, raw):
        with pytest.raises(ConfigError, match=VARIANTS_ENV):
            variant_grid(["a=1"], env={VARIANTS_ENV: raw})


class TestSetValues:
    """Values no config field can hold are refused by ``parse_set``, naming the key."""

    @pytest.mark.parametrize("text", [
        "governor.max_ticks=99999999999999999999999",
        "governor.max_ticks=-99999999999999999999999",
        "agents.a.tools=[1, 18446744073709551616]",
    ])
    def test_integers_beyond_64_bits(self, text):
        with pytest.raises(ConfigError) as err:
            parse_set(text)
        key = text.partition("=")[0]
        assert str(err.value).startswith(f"--set: {key}: ") and "64 bits" in str(err.value)

    def test_the_64_bit_edges_are_fine(self):
        assert parse_set(f"a={2**64 - 1}").value == 2**64 - 1
        assert parse_set(f"a={-(2**63)}").value == -(2**63)

    def test_a_value_nested_deeper_than_any_field_is_one_error(self):
        with pytest.raises(ConfigError) as err:
            parse_set("agents.a.tools=" + "[" * 100_000 + "]" * 100_000)
        assert str(err.value).startswith("--set: agents.a.tools: ")
        assert "nested" in str(err.value)
