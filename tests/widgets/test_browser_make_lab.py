"""``make lab`` as a newcomer meets it: the URL it prints opens a page with nothing over it.

The target runs with its install steps taken as done (``make -o``: the stamps stay old, so
nothing is reinstalled under a test) and with every Jupyter directory but the venv's own
isolated, as a fresh user's would be. The page must open at the printed URL, and
JupyterLab's "official Jupyter news" question, which would otherwise cover the bottom right
of every page until answered, must not appear. Screenshot: test-artifacts/make-lab.png.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.widgets.lab_helpers import _ISOLATED, CHROMIUM, CHROMIUM_ARGS

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

NEWS_QUESTION = "official Jupyter news"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_make_lab_serves_the_printed_url_without_the_news_toast(
        tmp_path: Path, repo_root: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make chromium` once on this machine")
    artifacts = repo_root / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MCP_", "JUPYTER", "XDG_", "MAKE", "MFLAGS"))}
    for var, sub in _ISOLATED:
        (tmp_path / sub).mkdir(mode=0o700)
        env[var] = str(tmp_path / sub)
    port = _free_port()
    env["LAB_PORT"] = str(port)
    env["LAB_TOKEN"] = "t" * 32
    log = (tmp_path / "make-lab.log").open("w")
    proc = subprocess.Popen(
        ["make", "-o", ".venv/.installed", "-o", "external/node_modules/.installed", "lab"],
        cwd=repo_root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        url = None
        while url is None:
            text = (tmp_path / "make-lab.log").read_text()
            found = re.search(r"open (http://127\.0\.0\.1:\d+/lab\?token=\w+)", text)
            if found and "Jupyter Server" in text and "is running at" in text:
                url = found.group(1)
            elif proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"make lab did not serve within 60 s; output:\n{text[-3000:]}")
            else:
                time.sleep(0.2)
        assert f":{port}/" in url
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                         args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            try:
                page.goto(url)
                expect(page.locator(".jp-LauncherCard").first).to_be_visible(timeout=60_000)
                # The question is asked once the app is restored; give it time to come.
                page.wait_for_timeout(3000)
                page.screenshot(path=str(artifacts / "make-lab.png"))
                toasts = page.locator(".Toastify__toast")
                asked = [t for t in toasts.all_inner_texts() if NEWS_QUESTION in t]
                assert not asked, f"the news question is on the page: {asked}"
            finally:
                browser.close()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
