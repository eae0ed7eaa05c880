"""Tables and a heatmap of a sweep, for notebooks.

Every view reads what a sweep wrote (``runs.parquet``, ``events.parquet``) or takes the
frame :func:`~workbench.sweeps.sweep` returned. Columns are fixed and rows sorted by grid
position and seed, so stored notebook outputs stay stable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.contracts.events import TOOL_DENIED
from workbench.sweeps.runner import RUN_COLUMNS

__all__ = ["HEATMAP_CHAR_PX", "HEATMAP_COLUMN_PX", "HEATMAP_ROW_PX", "SWEEP_COLUMNS",
           "sweep_frame", "violations_by_agent", "violations_heatmap"]

#: Pixels per variant (a row of the heatmap): room for the count in the cell. Vega-Lite's
#: default band is 20 px, which made two variants a 40 px strip.
HEATMAP_ROW_PX = 32
#: The narrowest a column (an agent) of the heatmap is; wider when its name needs it.
HEATMAP_COLUMN_PX = 90
#: Pixels one label character takes at the axis' font size, to keep labels whole.
HEATMAP_CHAR_PX = 7

#: What :func:`sweep_frame` shows: the run's identity and outcome, no wall-clock time.
SWEEP_COLUMNS = ["run", "variant", "seed", "final_hash", "events", "violations",
                 "tool_errors", "agent_failures", "model_calls", "reason", "error"]


def sweep_frame(source: Any, *, with_duration: bool = False) -> Any:
    """One row per run, sorted by grid position and seed.

    Args:
        source: A sweep's output directory (or fsspec URL), or the frame ``sweep`` returned.
        with_duration: Also show ``duration_s`` (wall-clock: it differs run to run).
    """
    frame = _runs(source)
    columns = SWEEP_COLUMNS + (["duration_s"] if with_duration else [])
    return (frame.sort_values(["variant_index", "seed"], kind="stable")[columns]
            .reset_index(drop=True))


def violations_by_agent(out: str | Path) -> Any:
    """``tool.denied`` counts: one row per variant, one column per agent (0 where none)."""
    import pandas as pd

    runs = _runs(out)
    events = _read_parquet(out, "events.parquet")
    denied = events[events["kind"] == TOOL_DENIED]
    order = runs.drop_duplicates("variant").sort_values("variant_index")["variant"].tolist()
    agents = sorted(set(events["actor"]) - {"conductor", "world"})
    table = pd.crosstab(denied["variant"], denied["actor"]).reindex(
        index=order, columns=agents, fill_value=0)
    table.index.name, table.columns.name = "variant", "agent"
    return table.fillna(0).astype(int)


def violations_heatmap(out: str | Path) -> Any:
    """A heatmap of :func:`violations_by_agent`: variants down, agents across.

    Returns a :class:`~workbench.timeline.LabChart` (its ``chart`` is the Altair chart).
    """
    try:
        import altair as alt
    except ImportError as exc:  # pragma: no cover - altair is in the widgets extra
        from workbench.errors import MissingDependency

        raise MissingDependency("altair", "widgets") from exc
    table = violations_by_agent(out)
    long = table.reset_index().melt(id_vars="variant", var_name="agent", value_name="denied")
    agents, variants = [str(a) for a in table.columns], [str(v) for v in table.index]
    # Sized to the data: a band per variant tall enough to read its count, a column per
    # agent wide enough for its name, and no label cut short (Vega-Lite cuts at 180 px).
    column = max(HEATMAP_COLUMN_PX, HEATMAP_CHAR_PX * max(map(len, agents), default=0) + 12)
    variant_px = HEATMAP_CHAR_PX * max(map(len, variants), default=0) + 12
    base = alt.Chart(long).encode(
        x=alt.X("agent:N", sort=agents, title="agent",
                axis=alt.Axis(labelAngle=0, labelLimit=column, orient="top")),
        y=alt.Y("variant:N", sort=variants, title="variant",
                axis=alt.Axis(labelLimit=variant_px)))
    cells = base.mark_rect().encode(
        color=alt.Color("denied:Q", scale=alt.Scale(scheme="reds"), title=TOOL_DENIED),
        tooltip=["variant", "agent", "denied"])
    labels = base.mark_text(fontSize=13).encode(text="denied:Q")
    from workbench.timeline import LabChart

    title = "violations per variant and agent"
    chart = (cells + labels).properties(title=title, width=column * max(len(agents), 1),
                                        height=HEATMAP_ROW_PX * max(len(variants), 1))
    return LabChart(chart, title)


def _runs(source: Any) -> Any:
    if hasattr(source, "columns"):
        missing = [c for c in RUN_COLUMNS if c not in source.columns]
        if missing:
            raise ValueError(f"not a sweep's frame: it lacks {', '.join(missing)}")
        return source
    return _read_parquet(source, "runs.parquet")


def _read_parquet(out: str | Path, name: str) -> Any:
    import fsspec
    import pandas as pd

    from workbench.errors import ConfigError

    fs, base = fsspec.core.url_to_fs(str(out))
    path = f"{base.rstrip('/')}/{name}"
    if not fs.exists(path):
        raise ConfigError(out, name, "not found: is this a sweep's --out directory? Run "
                                     "`workbench sweep ... --out DIR` first")
    with fs.open(path, "rb") as fh:
        return pd.read_parquet(fh)
