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

__all__ = ["SWEEP_COLUMNS", "sweep_frame", "violations_by_agent", "violations_heatmap"]

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
    base = alt.Chart(long).encode(
        x=alt.X("agent:N", sort=list(table.columns), title="agent"),
        y=alt.Y("variant:N", sort=list(table.index), title="variant"))
    cells = base.mark_rect().encode(
        color=alt.Color("denied:Q", scale=alt.Scale(scheme="reds"), title=TOOL_DENIED),
        tooltip=["variant", "agent", "denied"])
    labels = base.mark_text().encode(text="denied:Q")
    from workbench.timeline import LabChart

    title = "violations per variant and agent"
    return LabChart((cells + labels).properties(title=title), title)


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
