"""A sweep in a notebook: the grid as text fields, a progress bar, the runs and a heatmap.

The panel drives :func:`workbench.sweep` with what its fields say and shows
:func:`~workbench.sweeps.views.sweep_frame` (one page at a time: a grid can be thousands of
runs) and the violations heatmap when the sweep ends. The progress bar and its ``n/N runs``
count move as runs finish (the kernel sends each update as it happens).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets as widgets

from workbench.widgets.display import ErrorArea, guarded, show
from workbench.widgets.paged_table import PagedTable

__all__ = ["SweepPanel"]


class SweepPanel(widgets.VBox):
    """Fields for a sweep's grid, Run, a progress bar, and the results.

    Args:
        config: The config directory.
        scenario: The scenario to sweep.
        out: Where the sweep writes (a run there again skips the runs already complete).
        page_size: Runs per page of the table.

    Attributes:
        frame: The last sweep's runs (:func:`sweep_frame`), or None.
        last_error: The last callback's exception, or None.
    """

    def __init__(self, config: str | Path, scenario: str, out: str | Path,
                 page_size: int = 25):
        self.config, self.scenario, self.out = Path(config), scenario, str(out)
        self.frame: Any = None
        self.last_error: BaseException | None = None
        self.seeds = widgets.Text(value="0-3", description="seeds",
                                  placeholder="0-9 or 1,5,7")
        self.sets = widgets.Textarea(value="", description="--set",
                                     placeholder="one KEY=VALUE a line, e.g.\n"
                                                 "agents.fortune-teller.tools=[]",
                                     layout=widgets.Layout(width="40em", height="5em"))
        self.workers = widgets.BoundedIntText(value=2, min=1, max=64, description="workers")
        self.run_button = widgets.Button(description="Run sweep", button_style="primary")
        self.progress = widgets.IntProgress(value=0, min=0, max=1, description="runs")
        self.progress_count = widgets.Label(value="")
        self.status = widgets.Label(value="")
        self.table = PagedTable("wb-sweep", "No runs.", page_size, wrap=("error",))
        #: The heatmap of the last sweep.
        self.results = widgets.Output()
        self.error_area = ErrorArea()
        self.run_button.on_click(lambda _: self.run())
        super().__init__([
            widgets.HTML(f"<b>Sweep</b> {scenario}"),
            widgets.HBox([self.seeds, self.workers]), self.sets,
            widgets.HBox([self.run_button, self.progress, self.progress_count, self.status]),
            self.error_area, self.table, self.results,
        ])

    @guarded
    def run(self) -> Any:
        """Run the sweep the fields describe; returns the runs' frame."""
        from workbench.sweeps import sweep
        from workbench.sweeps.views import sweep_frame, violations_heatmap

        sets = [line.strip() for line in self.sets.value.splitlines() if line.strip()]
        self.progress.value = 0
        self.progress_count.value = ""
        self.status.value = "running"
        raw = sweep(self.config, self.scenario, seeds=self.seeds.value, sets=sets,
                    out=self.out, workers=self.workers.value, progress=self._step)
        self.frame = sweep_frame(raw)
        failed = int(self.frame["error"].notna().sum())
        self.status.value = (f"{len(self.frame)} runs, {failed} failed, "
                             f"{raw.attrs.get('skipped', 0)} already complete")
        self.table.show(self.frame)  # hashes are shown short by the table, kept whole
        show(self.results, violations_heatmap(self.out))
        return self.frame

    def _step(self, done: int, total: int) -> None:
        self.progress.max = max(total, 1)
        self.progress.value = done
        self.progress_count.value = f"{done:,}/{total:,} runs"

    def __repr__(self) -> str:
        runs = "none yet" if self.frame is None else f"{len(self.frame)} runs"
        return f"SweepPanel({self.scenario!r}, {runs})"  # no path: notebooks store this
