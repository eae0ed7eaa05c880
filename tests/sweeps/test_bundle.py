from pathlib import Path

import pytest

from workbench.contracts.config import ConfigTree
from workbench.errors import ConfigError
from workbench.sweeps.bundle import ConfigBundle
from workbench.sweeps.grid import parse_set


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
