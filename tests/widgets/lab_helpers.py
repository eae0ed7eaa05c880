"""Open a notebook in a test's JupyterLab so that what the browser does lands on it.

A JupyterLab server shared by several tests keeps state between them: the kernels and
sessions of notebooks opened before, and the workspace, which restores their tabs on the
next page load. Restored tabs broke the tutorial test on a loaded machine: the page
restored the previous test's ``workbench.ipynb``, whose status bar already read
``| Idle``, so the wait ended before the tutorial's tab existed and *Clear All* and
*Run All* went to the restored notebook (or to one whose kernel was still being chosen).

``open_notebook`` therefore shuts the other sessions down, opens the notebook in a fresh
workspace (nothing restored), accepts a kernel dialog if Lab shows one, and returns only
once the current tab is this notebook and its own kernel (asked of the server) is idle.
"""

from __future__ import annotations

import json
import secrets
import time
import urllib.error
import urllib.request
from pathlib import PurePosixPath

__all__ = ["open_notebook", "sessions", "shut_down_sessions"]


def _api(lab: dict, path: str, method: str = "GET") -> object:
    request = urllib.request.Request(f"{lab['url']}/api/{path}?token={lab['token']}",
                                     method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    return json.loads(body) if body else None


def _log_tail(lab: dict) -> str:
    log = lab.get("log")
    return f"\nJupyterLab log (tail):\n{log.read_text()[-3000:]}" if log else ""


def sessions(lab: dict) -> list[dict]:
    """The server's sessions (one per open notebook with a kernel)."""
    return _api(lab, "sessions")


def shut_down_sessions(lab: dict, keep: str | None = None, timeout: float = 60) -> None:
    """Delete every session (and so its kernel) but ``keep``'s, and wait until gone."""
    deadline = time.monotonic() + timeout
    while True:
        others = [s for s in sessions(lab) if s["path"] != keep]
        if not others:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"sessions still open after {timeout:.0f} s: "
                                 f"{[s['path'] for s in others]}{_log_tail(lab)}")
        for session in others:
            try:
                _api(lab, f"sessions/{session['id']}", method="DELETE")
            except urllib.error.HTTPError as exc:
                if exc.code != 404:  # already gone is what we want
                    raise
        time.sleep(0.2)


def _kernel_state(lab: dict, path: str) -> str | None:
    for session in sessions(lab):
        if session["path"] == path and session.get("kernel"):
            return session["kernel"]["execution_state"]
    return None


def open_notebook(page, lab: dict, path: str, timeout: float = 120) -> None:
    """Open ``path`` (relative to the server root) as the only tab, with its kernel idle.

    Args:
        page: A Playwright page.
        lab: The ``lab`` fixture's dict (``url``, ``token``, optionally ``log``).
        path: The notebook's path under the server's root, with ``/`` separators.
        timeout: Seconds to wait for the tab and its idle kernel (the machine is loaded).
    """
    shut_down_sessions(lab)
    # A new workspace name per page: Lab restores nothing, so this notebook is the only tab
    # and the Run and Edit menus act on it. ``reset`` also drops any saved layout.
    workspace = f"test-{secrets.token_hex(4)}"
    page.goto(f"{lab['url']}/lab/workspaces/{workspace}/tree/{path}"
              f"?reset&token={lab['token']}")
    name = PurePosixPath(path).name
    tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current")
    status = page.locator(".jp-StatusBar-Widget")
    dialog_accept = page.locator(".jp-Dialog .jp-mod-accept")
    deadline = time.monotonic() + timeout
    seen = "nothing yet"
    while True:
        # A "Select Kernel" dialog (Lab could not pick one itself): take its default.
        if dialog_accept.count() and dialog_accept.first.is_visible():
            dialog_accept.first.click()
        texts = status.all_inner_texts()
        bar = " ".join(texts)
        current = tab.first.inner_text() if tab.count() else ""
        state = _kernel_state(lab, path)
        seen = f"tab {current!r}, status bar {bar!r}, kernel {state!r}"
        # The status bar speaks of the current tab, which must be this notebook; the server
        # says whether this notebook's own kernel is idle.
        if current.strip() == name and name in bar and "| Idle" in bar and state == "idle":
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} did not open with an idle kernel within "
                                 f"{timeout:.0f} s; last seen: {seen}{_log_tail(lab)}")
        page.wait_for_timeout(250)  # poll interval, not a wait for anything in particular
