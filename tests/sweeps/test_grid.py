import pytest

from workbench.errors import ConfigError
from workbench.sweeps.grid import Override, build_variants, parse_seeds, parse_set


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
