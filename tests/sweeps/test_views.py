import pytest

from workbench.errors import ConfigError
from workbench.sweeps import sweep
from workbench.sweeps.views import (
    SWEEP_COLUMNS,
    sweep_frame,
    violations_by_agent,
    violations_heatmap,
)

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess


@pytest.fixture
def swept(config_dir, tmp_path):
    sweep(config_dir, "town-square", out=tmp_path, workers=1, seeds="3-4",
          sets=["governor.max_ticks=2", "governor.max_ticks=4"])
    return tmp_path


def test_sweep_frame_is_sorted_with_fixed_columns(swept):
    frame = sweep_frame(swept)
    assert list(frame.columns) == SWEEP_COLUMNS
    assert frame["variant"].tolist() == ["governor.max_ticks=2"] * 2 + ["governor.max_ticks=4"] * 2
    assert frame["seed"].tolist() == [3, 4, 3, 4]


def test_violations_by_agent_counts_the_heralds_denials(swept):
    table = violations_by_agent(swept)
    assert list(table.columns) == ["chronicler", "gossip", "herald"]
    assert table.loc["governor.max_ticks=4", "herald"] > 0
    assert table.loc["governor.max_ticks=4", "gossip"] == 0
    events = __import__("pandas").read_parquet(swept / "events.parquet")
    assert table.to_numpy().sum() == (events["kind"] == "tool.denied").sum()


def test_the_heatmap_is_a_chart_of_the_same_counts(swept):
    spec = violations_heatmap(swept).chart.to_dict()
    values = spec["datasets"][next(iter(spec["datasets"]))]
    assert {(v["variant"], v["agent"]) for v in values} == {
        (var, agent) for var in ("governor.max_ticks=2", "governor.max_ticks=4")
        for agent in ("chronicler", "gossip", "herald")}


def test_a_directory_that_is_no_sweep_says_so(tmp_path):
    with pytest.raises(ConfigError, match="workbench sweep"):
        sweep_frame(tmp_path)
