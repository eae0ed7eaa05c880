"""The one YAML loader: aliases that expand are refused, lines are found once per file."""

from __future__ import annotations

import pytest

from workbench.contracts import _yaml
from workbench.contracts._yaml import MAX_ALIAS_VALUES, line_of, read_yaml
from workbench.contracts.config import ConfigTree
from workbench.contracts.manifest import load_manifest
from workbench.errors import ConfigError

HEAD = ("name: fortune-teller\nrole: worker\nmodel: {backend: scripted}\n"
        "may_emit: [oracle.spoke]\ntools: [oracle]\nscript:\n  - call: oracle\n    params:\n")


def bomb(levels: int, width: int = 10) -> str:
    """A billion laughs: level k is ``width`` aliases of level k-1, so it expands to
    width ** levels values while the file stays a few lines long."""
    lines = [f"      l0: &l0 [{', '.join(['lol'] * width)}]"]
    for k in range(1, levels):
        lines.append(f"      l{k}: &l{k} [{', '.join([f'*l{k - 1}'] * width)}]")
    return HEAD + "\n".join(lines) + "\n"


class TestAliasBombs:
    def test_a_bomb_no_machine_could_expand_is_refused_at_load(self, tmp_path):
        # 10 ** 40 values: a loader that expanded aliases (or merely walked them) would
        # never return, so passing proves the check measures the graph, not the expansion.
        path = tmp_path / "fortune-teller.yaml"
        path.write_text(bomb(40))
        with pytest.raises(ConfigError) as info:
            load_manifest(path)
        err = info.value
        assert err.path == str(path) and err.line is not None
        assert "aliases expand this file to" in err.problem
        assert f"at most {MAX_ALIAS_VALUES:,}" in err.problem

    def test_the_billion_laughs_in_script_params_is_one_problem_for_validate(self, config_dir):
        (config_dir / "agents" / "fortune-teller.yaml").write_text(bomb(9))
        problems = ConfigTree.problems(config_dir, known_tools=["oracle"])
        assert len(problems) == 1 and "aliases expand" in problems[0].problem
        with pytest.raises(ConfigError, match="aliases expand"):
            ConfigTree.load(config_dir)  # what run uses: the same loader, the same refusal

    def test_an_alias_that_contains_itself_is_refused(self, tmp_path):
        path = tmp_path / "loop.yaml"
        path.write_text("a: &a [1, *a]\n")
        with pytest.raises(ConfigError, match="refers to the block that contains it"):
            read_yaml(path)

    def test_sharing_a_block_with_an_alias_is_fine(self, tmp_path):
        path = tmp_path / "shared.yaml"
        path.write_text("base: &b {city: Paris, units: metric}\nfirst: *b\n"
                        "second: {<<: *b, units: imperial}\n")
        data, _ = read_yaml(path)
        assert data["first"] == {"city": "Paris", "units": "metric"}
        assert data["second"] == {"city": "Paris", "units": "imperial"}

    def test_the_limit_is_on_what_aliases_add(self, tmp_path):
        # l1 is 111 values; 80 aliases of it add 8,880 (loads), 100 add 11,100 (refused).
        head = "l0: &l0 [" + ", ".join(["x"] * 10) + "]\nl1: &l1 [" + ", ".join(
            ["*l0"] * 10) + "]\n"
        (tmp_path / "ok.yaml").write_text(head + "l2: [" + ", ".join(["*l1"] * 80) + "]\n")
        assert len(read_yaml(tmp_path / "ok.yaml")[0]["l2"]) == 80
        (tmp_path / "big.yaml").write_text(head + "l2: [" + ", ".join(["*l1"] * 100) + "]\n")
        with pytest.raises(ConfigError, match="aliases expand"):
            read_yaml(tmp_path / "big.yaml")


class TestFilesThatAreNotYaml:
    def test_not_utf8_names_the_line_of_the_bad_byte(self, tmp_path):
        path = tmp_path / "a.yaml"
        path.write_bytes(b"name: a\nrole: caf\xe9\n")
        with pytest.raises(ConfigError) as info:
            read_yaml(path)
        assert info.value.line == 2 and "not UTF-8" in info.value.problem

    def test_nesting_too_deep_is_an_error_not_a_crash(self, tmp_path):
        path = tmp_path / "deep.yaml"
        path.write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")
        with pytest.raises(ConfigError, match="nested too deeply|invalid YAML"):
            read_yaml(path)


class TestLinesAreFoundOncePerFile:
    def test_a_thousand_bad_grants_each_with_its_line_from_one_parse(self, config_dir):
        grants = [f"missing_{i}" for i in range(1000)]
        path = config_dir / "agents" / "gossip.yaml"
        path.write_text("name: gossip\nrole: worker\ntools:\n"
                        + "".join(f"  - {g}\n" for g in grants))
        _yaml._composed.cache_clear()
        problems = [p for p in ConfigTree.problems(config_dir, known_tools=["oracle"])
                    if p.path == str(path)]
        assert [p.key for p in problems] == [f"tools[{i}]" for i in range(1000)]
        assert [p.line for p in problems] == list(range(4, 1004))
        # One composition of the file served every one of the 1,000 line lookups.
        assert _yaml._composed.cache_info().misses == 1
        assert line_of(path.read_text(), ("tools", 999)) == 1003


class TestFilesThatAreNotFiles:
    """A config file that is a FIFO with no writer, or a device, is one line, never a hang."""

    def test_a_fifo_manifest_is_refused_at_once(self, tmp_path):
        import os

        path = tmp_path / "seer.yaml"
        os.mkfifo(path)
        with pytest.raises(ConfigError, match="is a FIFO, not a regular file"):
            load_manifest(path)

    def test_a_device_is_refused_without_reading_it(self, tmp_path):
        (tmp_path / "agents").mkdir()
        (tmp_path / "scenarios").mkdir()
        (tmp_path / "agents" / "zero.yaml").symlink_to("/dev/zero")
        problems = ConfigTree.problems(tmp_path)
        assert any("is a device, not a regular file" in str(p) for p in problems)
