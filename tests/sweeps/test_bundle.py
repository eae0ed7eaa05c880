import time
from pathlib import Path

import pytest

from workbench.contracts.config import ConfigTree
from workbench.errors import ConfigError
from workbench.sweeps.bundle import ConfigBundle
from workbench.sweeps.grid import build_variants, parse_set


def test_a_bundle_runs_without_its_directory(config_dir, tmp_path):
    bundle = ConfigBundle.snapshot(config_dir, "oracle-grove")
    # Workers have no shared disk: the directory is gone, the bundle still materializes.
    for path in sorted(config_dir.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    root = bundle.materialize(tmp_path / "w", (parse_set("governor.max_ticks=4"),
                                               parse_set("agents.fortune-teller.tools=[]")))
    tree = ConfigTree.load(root)
    assert tree.scenario("oracle-grove").governor.max_ticks == 4
    assert tree.agents["fortune-teller"].tools == ()


def test_a_surface_travels_and_replaces_the_scenarios(config_dir, tmp_path):
    surface = config_dir / "surfaces" / "watch-house"
    bundle = ConfigBundle.snapshot(config_dir, "watch-house", [str(surface)])
    root = bundle.materialize(tmp_path / "w", (), str(surface))
    spec = ConfigTree.load(root).scenario("watch-house")
    assert spec.surface != "surfaces/watch-house"
    assert (root / spec.surface / "tools.json").read_bytes() == (
        surface / "tools.json").read_bytes()


@pytest.mark.parametrize("override, words", [
    ("agents.nobody.tools=[]", ["no agent 'nobody'", "fortune-teller"]),
    ("governor.max_ticks=-1", ["max_ticks"]),
    ("governor.nonsense=1", ["nonsense"]),
    ("agents.fortune-teller=1", ["agents.NAME.FIELD"]),
    ("title.deeper=1", ["is not a mapping"]),
])
def test_a_bad_override_is_a_config_error_before_any_run(config_dir, tmp_path, override,
                                                         words):
    bundle = ConfigBundle.snapshot(config_dir, "oracle-grove")
    with pytest.raises(ConfigError) as err:
        bundle.check(tmp_path / "w", (parse_set(override),))
    for word in words:
        assert word in str(err.value)


def test_missing_directory_surface_and_scenario(tmp_path, config_dir):
    with pytest.raises(ConfigError, match="no such config directory"):
        ConfigBundle.snapshot(tmp_path / "nope", "oracle-grove")
    with pytest.raises(ConfigError, match="tools.json"):
        ConfigBundle.snapshot(config_dir, "oracle-grove", [str(tmp_path)])
    with pytest.raises(ConfigError):
        ConfigBundle.snapshot(config_dir, "no-such-scenario")
    assert not Path(tmp_path / "nope").exists()


def _validate_says(config_dir, scenario, key, value):
    """What the config loader (``workbench validate``'s) says of ``key: value`` in a file."""
    import yaml

    path = config_dir / "scenarios" / f"{scenario}.yaml"
    original = path.read_text()
    doc = yaml.safe_load(original)
    node = doc
    *parents, last = key.split(".")
    for part in parents:
        node = node[part]
    node[last] = value
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    try:
        problems = ConfigTree.problems(config_dir)
    finally:
        path.write_text(original)
    [problem] = [p for p in problems if p.path == str(path)]
    return problem


class TestOverrideMessages:
    """A bad --set is one error naming --set and its key, in the config loader's words."""

    @pytest.mark.parametrize("key, raw", [
        ("governor.max_ticks", "abc"), ("governor.max_ticks", "-5"),
        ("governor.max_ticks", "1e400"), ("governor.max_ticks", "1.0e+400"),
        ("cast", "[]"), ("governor.max_calls_per_tick", "[1]"),
    ])
    def test_the_problem_is_what_validate_says(self, config_dir, key, raw):
        override = parse_set(f"{key}={raw}")
        expected = _validate_says(config_dir, "oracle-grove", key, override.value)
        bundle = ConfigBundle.snapshot(config_dir, "oracle-grove")
        with pytest.raises(ConfigError) as err:
            bundle.check_variants(build_variants([f"{key}=1", f"{key}={raw}"])
                                  if key != "cast" else build_variants([f"{key}={raw}"]))
        message = str(err.value)
        assert message.startswith(f"--set: {key}: {expected.problem}"), message
        assert "workbench-sweep-check" not in message and "\n" not in message
        assert "scenarios/oracle-grove.yaml" in message

    def test_an_agent_field_names_the_agent_override(self, config_dir):
        bundle = ConfigBundle.snapshot(config_dir, "oracle-grove")
        with pytest.raises(ConfigError) as err:
            bundle.check_variants(build_variants(["agents.fortune-teller.tools=oracle"]))
        assert str(err.value).startswith("--set: agents.fortune-teller.tools: ")
        assert "agents/fortune-teller.yaml" in str(err.value)

    def test_a_cast_member_that_does_not_exist(self, config_dir):
        bundle = ConfigBundle.snapshot(config_dir, "oracle-grove")
        with pytest.raises(ConfigError) as err:
            bundle.check_variants(build_variants(["cast=[fortune-teller]",
                                                  "cast=[nobody]"]))
        assert str(err.value).startswith("--set: cast: ") and "'nobody'" in str(err.value)

    @pytest.mark.slow

    def test_a_thousand_variants_are_checked_in_seconds(self, config_dir):
        bundle = ConfigBundle.snapshot(config_dir, "oracle-grove")
        grid = build_variants([f"governor.max_ticks={i}" for i in range(1, 1001)])
        started = time.monotonic()
        bundle.check_variants(grid)
        assert time.monotonic() - started < 20  # each file once, the tree once per shape

    def test_the_last_variant_is_checked_too(self, config_dir):
        bundle = ConfigBundle.snapshot(config_dir, "oracle-grove")
        sets = [f"governor.max_ticks={i}" for i in range(1, 300)] + ["governor.max_ticks=0"]
        with pytest.raises(ConfigError, match="--set: governor.max_ticks: .*greater than"):
            bundle.check_variants(build_variants(sets))
