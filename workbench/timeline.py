"""A run as a picture: ticks across, agents down, one mark per event.

``timeline(result)`` plots a run (or a ledger, a ledger file, hand calls): each event is
a point at its tick on its actor's row, coloured by kind; refused calls (``tool.denied``)
and failures (``agent.failed``, a ``tool.called`` with an ``error``) are drawn again on
top as large red crosses, so they stand out in a run of thousands of events. Hovering a
mark shows its seq, kind and summary.

The chart is built with Altair and shown through JupyterLab's own Vega-Lite renderer
(the ``application/vnd.vegalite.v5+json`` output), which draws it offline and stores it
in the notebook as plain JSON: no random element ids, so nbval compares stored outputs
as they are. Altair's HTML output would need a CDN and carries random ids.

A long run is binned so the output stays small: past ``max_points`` events, events of the
same actor, kind and tick bin become one mark whose size is the count.

Example:
    >>> from workbench.engine.conductor import Conductor  # doctest: +SKIP
    >>> timeline(Conductor.from_config("config", "town-square").run())  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import threading
from typing import TYPE_CHECKING, Any

from workbench.contracts.events import AGENT_FAILED, TOOL_CALLED, TOOL_DENIED, summarize
from workbench.errors import MissingDependency
from workbench.frames import events_of

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TIMELINE_COLUMNS", "LabChart", "Timeline", "timeline", "timeline_frame", "warm"]

TIMELINE_COLUMNS = ["seq", "tick", "actor", "kind", "outcome", "summary", "count"]
#: The Vega-Lite major version JupyterLab 4 renders natively (its vega5 extension).
VEGALITE_MIME = "application/vnd.vegalite.v5+json"
_VEGALITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"
_HIGHLIGHT = ("denied", "failed")
_warmed = False


def warm() -> None:
    """Import Altair in the background (once), so the first chart does not wait for it.

    Importing Altair takes seconds on a small machine; a widget that will draw a timeline
    calls this when it is built, and the import overlaps with the person's first clicks.
    """
    global _warmed
    if not _warmed:
        _warmed = True
        threading.Thread(target=_import_quietly, daemon=True).start()


def _import_quietly() -> None:
    try:
        import altair  # noqa: F401
    except Exception:  # noqa: S110 - timeline() imports it again and says what is missing
        pass


def _outcome(kind: str, payload: dict[str, Any]) -> str:
    if kind == TOOL_DENIED:
        return "denied"
    if kind == AGENT_FAILED or (kind == TOOL_CALLED and payload.get("error")):
        return "failed"
    return "ok"


def timeline_frame(source: Any, max_points: int = 1000) -> pd.DataFrame:
    """The rows the timeline plots, one per event (or per bin for a long run).

    Columns: seq (first event of the row), tick (the bin's first tick), actor, kind,
    outcome (``ok``, ``denied`` or ``failed``), summary, count (events in the row).
    """
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas comes with the widgets extra
        raise MissingDependency("pandas", "frames") from exc
    events = events_of(source)
    rows = [(e.seq, e.tick, e.actor, e.kind, _outcome(e.kind, e.payload), summarize(e, 120), 1)
            for e in events]
    frame = pd.DataFrame(rows, columns=TIMELINE_COLUMNS)
    if len(frame) <= max_points:
        return frame
    # Bin ticks so that about max_points rows remain; denials and failures keep their
    # own rows (the outcome is part of the key), so none is averaged away.
    keys = max(frame.groupby(["actor", "kind", "outcome"]).ngroups, 1)
    top = int(frame["tick"].max()) + 1
    width = max(1, -(-top * keys // max_points))
    frame["tick"] = frame["tick"] // width * width
    grouped = frame.groupby(["tick", "actor", "kind", "outcome"], sort=True, as_index=False)
    binned = grouped.agg(seq=("seq", "min"), summary=("summary", "first"),
                         count=("count", "sum"))
    binned["summary"] = [f"{n} events, ticks {t}-{t + width - 1}; first: {_short(s)}"
                         if n > 1 else s
                         for n, t, s in zip(binned["count"], binned["tick"], binned["summary"],
                                            strict=True)]
    return binned[TIMELINE_COLUMNS].sort_values("seq", ignore_index=True)


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LabChart:
    """An Altair chart shown through JupyterLab's own Vega-Lite renderer.

    Ending a cell with one draws it offline and stores plain JSON in the notebook (see the
    module docstring). Other views (a sweep's heatmap) use it too.

    Attributes:
        chart: The Altair chart (layer it, save it, ``chart.properties(width=...)``).
        title: What the chart shows.
    """

    def __init__(self, chart: Any, title: str):
        self.chart = chart
        self.title = title

    def to_dict(self) -> dict[str, Any]:
        """The Vega-Lite spec, data inlined, as JupyterLab's renderer receives it."""
        spec = copy.deepcopy(self.chart.to_dict())
        spec["$schema"] = _VEGALITE_SCHEMA
        # SVG, not canvas: crisp at any zoom, and each mark is an element a test can find.
        spec["usermeta"] = {"embedOptions": {"renderer": "svg"}}
        return spec

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {VEGALITE_MIME: self.to_dict(), "text/plain": repr(self)}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.title})"


