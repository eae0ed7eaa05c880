"""Fixtures for the widget tests: a workbench over a private copy of config/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest


@pytest.fixture
def workbench(config_dir: Path):
    from workbench.widgets import Workbench

    wb = Workbench.from_config(config_dir, scenario="oracle-grove")
    yield wb
    wb.close()


def output_html(output) -> str:
    """Every text/html an Output widget holds, joined."""
    return "".join(o.get("data", {}).get("text/html", "") for o in output.outputs)


def widget_states(widget) -> list[dict]:
    """The synced state of ``widget`` and every widget below it (what the browser holds)."""
    states = [widget.get_state()]
    for child in getattr(widget, "children", ()):
        states.extend(widget_states(child))
    return states


def state_size(widget) -> int:
    return len(json.dumps(widget_states(widget), default=str))


def cells(html: str) -> list[str]:
    """The text of every body cell of the tables in ``html``, in order."""
    return re.findall(r"<td[^>]*>(.*?)</td>", html)
