"""ToolCaller and timeline in a real JupyterLab, driven through headless Chromium.

The notebook (Run All) shows a ToolCaller over a scenario whose own MCP server (a real
subprocess, tests/tools/servers/schema_server.py) offers ``plan_trip``, a tool with a
nested-object schema, and then a run's timeline. The browser fills the generated form
(a text field, an enum, a nested object with a nullable field, an array of objects), ticks
*Approve this call* (the server is untrusted), presses Call, and the structured result
the server sent back must be on the page. Then the timeline must be drawn by JupyterLab's
own Vega-Lite renderer, with the town-square's two refused calls as red crosses, both as a
cell's output and inside the runner widget. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.widgets.lab_helpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    open_notebook,
    running_lab,
    write_notebook,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(150)]

CELLS = [
    "from workbench.widgets import Session, ToolCaller\n"
    "session = Session.from_config('config')\n"
    "caller = ToolCaller(session, source='trip-desk', agent='planner')\n"
    "caller",
    "from workbench import Conductor\n"
    "from workbench.timeline import timeline\n"
    "timeline(Conductor.from_config('config', 'town-square').run())",
    "from workbench.widgets import ScenarioRunner\n"
    "runner = ScenarioRunner(session, 'town-square')\n"
    "runner.run()\n"
    "runner",
]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, repo_root: Path) -> Iterator[dict]:
    """JupyterLab on a copy of config/ plus a scenario with the schema server."""
    base = tmp_path_factory.mktemp("lab-caller")
    root = base / "root"
    root.mkdir()
    config = root / "config"
    shutil.copytree(repo_root / "config", config)
    server = repo_root / "tests/tools/servers/schema_server.py"
    (config / "scenarios" / "trip-desk.yaml").write_text(
        "name: trip-desk\ncast: [planner]\nservers:\n  - name: schema\n"
        f"    command: \"{sys.executable} {server}\"\n")
    (config / "agents" / "planner.yaml").write_text(
        "name: planner\nrole: worker\npersona: Plans trips.\nmay_emit: [trip.planned]\n"
        "schedule: {tick_every: 1}\ntools: [plan_trip]\n")
    write_notebook(root / "caller.ipynb", CELLS)
    with running_lab(base, root, repo_root) as lab:
        yield lab


def test_tool_caller_fills_a_nested_form_and_calls_over_mcp_and_timeline_renders(
        lab: dict, repo_root: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    artifacts = repo_root / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                     args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        try:
            open_notebook(page, lab, "caller.ipynb")
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator("li[data-command='runmenu:run-all']").click()

            title = page.locator(".wb-field-trip-title input")
            failed = page.locator(".jp-OutputArea-output"
                                  "[data-mime-type='application/vnd.jupyter.stderr']")
            title.or_(failed).first.wait_for(timeout=60_000)
            if not title.is_visible():
                pytest.fail(f"the notebook cell failed:\n{failed.first.inner_text()}")
            expect(page.locator(".wb-grants")).to_contain_text("plan_trip")

            # Fill the nested form the way a person would.
            title.fill("north")
            page.locator(".wb-field-trip-mode select").select_option(label="sea")
            page.locator(".wb-field-trip-lead-name input").fill("Ada")
            page.locator(".wb-field-trip-lead-age-null input").check()
            page.locator(".wb-field-trip-stops").click()  # the list's add button
            city = page.locator(".wb-field-trip-stops-0-city input")
            city.wait_for(timeout=15_000)
            city.fill("Bodø")
            page.locator(".wb-field-trip-stops-0-nights input").fill("2")
            page.locator(".widget-checkbox", has_text="Approve this call") \
                .locator("input").check()
            page.locator(".widget-button", has_text="Call").click()

            status = page.locator(".wb-call-status")
            expect(status).to_contain_text("OK", timeout=60_000)
            expect(status).to_contain_text("planner → plan_trip over stdio:schema")
            structured = page.locator(".wb-call-structured")
            expect(structured).to_contain_text("north: Ada by sea, 1 stops, 2 nights")
            expect(structured).to_contain_text('"city": "Bodø"')
            row = page.locator("table.wb-call-ledger tbody tr").first
            expect(row).to_contain_text("tool.called")
            status.scroll_into_view_if_needed()
            page.locator(".wb-field-trip-title").scroll_into_view_if_needed()
            page.screenshot(path=str(artifacts / "tool-caller-nested-mcp.png"))

            # The timeline: drawn by JupyterLab's Vega-Lite renderer, as SVG.
            # The first chart is the cell's output; the runner's comes after it.
            chart = page.locator(".vega-embed svg").first
            chart.scroll_into_view_if_needed()
            expect(chart).to_be_visible(timeout=30_000)
            expect(chart.locator("text", has_text="town-square:3: 21 events over 6 ticks")
                   ).to_have_count(1)
            # Marks, not legend symbols: one point per event, and a red cross on each of
            # the herald's two refused oracle calls.
            marks = chart.locator("g.mark-symbol.role-mark path")
            assert marks.count() == 21 + 2
            crosses = chart.locator("g.mark-symbol.role-mark path[fill='#d62728']")
            assert crosses.count() == 2
            chart.screenshot(path=str(artifacts / "timeline.png"))

            # The runner shows the same chart inside its own Output widget.
            in_runner = page.locator(".jupyter-widgets .vega-embed svg").first
            in_runner.scroll_into_view_if_needed()
            expect(in_runner).to_be_visible(timeout=30_000)
            expect(in_runner.locator("text", has_text="2 denied")).to_have_count(1)
            page.screenshot(path=str(artifacts / "runner-timeline.png"))
        except Exception:
            page.screenshot(path=str(artifacts / "tool-caller-failure.png"))
            raise
        finally:
            browser.close()
