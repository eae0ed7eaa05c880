"""The sweep panel headless: its fields drive a real sweep, the bar reaches the end."""

import pytest

from tests.widgets.conftest import output_html
from workbench.widgets import SweepPanel


@pytest.mark.slow


def test_run_fills_the_bar_the_table_and_the_heatmap(config_dir, tmp_path):
    panel = SweepPanel(config_dir, "town-square", tmp_path / "out")
    panel.seeds.value = "3-4"
    panel.sets.value = "governor.max_ticks=2\n\ngovernor.max_ticks=3\n"
    panel.workers.value = 1
    seen = []
    panel.progress.observe(lambda change: seen.append(change["new"]), names="value")
    panel.run_button.click()
    assert panel.last_error is None
    assert panel.progress.value == panel.progress.max == 4 and seen[-1] == 4
    assert panel.frame["seed"].tolist() == [3, 4, 3, 4]
    assert panel.status.value == "4 runs, 0 failed, 0 already complete"
    assert "governor.max_ticks=3" in output_html(panel.table.table)
    (chart,) = panel.results.outputs
    assert "vega" in str(chart["data"]).lower()  # an Altair chart, whichever renderer
    panel.run_button.click()  # the same sweep again: every run is already complete
    assert panel.status.value == "4 runs, 0 failed, 4 already complete"


def test_a_bad_override_is_shown_not_raised(config_dir, tmp_path):
    panel = SweepPanel(config_dir, "oracle-grove", tmp_path / "out")
    panel.sets.value = "agents.nobody.tools=[]"
    panel.run_button.click()
    assert "no agent 'nobody'" in str(panel.last_error)
    assert "no agent" in panel.error_area.outputs[0]["data"]["text/html"]
    assert "SweepPanel('oracle-grove'" in repr(panel) and len(repr(panel)) < 200


@pytest.mark.slow
def test_the_bar_counts_runs_and_the_runs_are_paged(config_dir, tmp_path):
    """Issue 30 item 6: an n/N count beside the bar, and the runs one page at a time."""
    panel = SweepPanel(config_dir, "town-square", tmp_path / "out", page_size=3)
    panel.seeds.value = "1-4"
    panel.sets.value = "governor.max_ticks=1"
    panel.workers.value = 1
    counts = []
    panel.progress_count.observe(lambda c: counts.append(c["new"]), names="value")
    panel.run()
    assert panel.last_error is None, panel.last_error
    assert counts[0] == "0/4 runs" and counts[-1] == "4/4 runs" and "2/4 runs" in counts
    assert panel.table.page_count == 2 and panel.table.rows == 4
    shown = output_html(panel.table.table)
    assert shown.count("<tr>") == 3  # one page of three runs
    full = panel.frame["final_hash"].iloc[0]
    assert len(full) == 64 and f">{full[:12]}…<" in shown  # shown short, kept whole
