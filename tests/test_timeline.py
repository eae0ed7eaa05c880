"""timeline(result): a run as a Vega-Lite chart JupyterLab draws natively, stable as JSON."""

from __future__ import annotations

import json

import pytest

from workbench.engine.conductor import Conductor
from workbench.engine.ledger import Ledger
from workbench.timeline import TIMELINE_COLUMNS, VEGALITE_MIME, timeline, timeline_frame


@pytest.fixture(scope="module")
def town_square(repo_root):
    return Conductor.from_config(repo_root / "config", "town-square").run()


def test_rows_are_events_with_denials_and_failures_marked(town_square):
    frame = timeline_frame(town_square)
    assert list(frame.columns) == TIMELINE_COLUMNS
    assert len(frame) == len(town_square.ledger)
    denied = frame[frame["outcome"] == "denied"]
    assert set(denied["kind"]) == {"tool.denied"} and len(denied) == len(
        town_square.violations)
    assert set(denied["actor"]) == {"herald"}


def test_failures_are_marked_too():
    ledger = Ledger("t:0")
    ledger.append(1, "tool.called", "a", {"tool": "x", "params": {},
                                          "error": {"kind": "timeout", "message": "slow"}})
    ledger.append(1, "agent.failed", "a", {"error": "E", "message": "boom"})
    ledger.append(2, "tool.called", "a", {"tool": "x", "params": {}, "result": {"ok": 1}})
    assert list(timeline_frame(ledger)["outcome"]) == ["failed", "failed", "ok"]


def test_the_chart_is_vegalite_json_with_tooltips_and_a_highlight_layer(town_square):
    chart = timeline(town_square)
    bundle = chart._repr_mimebundle_()
    assert set(bundle) == {VEGALITE_MIME, "text/plain"}
    spec = bundle[VEGALITE_MIME]
    assert spec["$schema"].endswith("/v5.json")
    points, marks = spec["layer"]
    assert points["encoding"]["x"]["field"] == "tick"
    assert points["encoding"]["y"]["field"] == "actor"
    assert points["encoding"]["color"]["field"] == "kind"
    assert {t["field"] for t in points["encoding"]["tooltip"]} >= {"summary", "kind", "seq"}
    assert marks["mark"]["color"] == "#d62728"
    assert marks["transform"][0]["filter"]["oneOf"] == ["denied", "failed"]
    rows = next(iter(spec["datasets"].values()))
    assert len(rows) == len(town_square.ledger)
    assert "2 denied" in chart.title and "town-square:3" in repr(chart)


def test_same_run_same_output(repo_root, town_square):
    again = Conductor.from_config(repo_root / "config", "town-square").run()
    first = json.dumps(timeline(town_square).to_dict(), sort_keys=True)
    assert json.dumps(timeline(again).to_dict(), sort_keys=True) == first


def test_a_long_run_is_binned_and_keeps_every_denial(repo_root):
    ledger = Ledger("long:0")
    for tick in range(1, 3001):
        ledger.append(tick, "world.observed", "world", {"text": f"scene {tick}"})
        ledger.append(tick, "oracle.spoke", "teller", {"text": "omen"})
        if tick % 500 == 0:
            ledger.append(tick, "tool.denied", "teller", {"tool": "x", "params": {},
                                                          "reason": "not granted"})
    frame = timeline_frame(ledger, max_points=300)
    assert len(frame) <= 300 + 10
    assert int(frame["count"].sum()) == len(ledger)
    assert int(frame.loc[frame["outcome"] == "denied", "count"].sum()) == 6
    chart = timeline(ledger, max_points=300)
    assert len(json.dumps(chart.to_dict())) < 120_000
    assert "6 denied" in chart.title


def test_hand_calls_plot_too(registry):
    from workbench.engine.hand_calls import HandCalls

    class Grants:
        tools = ["oracle"]

    hand = HandCalls()
    hand.call(registry, "me", Grants(), "oracle", {"seed": "a"})
    hand.call(registry, "me", Grants(), "nope", {})
    frame = timeline(hand).frame
    assert list(frame["outcome"]) == ["ok", "denied"]
    assert list(frame["tick"]) == [1, 2]
