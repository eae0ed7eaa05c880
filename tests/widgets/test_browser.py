"""The Workbench in a real JupyterLab, driven through Debian's headless Chromium.

End to end, in a JupyterLab server (isolated config, data and runtime dirs, a token, a
loopback port):

* a notebook that displays ``Workbench.from_config``: the browser unticks fortune-teller's
  ``oracle`` grant, opens the Run tab, presses Run, and the violation row must be
  rendered in the page;
* tutorial 06 after *Run All*: its last output is the live workbench, and pressing Run in
  it fills the calls table (with the omens) and the changes since the previous run.

Screenshots go to test-artifacts/.

Not skipped when something is missing: the failure says what to install (``make test``
installs Chromium). No browser is downloaded; Playwright drives /usr/bin/chromium.
"""

from __future__ import annotations

import re
import shutil
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

NOTEBOOK_SOURCE = (
    "from workbench.widgets import Workbench\n"
    "wb = Workbench.from_config('config', scenario='oracle-grove')\n"
    "wb"
)

TUTORIAL = "06-designing-a-scenario.ipynb"

pytestmark = [pytest.mark.browser, pytest.mark.timeout(90)]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, repo_root: Path) -> Iterator[dict]:
    """A JupyterLab server on a private copy of config/ and a one-cell notebook."""
    base = tmp_path_factory.mktemp("lab")
    root = base / "root"
    root.mkdir()
    shutil.copytree(repo_root / "config", root / "config")
    write_notebook(root / "workbench.ipynb", [NOTEBOOK_SOURCE])
    (root / "notebooks").mkdir()
    shutil.copy(repo_root / "notebooks" / TUTORIAL, root / "notebooks" / TUTORIAL)
    with running_lab(base, root, repo_root) as lab:
        yield lab


def test_grant_change_then_run_renders_the_violation(lab: dict, repo_root: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    artifacts = repo_root / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                     args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            open_notebook(page, lab, "workbench.ipynb")
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator("li[data-command='runmenu:run-all']").click()

            grant = page.locator(".widget-checkbox", has_text="oracle").locator("input")
            # A traceback in the cell would otherwise be a 30 s wait for a checkbox.
            failed = page.locator(".jp-OutputArea-output"
                                  "[data-mime-type='application/vnd.jupyter.stderr']")
            grant.or_(failed).first.wait_for(timeout=30_000)
            if not grant.is_visible():
                pytest.fail(f"the notebook cell failed:\n{failed.first.inner_text()}")
            expect(grant).to_be_checked()
            assert page.locator(".jupyter-widgets").count() > 0

            # A problem shown beside a field does not squeeze the field.
            may_emit = page.locator(".widget-text", has_text="May emit").locator("input")
            width = may_emit.bounding_box()["width"]
            may_emit.fill("Oracle.Spoke")
            problem = page.locator(".wb-problem")
            expect(problem).to_contain_text("is not a valid event kind")
            assert may_emit.bounding_box()["width"] == width
            page.screenshot(path=str(artifacts / "workbench-manifest-problem.png"))
            may_emit.fill("oracle.spoke")
            expect(problem).to_have_count(0)

            grant.uncheck()

            page.locator(".widget-tab .lm-TabBar-tab", has_text="Run").click()
            page.locator(".widget-button", has_text="Run").click()

            violations = page.locator("table.wb-violations")
            expect(violations).to_be_visible(timeout=30_000)
            row = violations.locator("tbody tr").first
            expect(row).to_contain_text("fortune-teller")
            expect(row).to_contain_text("oracle")
            expect(row).to_contain_text("not granted")
            assert violations.locator("tbody tr").count() == 10  # one per tick
            expect(page.locator(".widget-html", has_text="Violations (10)")).to_be_visible()

            violations.scroll_into_view_if_needed()
            page.locator(".widget-html", has_text="oracle-grove:7 over in-process") \
                .scroll_into_view_if_needed()
            page.screenshot(path=str(artifacts / "workbench-violations.png"))
        except Exception:
            page.screenshot(path=str(artifacts / "workbench-failure.png"))
            raise
        finally:
            browser.close()


@pytest.mark.timeout(240)
def test_tutorial_06_ends_on_a_live_workbench_after_run_all(lab: dict, repo_root: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    artifacts = repo_root / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                     args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            # The previous test's notebook, kernel and tabs must not be what Run All reaches.
            open_notebook(page, lab, f"notebooks/{TUTORIAL}")
            # Clear the stored outputs first, so what is checked is what Run All made.
            page.locator(".lm-MenuBar-itemLabel", has_text="Edit").first.click()
            page.locator("li[data-command='editmenu:clear-all']").click()
            expect(page.locator(".jp-Notebook .jp-OutputArea-output")).to_have_count(0)
            # The last code cell (a "Where to go next" note follows it).
            last = page.locator(".jp-Notebook .jp-CodeCell").last
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator("li[data-command='runmenu:run-all']").click()

            tabs = last.locator(".widget-tab")
            failed = page.locator(".jp-OutputArea-output"
                                  "[data-mime-type='application/vnd.jupyter.stderr']")
            # Attached, not visible: a cell scrolled out of view counts as hidden (Lab sets
            # content-visibility on off-screen cells); it is scrolled to just below.
            tabs.or_(failed).first.wait_for(state="attached", timeout=150_000)
            if not tabs.count():
                pytest.fail(f"a cell of {TUTORIAL} failed:\n{failed.first.inner_text()}")
            tabs.first.scroll_into_view_if_needed()
            expect(tabs).to_be_visible()
            # The last output is the workbench, live, on its Run tab.
            expect(last.locator(".lm-TabBar-tab.lm-mod-current")).to_have_text("Run")
            # The button's text is its icon's glyph and "Run" ("Approve and run again" is
            # another button).
            run = last.locator("button.widget-button").filter(has_text=re.compile(r"^\W*Run$"))
            expect(run).to_be_visible()
            expect(run).to_be_enabled()
            run.click()

            calls = last.locator("table.wb-calls")
            expect(calls).to_be_visible(timeout=30_000)
            assert calls.locator("tbody tr").count() == 4  # one oracle call per tick
            expect(calls.locator("tbody tr").first).to_contain_text("omen: ")
            expect(last.locator(".widget-html", has_text="harbour-watch:5 over in-process")) \
                .to_be_visible()
            # The run before (the grant taken away) differs: its changes are listed.
            changes = last.locator("table.wb-changes")
            expect(changes).to_be_visible()
            expect(changes).to_contain_text("removed")

            last.scroll_into_view_if_needed()
            last.locator(".widget-html", has_text="harbour-watch:5 over in-process") \
                .scroll_into_view_if_needed()
            page.screenshot(path=str(artifacts / "tutorial-06-last-widget.png"))
        except Exception:
            page.screenshot(path=str(artifacts / "tutorial-06-failure.png"))
            raise
        finally:
            browser.close()
