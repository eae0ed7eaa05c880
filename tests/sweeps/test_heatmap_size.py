"""The sweep heatmap is sized to its data, labels whole (issue 30 item 8).

With Vega-Lite's default 20 px per band, two variants drew a 40 px chart whose long
variant labels were cut at 180 px. The sweep's files are written here directly (the
columns a sweep writes), so the test needs no runs.
"""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.sweeps.runner import RUN_COLUMNS
from workbench.sweeps.views import (
    HEATMAP_CHAR_PX,
    HEATMAP_COLUMN_PX,
    HEATMAP_ROW_PX,
    violations_heatmap,
)

VARIANTS = ["agents.fortune-teller.tools=[\"oracle\"]", "agents.fortune-teller.tools=[]",
            "agents.fortune-teller.tools=[] governor.max_ticks=50"]
AGENTS = ["fortune-teller", "scene-whisperer", "herald"]


@pytest.fixture
def out(tmp_path):
    runs = pd.DataFrame([{c: None for c in RUN_COLUMNS} | {"run": f"r{i}", "variant": v,
                                                          "variant_index": i, "seed": 1}
                         for i, v in enumerate(VARIANTS)])
    runs.to_parquet(tmp_path / "runs.parquet")
    events = pd.DataFrame({"variant": [VARIANTS[1], VARIANTS[2], VARIANTS[0]],
                           "kind": ["tool.denied", "tool.denied", "world.observed"],
                           "actor": ["fortune-teller", "herald", "scene-whisperer"]})
    events.to_parquet(tmp_path / "events.parquet")
    return tmp_path


def test_each_band_is_big_enough_to_read(out):
    spec = violations_heatmap(out).to_dict()
    assert spec["height"] >= HEATMAP_ROW_PX * len(VARIANTS) >= 3 * 28
    assert spec["width"] >= HEATMAP_COLUMN_PX * len(AGENTS) >= 3 * 80


def test_no_label_is_cut(out):
    spec = violations_heatmap(out).to_dict()
    x, y = spec["layer"][0]["encoding"]["x"], spec["layer"][0]["encoding"]["y"]
    longest_variant = max(map(len, VARIANTS)) * HEATMAP_CHAR_PX
    assert y["axis"]["labelLimit"] >= longest_variant
    assert x["axis"]["labelAngle"] == 0  # agent names read across, not slanted
    assert x["axis"]["labelLimit"] >= max(map(len, AGENTS)) * HEATMAP_CHAR_PX
    # A column is wide enough for its agent's name.
    assert spec["width"] / len(AGENTS) >= max(map(len, AGENTS)) * HEATMAP_CHAR_PX
