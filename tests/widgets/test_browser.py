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

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.widgets.lab_helpers import open_notebook

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
]
NOTEBOOK_SOURCE = (
    "from workbench.widgets import Workbench\n"
    "wb = Workbench.from_config('config', scenario='oracle-grove')\n"
    "wb"
)

TUTORIAL = "06-designing-a-scenario.ipynb"

pytestmark = [pytest.mark.browser, pytest.mark.timeout(90)]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write_notebook(path: Path) -> None:
    # Plain JSON: importing nbformat costs seconds (its jsonschema grammar), this costs none.
    cell = {"cell_type": "code", "execution_count": None, "id": "workbench", "metadata": {},
            "outputs": [], "source": NOTEBOOK_SOURCE}
    kernelspec = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                  "language": "python"}
    path.write_text(json.dumps({"cells": [cell], "metadata": {"kernelspec": kernelspec},
                                "nbformat": 4, "nbformat_minor": 5}, indent=1))


def _quiet_lab_settings(settings_dir: Path) -> None:
    """Turn off the news prompt, which would cover part of the screenshot."""
    target = settings_dir / "@jupyterlab" / "apputils-extension"
    target.mkdir(parents=True)
    (target / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, repo_root: Path) -> Iterator[dict]:
    """A JupyterLab server on a private copy of config/ and a one-cell notebook."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make chromium` "
                    f"(apt-get install -y chromium) once on this machine")
    base = tmp_path_factory.mktemp("lab")
    root = base / "root"
    root.mkdir()
    shutil.copytree(repo_root / "config", root / "config")
    _write_notebook(root / "workbench.ipynb")
    (root / "notebooks").mkdir()
    shutil.copy(repo_root / "notebooks" / TUTORIAL, root / "notebooks" / TUTORIAL)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MCP_", "JUPYTER", "XDG_"))}
    for var, sub in [("JUPYTER_CONFIG_DIR", "jconfig"), ("JUPYTER_DATA_DIR", "jdata"),
                     ("JUPYTER_RUNTIME_DIR", "jruntime"), ("JUPYTERLAB_SETTINGS_DIR", "settings"),
                     ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"), ("XDG_CONFIG_HOME", "xconfig"),
                     ("XDG_DATA_HOME", "xdata"), ("XDG_CACHE_HOME", "xcache"),
                     ("XDG_RUNTIME_DIR", "xruntime"), ("IPYTHONDIR", "ipython")]:
        (base / sub).mkdir(mode=0o700)
        env[var] = str(base / sub)
    _quiet_lab_settings(base / "settings")
    port, token = _free_port(), secrets.token_hex(16)
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
           f"--port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--LabApp.news_url=None"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = (base / "lab.log").open("w")
    proc = subprocess.Popen(cmd, env=env, cwd=root, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start; log:\n"
                                f"{(base / 'lab.log').read_text()[-3000:]}")
                time.sleep(0.2)
        yield {"url": url, "token": token, "root": root, "log": base / "lab.log"}
    finally:
        # The server and the kernel it started share the session we created for it.
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


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