class Timeline(LabChart):
    """A run's timeline chart; the last expression of a cell shows it.

    Attributes:
        chart: The Altair chart (layer it, save it, ``chart.properties(width=...)``).
        frame: The plotted rows (see :func:`timeline_frame`).
        title: What the chart says about the run.
    """

    def __init__(self, chart: Any, frame: pd.DataFrame, title: str):
        super().__init__(chart, title)
        self.frame = frame


def timeline(source: Any, *, width: int = 640, max_points: int = 1000) -> Timeline:
    """Plot a run: ticks across, agents down, kinds as colours, denials and failures in red.

    Args:
        source: A RunResult, Ledger, LedgerFile, HandCalls or list of events.
        width: Chart width in pixels (the height follows the number of actors).
        max_points: Past this many events, ticks are binned (see the module docs).

    Raises:
        MissingDependency: Altair is not installed (it comes with the widgets extra).
    """
    try:
        import altair as alt
    except ImportError as exc:
        raise MissingDependency("altair", "widgets") from exc
    frame = timeline_frame(source, max_points)
    events = int(frame["count"].sum())
    ledger = getattr(source, "ledger", source)
    run_id = getattr(ledger, "run_id", "events")
    denied = int(frame.loc[frame["outcome"] == "denied", "count"].sum())
    failed = int(frame.loc[frame["outcome"] == "failed", "count"].sum())
    ticks = int(frame["tick"].max()) if len(frame) else 0
    title = (f"{run_id}: {events:,} events over {ticks:,} ticks, {denied:,} denied, "
             f"{failed:,} failed")
    actors = list(dict.fromkeys(frame["actor"]))  # in order of first appearance
    y = alt.Y("actor:N", sort=actors, title=None)
    x = alt.X("tick:Q", title="tick", axis=alt.Axis(tickMinStep=1))
    tooltip = [alt.Tooltip("seq:Q"), alt.Tooltip("tick:Q"), alt.Tooltip("actor:N"),
               alt.Tooltip("kind:N"), alt.Tooltip("outcome:N"), alt.Tooltip("count:Q"),
               alt.Tooltip("summary:N")]
    base = alt.Chart(frame)
    points = base.mark_circle(opacity=0.75).encode(
        x=x, y=y, yOffset=alt.YOffset("kind:N"),
        # No red among the kinds' colours: red means refused or failed here.
        color=alt.Color("kind:N", scale=alt.Scale(scheme="set2"),
                        legend=alt.Legend(title="kind", orient="bottom", columns=4)),
        size=alt.Size("count:Q", legend=None, scale=alt.Scale(range=[40, 400])),
        tooltip=tooltip)
    marks = base.transform_filter(
        alt.FieldOneOfPredicate(field="outcome", oneOf=list(_HIGHLIGHT))
    ).mark_point(shape="cross", filled=True, color="#d62728", size=220).encode(
        x=x, y=y, yOffset=alt.YOffset("kind:N"),
        opacity=alt.Opacity("outcome:N", legend=alt.Legend(title="highlighted"),
                            scale=alt.Scale(domain=list(_HIGHLIGHT), range=[1.0, 1.0])),
        tooltip=tooltip)
    chart = alt.layer(points, marks).properties(
        width=width, height=max(60, 36 * len(actors)), title=title)
    return Timeline(chart, frame, title)
