"""Open a notebook in a test's JupyterLab so that what the browser does lands on it.

A JupyterLab server shared by several tests keeps state between them: the kernels and
sessions of notebooks opened before, and the workspace, which restores their tabs on the
next page load. Restored tabs broke the tutorial test on a loaded machine: the page
restored the previous test's ``workbench.ipynb``, whose status bar already read
``| Idle``, so the wait ended before the tutorial's tab existed and *Clear All* and
*Run All* went to the restored notebook (or to one whose kernel was still being chosen).

``running_lab`` starts the server every browser test uses (isolated config, data and
runtime dirs, a token, a loopback port) and stops it with everything it started.
``open_notebook`` shuts the other sessions down, opens the notebook in a fresh
workspace (nothing restored), accepts a kernel dialog if Lab shows one, and returns only
once the current tab is this notebook and its own kernel (asked of the server) is idle.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "open_notebook", "running_lab", "sessions",
           "shut_down_sessions", "write_notebook"]

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
]
_ISOLATED = [("JUPYTER_CONFIG_DIR", "jconfig"), ("JUPYTER_DATA_DIR", "jdata"),
             ("JUPYTER_RUNTIME_DIR", "jruntime"), ("JUPYTERLAB_SETTINGS_DIR", "settings"),
             ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"), ("XDG_CONFIG_HOME", "xconfig"),
             ("XDG_DATA_HOME", "xdata"), ("XDG_CACHE_HOME", "xcache"),
             ("XDG_RUNTIME_DIR", "xruntime"), ("IPYTHONDIR", "ipython")]


def write_notebook(path: Path, sources: list[str]) -> None:
    """A notebook of unexecuted code cells (plain JSON: nbformat's import costs seconds)."""
    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {},
              "outputs": [], "source": source} for i, source in enumerate(sources)]
    kernelspec = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                  "language": "python"}
    path.write_text(json.dumps({"cells": cells, "metadata": {"kernelspec": kernelspec},
                                "nbformat": 4, "nbformat_minor": 5}, indent=1))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _quiet_lab_settings(settings_dir: Path) -> None:
    """Turn off the news prompt, which would cover part of the screenshot."""
    target = settings_dir / "@jupyterlab" / "apputils-extension"
    target.mkdir(parents=True)
    (target / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')


@contextlib.contextmanager
def running_lab(base: Path, root: Path, repo_root: Path, startup: float = 60
                ) -> Iterator[dict]:
    """JupyterLab serving ``root``, with its state under ``base``; yields url, token, root, log.

    Not skipped when something is missing: the failure says what to install (``make test``
    installs Chromium). No browser is downloaded; Playwright drives /usr/bin/chromium.
    """
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make chromium` "
                    f"(apt-get install -y chromium) once on this machine")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MCP_", "JUPYTER", "XDG_"))}
    env["PYTHONPATH"] = str(repo_root)
    for var, sub in _ISOLATED:
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
        deadline = time.monotonic() + startup
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
        # The server, its kernels and their MCP servers share the session we made for it.
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


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
