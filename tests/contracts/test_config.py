"""Every class of bad config names the file, the line, the key path and what is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.contracts.config import ConfigTree
from workbench.contracts.manifest import AgentManifest, load_manifest
from workbench.contracts.scenario import load_scenario
from workbench.errors import ConfigError


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def agent_file(config_dir: Path, name: str = "fortune-teller") -> Path:
    return config_dir / "agents" / f"{name}.yaml"


class TestShippedConfig:
    def test_loads_and_cross_validates(self, repo_root):
        tree = ConfigTree.load(repo_root / "config")
        assert {"fortune-teller", "scene-whisperer"} <= set(tree.agents)
        assert {"oracle-grove", "town-square"} <= set(tree.scenarios)
        teller = tree.agents["fortune-teller"]
        assert (teller.handler, teller.tools, teller.may_emit) == (
            "fortune-teller", ("oracle",), ("oracle.spoke",))
        whisperer = tree.agents["scene-whisperer"]
        assert (whisperer.handler, whisperer.tools, whisperer.may_emit) == (
            None, (), ("world.observed",))
        assert tree.scenario("oracle-grove").cast == ("fortune-teller", "scene-whisperer")

    def test_no_problems(self, repo_root):
        assert ConfigTree.problems(repo_root / "config", known_tools=["oracle"]) == []


class TestBadManifests:
    def test_unknown_key(self, config_dir):
        path = agent_file(config_dir)
        write(path, path.read_text() + "colour: blue\n")
        with pytest.raises(ConfigError) as info:
            load_manifest(path)
        err = info.value
        assert err.path == str(path) and err.key == "colour"
        assert err.line == len(path.read_text().splitlines())
        assert "unknown key; allowed keys: name, role, persona" in err.problem
        assert str(err).startswith(f"{path}:{err.line}: colour: unknown key")

    def test_unknown_nested_key_lists_the_nested_allowed_keys(self, config_dir):
        path = agent_file(config_dir)
        text = path.read_text().replace("  tick_every: null", "  tick_every: null\n  often: 3")
        write(path, text)
        with pytest.raises(ConfigError) as info:
            load_manifest(path)
        assert info.value.key == "schedule.often"
        assert info.value.problem == "unknown key; allowed keys: tick_every"

    def test_bad_kind(self, config_dir):
        path = agent_file(config_dir)
        text = path.read_text().replace("may_emit: [oracle.spoke]", "may_emit: [Oracle Spoke]")
        write(path, text)
        with pytest.raises(ConfigError) as info:
            load_manifest(path)
        err = info.value
        assert err.key == "may_emit[0]"
        assert "'Oracle Spoke' is not a valid event kind" in err.problem
        assert "lowercase dot-separated words" in err.problem
        assert err.line == 1 + path.read_text().splitlines().index("may_emit: [Oracle Spoke]")

    def test_wrong_type(self, config_dir):
        path = agent_file(config_dir)
        write(path, path.read_text().replace("window: 6", "window: lots"))
        with pytest.raises(ConfigError) as info:
            load_manifest(path)
        assert info.value.key == "memory.window"
        assert "valid integer" in info.value.problem and "got a string" in info.value.problem

    def test_bad_role_lists_allowed_values(self, config_dir):
        path = agent_file(config_dir)
        write(path, path.read_text().replace("role: worker", "role: wizard"))
        with pytest.raises(ConfigError) as info:
            load_manifest(path)
        assert info.value.key == "role"
        assert "'worker', 'judge' or 'observer'" in info.value.problem

    def test_invalid_tool_name(self, config_dir):
        path = agent_file(config_dir)
        write(path, path.read_text().replace("tools: [oracle]", "tools: [oracle, 'read file']"))
        with pytest.raises(ConfigError) as info:
            load_manifest(path)
        err = info.value
        assert err.key == "tools[1]"
        assert "'read file' is not a valid tool name" in err.problem
        assert "A-Z a-z 0-9 _ . -" in err.problem

    def test_invalid_yaml(self, config_dir):
        path = agent_file(config_dir)
        write(path, "name: fortune-teller\nrole: [worker\n")
        with pytest.raises(ConfigError) as info:
            load_manifest(path)
        assert info.value.path == str(path)
        assert info.value.problem.startswith("invalid YAML")
        assert info.value.line == 3

    def test_duplicate_key_is_an_error_not_a_silent_override(self, config_dir):
        path = agent_file(config_dir)
        write(path, path.read_text() + "tools: []\n")
        with pytest.raises(ConfigError, match="duplicate key 'tools'"):
            load_manifest(path)

    def test_missing_required_key(self, config_dir):
        path = write(agent_file(config_dir, "nobody"), "name: nobody\n")
        with pytest.raises(ConfigError) as info:
            load_manifest(path)
        assert (info.value.key, info.value.problem) == ("role", "required key is missing")

    def test_name_must_match_file(self, config_dir):
        path = write(agent_file(config_dir, "other"), "name: someone\nrole: worker\n")
        with pytest.raises(ConfigError, match="does not match the file name"):
            load_manifest(path)

    def test_top_level_must_be_a_mapping(self, config_dir):
        path = write(agent_file(config_dir, "listy"), "- a\n- b\n")
        with pytest.raises(ConfigError, match="expected a mapping"):
            load_manifest(path)

    def test_scripted_needs_a_script(self):
        with pytest.raises(ValueError, match="needs a non-empty 'script'"):
            AgentManifest(name="s", role="worker", model={"backend": "scripted"})


class TestBadScenarios:
    def test_missing_cast_member(self, config_dir):
        path = config_dir / "scenarios" / "oracle-grove.yaml"
        write(path, path.read_text().replace("cast: [fortune-teller, scene-whisperer]",
                                             "cast: [fortune-teller, ghost]"))
        with pytest.raises(ConfigError) as info:
            ConfigTree.load(config_dir)
        err = info.value
        assert err.path == str(path) and err.key == "cast[1]"
        assert "no agent named 'ghost'" in err.problem
        assert "known agents: chronicler, clerk, fortune-teller" in err.problem
        assert err.line == 9

    def test_governor_wrong_type(self, config_dir):
        path = config_dir / "scenarios" / "oracle-grove.yaml"
        write(path, path.read_text().replace("max_ticks: 10", "max_ticks: -1"))
        with pytest.raises(ConfigError) as info:
            load_scenario(path)
        assert info.value.key == "governor.max_ticks"
        assert "greater than or equal to 1" in info.value.problem

    def test_server_needs_command_or_url(self, config_dir):
        path = config_dir / "scenarios" / "oracle-grove.yaml"
        write(path, path.read_text() + "servers:\n  - name: x\n")
        with pytest.raises(ConfigError) as info:
            load_scenario(path)
        assert info.value.key == "servers[0]"
        assert "exactly one of 'command' or 'url'" in info.value.problem

    @pytest.mark.parametrize("command, says", [
        ('""', "the command line is empty"),
        ("'   '", "the command line is empty"),
        ("\"python -m 'x\"", "cannot be split into words (no closing quotation)"),
    ])
    def test_server_command_must_split_into_words(self, config_dir, command, says):
        path = config_dir / "scenarios" / "oracle-grove.yaml"
        text = path.read_text()
        write(path, text + f"servers:\n  - name: x\n    command: {command}\n")
        with pytest.raises(ConfigError) as info:
            load_scenario(path)
        err = info.value
        assert err.key == "servers[0].command" and says in err.problem
        assert err.line == len(text.splitlines()) + 3

    def test_problems_collects_everything(self, config_dir):
        write(agent_file(config_dir), agent_file(config_dir).read_text() + "extra: 1\n")
        path = config_dir / "scenarios" / "town-square.yaml"
        write(path, path.read_text().replace("cast: [herald,", "cast: [crier,"))
        problems = ConfigTree.problems(config_dir)
        assert [(Path(p.path).name, p.key) for p in problems] == [
            ("fortune-teller.yaml", "extra"), ("town-square.yaml", "cast[0]")]

    def test_every_problem_of_one_file_is_reported(self, config_dir):
        path = agent_file(config_dir)
        text = path.read_text().replace("role: worker", "role: wizard")
        write(path, text.replace("window: 6", "window: lots") + "colour: blue\n")
        problems = ConfigTree.problems(config_dir)
        assert [p.key for p in problems] == ["role", "memory.window", "colour"]
        with pytest.raises(ConfigError) as info:
            load_manifest(path)
        assert info.value.key == "role" and len(info.value.problems) == 3

    def test_unknown_granted_tool_is_reported(self, config_dir):
        path = agent_file(config_dir, "chronicler")
        write(path, path.read_text().replace("tools: [oracle]", "tools: [oracle, scry]"))
        problems = ConfigTree.problems(config_dir, known_tools=["oracle"])
        assert len(problems) == 1
        assert problems[0].key == "tools[1]" and "'scry' is granted" in problems[0].problem

    def test_unknown_scenario_lists_known_ones(self, repo_root):
        with pytest.raises(ConfigError,
                           match="known scenarios: counting-house, .*oracle-grove, town-square"):
            ConfigTree.load(repo_root / "config").scenario("nope")
