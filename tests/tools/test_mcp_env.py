"""The env gate (workbench/tools/mcp/env.py): the built-in server is trusted whichever gate
starts it, a missing SDK is reported at once, and a trusted idempotent call is retried."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from mcp_helpers import HOSTILE, REPO, logged_requests

from workbench.engine.calls_log import read_calls_log
from workbench.engine.conductor import Conductor
from workbench.errors import ToolCallError
from workbench.tools.builtins import register_builtins
from workbench.tools.mcp import MCPConnection, MCPResolver
from workbench.tools.mcp.env import is_builtin_server
from workbench.tools.mcp.wire import HINT_DEFAULTS, hints
from workbench.tools.registry import ToolRegistry

#: Starts processes (servers, workers, CLIs): not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

# Runs the CLI with every `mcp` import failing, as if the extra were not installed.
NO_MCP = textwrap.dedent("""
    import importlib.abc, runpy, sys

    class NoMCP(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "mcp" or name.startswith("mcp."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoMCP())
    sys.argv = ["workbench", *sys.argv[1:]]
    runpy.run_module("workbench.cli", run_name="__main__", alter_sys=True)
""")


class TestWithoutTheSDK:
    @pytest.mark.parametrize("args, env", [
        (["run", "oracle-grove", "--ticks", "1"], {"MCP_ORACLE": "1"}),
        (["run", "oracle-grove", "--ticks", "1"],
         {"MCP_SERVERS": "python -m workbench.tools.mcp.server"}),
        (["serve"], {}),
    ], ids=["MCP_ORACLE", "MCP_SERVERS", "serve"])
    def test_fails_at_once_with_the_install_hint(self, args, env, tmp_path):
        clean = {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-c", NO_MCP, *args], capture_output=True,
                              text=True, cwd=REPO, timeout=30,  # the old wait was 65 s
                              env={**clean, **env, "PYTHONPATH": str(REPO)})
        took = time.monotonic() - started
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert lines[0].startswith("error: mcp")
        assert "pip install 'tool-contract-workbench[mcp]'" in lines[0]
        print(f"no-mcp {args[0]} with {sorted(env)} failed in {took:.2f} s")


class TestTrust:
    def test_only_this_interpreter_running_our_server_counts_as_ours(self):
        assert is_builtin_server(MCPConnection("python -m workbench.tools.mcp.server"))
        assert not is_builtin_server(MCPConnection("python -m mcp_server_time"))
        assert not is_builtin_server(MCPConnection("/usr/bin/env python3 -m "
                                                   "workbench.tools.mcp.server"))
        assert not is_builtin_server(MCPConnection("http://127.0.0.1:1/mcp"))

    def test_mcp_servers_naming_the_built_in_server_gives_the_in_process_ledger(
            self, repo_root, monkeypatch, tmp_path):
        monkeypatch.setenv("MCP_SERVERS", "python -m workbench.tools.mcp.server")
        monkeypatch.delenv("MCP_ORACLE", raising=False)
        over_mcp = Conductor.from_config(repo_root / "config", "oracle-grove",
                                         ledger_path=tmp_path / "run.jsonl").run(ticks=6)
        in_process = Conductor.from_config(repo_root / "config", "oracle-grove",
                                           registry=register_builtins(ToolRegistry())).run(6)
        assert over_mcp.violations == []  # no "not approved": our own server is trusted
        assert over_mcp.final_hash == in_process.final_hash
        # The calls log names the server that served each call.
        served = {r["transport"] for r in read_calls_log(tmp_path / "run.calls.jsonl").values()}
        assert served == {"stdio:workbench.tools.mcp.server"}


def _venv_sibling() -> Path | None:
    """Another name for this interpreter in its own bin directory (python3 beside python)."""
    exe = Path(sys.executable)
    for name in ("python3", "python", f"python{sys.version_info[0]}.{sys.version_info[1]}"):
        sibling = exe.with_name(name)
        if sibling != exe and sibling.exists() and \
                os.path.realpath(sibling) == os.path.realpath(exe):
            return sibling
    return None


def _prefix_of(python: str | Path, cwd: Path | None = None) -> str:
    """What ``python`` really runs as: its ``sys.prefix`` (the venv, or the base install)."""
    done = subprocess.run([str(python), "-c", "import sys; print(sys.prefix)"],
                          capture_output=True, text=True, timeout=30, cwd=cwd, check=True)
    return done.stdout.strip()


def _evil_python(directory: Path, name: str, mark: Path) -> Path:
    """A script named like an interpreter that is not ours: it only leaves ``mark``."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / name
    script.write_text(f"#!/bin/sh\necho ran > {shlex.quote(str(mark))}\n")
    script.chmod(0o755)
    return script


BUILTIN = "-m workbench.tools.mcp.server"


class TestTrustByInterpreter:
    """Item 13: trust follows the executable a command resolves to, never its text."""

    def test_the_venvs_python_by_full_path_is_ours(self):
        sibling = _venv_sibling()
        if sibling is None:
            pytest.skip("this interpreter has no second name in its bin directory")
        assert is_builtin_server(MCPConnection(f"{sibling} {BUILTIN}"))
        assert is_builtin_server(MCPConnection(f"{sys.executable} {BUILTIN}"))
        assert is_builtin_server(MCPConnection([str(sibling), "-m",
                                                "workbench.tools.mcp.server"]))

    def test_bare_python_and_python3_are_ours(self):
        assert is_builtin_server(MCPConnection(f"python {BUILTIN}"))
        assert is_builtin_server(MCPConnection(f"python3 {BUILTIN}"))

    def test_a_relative_path_resolves_against_the_servers_working_directory(self):
        exe = Path(sys.executable)
        relative = os.path.relpath(exe, exe.parents[2])
        assert is_builtin_server(MCPConnection(f"{relative} {BUILTIN}", cwd=exe.parents[2]))
        # The same text from elsewhere names nothing (or something else): not ours.
        assert not is_builtin_server(MCPConnection(f"{relative} {BUILTIN}", cwd="/"))

    def test_a_name_found_on_the_servers_path_counts_when_it_is_this_interpreter(self):
        exe = Path(sys.executable)
        name = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        if not (exe.parent / name).exists():
            pytest.skip(f"no {name} beside {exe}")
        conn = MCPConnection(f"{name} {BUILTIN}", env={"PATH": str(exe.parent)})
        assert is_builtin_server(conn)

    def test_a_script_named_python_on_path_is_not_ours(self, tmp_path):
        mark = tmp_path / "evil-ran"
        fake = tmp_path / "fakebin"
        name = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        for n in ("python", "python3", name):
            _evil_python(fake, n, mark)
        path = {"PATH": f"{fake}{os.pathsep}{os.environ.get('PATH', '')}"}
        # Found on the server's PATH, or named by its path: the script, not this interpreter.
        assert not is_builtin_server(MCPConnection(f"{name} {BUILTIN}", env=path))
        assert not is_builtin_server(MCPConnection(f"{fake / 'python'} {BUILTIN}"))
        assert not is_builtin_server(MCPConnection(f"{fake / 'python3'} {BUILTIN}", env=path))
        # A bare `python` is this interpreter whatever PATH says: trusted, and it really
        # runs our server (the script never ran).
        conn = MCPConnection(f"python {BUILTIN}", env={**path, **_import_path()},
                             log_dir=tmp_path)
        assert is_builtin_server(conn)
        with conn:
            assert "oracle" in conn.tool_names()
        assert not mark.exists()

    def test_a_symlink_outside_the_venv_runs_the_base_interpreter_so_is_not_ours(
            self, tmp_path):
        link = tmp_path / "bin" / "python"
        link.parent.mkdir()
        link.symlink_to(sys.executable)
        assert os.path.realpath(link) == os.path.realpath(sys.executable)
        # Python finds its venv by the pyvenv.cfg beside the path it was started by,
        # not beside its realpath: this link runs without the venv's site-packages.
        in_venv = sys.prefix != sys.base_prefix
        assert (_prefix_of(link) == sys.prefix) == (not in_venv)
        assert is_builtin_server(MCPConnection(f"{link} {BUILTIN}")) == (not in_venv)

    def test_the_base_interpreter_of_the_venv_is_not_ours(self):
        if sys.prefix == sys.base_prefix:
            pytest.skip("not running in a venv")
        base = os.path.realpath(sys.executable)
        assert _prefix_of(base) != sys.prefix  # it runs other site-packages
        assert not is_builtin_server(MCPConnection(f"{base} {BUILTIN}"))

    def test_another_venv_of_the_same_base_interpreter_is_not_ours(self, tmp_path):
        other = tmp_path / "other-venv"
        (other / "bin").mkdir(parents=True)
        base = os.path.realpath(sys.executable)
        (other / "pyvenv.cfg").write_text(f"home = {Path(base).parent}\n"
                                          f"include-system-site-packages = false\n")
        (other / "bin" / "python").symlink_to(base)
        assert _prefix_of(other / "bin" / "python") == str(other)
        assert not is_builtin_server(MCPConnection(f"{other / 'bin' / 'python'} {BUILTIN}"))

    @pytest.mark.parametrize("command", [
        'sh -c "python -m workbench.tools.mcp.server"',
        "/usr/bin/env python3 -m workbench.tools.mcp.server",
        "PYTHONPATH=/tmp/evil python -m workbench.tools.mcp.server",
        "python -c 'import runpy; runpy.run_module(\"workbench.tools.mcp.server\")'",
        "python -c pass -m workbench.tools.mcp.server",
        "python -m workbench.tools.mcp.server_evil",
        "python -m workbench.tools.mcp.server --evil",
        "python -mworkbench.tools.mcp.server",
        "python -I -m workbench.tools.mcp.server",
        "python workbench/tools/mcp/server.py",
        "python -m mcp_server_time",
        "http://127.0.0.1:1/mcp",
        "https://localhost/mcp?cmd=python+-m+workbench.tools.mcp.server",
    ])
    def test_hostile_spellings_are_not_ours(self, command):
        assert not is_builtin_server(MCPConnection(command))

    @pytest.mark.parametrize("variable", ["PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP",
                                          "LD_PRELOAD"])
    def test_an_environment_that_changes_what_code_runs_is_not_ours(self, variable,
                                                                    tmp_path):
        evil = {variable: str(tmp_path / "evil")}
        assert not is_builtin_server(MCPConnection(f"python {BUILTIN}", env=evil))

    @pytest.mark.parametrize("package", ["workbench/__init__.py", "workbench/tools/x.py",
                                         "workbench.py"])
    def test_a_working_directory_that_shadows_our_package_is_not_ours(self, tmp_path,
                                                                      package):
        # `-m` puts the working directory first on sys.path: a `workbench` there (even a
        # bare directory, a namespace package) is what the server would import.
        (tmp_path / package).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / package).write_text("raise SystemExit('not the workbench')\n")
        assert not is_builtin_server(MCPConnection(f"python {BUILTIN}", cwd=tmp_path))
        assert is_builtin_server(MCPConnection(f"python {BUILTIN}", cwd=tmp_path / "w"))

    def test_mcp_servers_naming_the_venvs_python_by_path_gives_the_in_process_ledger(
            self, repo_root, monkeypatch, tmp_path):
        sibling = _venv_sibling()
        if sibling is None:
            pytest.skip("this interpreter has no second name in its bin directory")
        monkeypatch.setenv("MCP_SERVERS", f"{sibling} {BUILTIN}")
        monkeypatch.delenv("MCP_ORACLE", raising=False)
        over_mcp = Conductor.from_config(repo_root / "config", "oracle-grove",
                                         ledger_path=tmp_path / "run.jsonl").run(ticks=6)
        in_process = Conductor.from_config(repo_root / "config", "oracle-grove",
                                           registry=register_builtins(ToolRegistry())).run(6)
        assert over_mcp.violations == []  # was: every call refused "not approved"
        assert over_mcp.final_hash == in_process.final_hash


def _import_path() -> dict[str, str]:
    return {k: os.environ[k] for k in ("PYTHONPATH", "VIRTUAL_ENV") if os.environ.get(k)}


class TestHints:
    def test_the_specs_defaults_fill_what_a_server_leaves_out(self):
        assert HINT_DEFAULTS == {"readOnlyHint": False, "destructiveHint": True,
                                 "idempotentHint": False, "openWorldHint": True}
        assert hints(None) == HINT_DEFAULTS
        assert hints({"readOnlyHint": True, "idempotentHint": "yes"}) == {
            **HINT_DEFAULTS, "readOnlyHint": True}


def _retry_config(config_dir: Path, mark: Path, log: Path, trusted: bool) -> None:
    (config_dir / "agents" / "prober.yaml").write_text(textwrap.dedent("""
        name: prober
        role: worker
        persona: Calls an idempotent tool.
        may_emit: [probe.done]
        schedule: {tick_every: 1}
        model: {backend: scripted}
        tools: [idem]
        script:
          - call: idem
            params: {}
            say: "probed"
    """))
    command = f"{sys.executable} {HOSTILE} --mode dieonce --mark {mark} --log {log}"
    (config_dir / "scenarios" / "retry.yaml").write_text(textwrap.dedent(f"""
        name: retry
        cast: [prober]
        servers:
          - name: hostile
            command: {json.dumps(command)}
            trusted: {str(trusted).lower()}
    """))


class TestRetry:
    def _run(self, config_dir, tmp_path, trusted):
        mark, log = tmp_path / "died-once", tmp_path / "requests.jsonl"
        _retry_config(config_dir, mark, log, trusted)
        from workbench.surface.approval import ApprovalPolicy

        conductor = Conductor.from_config(config_dir, "retry", approver=ApprovalPolicy(
            allow=["idem"]))
        return conductor.run(ticks=1), logged_requests(log)

    def test_a_trusted_idempotent_call_lost_in_transport_is_retried_once_and_recorded(
            self, config_dir, tmp_path):
        result, seen = self._run(config_dir, tmp_path, trusted=True)
        calls = result.ledger.of_kind("tool.called")
        assert [c.payload.get("error", {}).get("kind") for c in calls] == [
            "transport_error", None]
        assert calls[1].payload["retry_of"] == calls[0].seq
        assert calls[1].payload["result"] == {"text": "idem"}
        assert [r["tool"] for r in seen if r["method"] == "tools/call"] == ["idem", "idem"]

    def test_an_untrusted_servers_idempotent_hint_is_not_believed(self, config_dir,
                                                                  tmp_path):
        result, seen = self._run(config_dir, tmp_path, trusted=False)
        calls = result.ledger.of_kind("tool.called")
        assert [c.payload["error"]["kind"] for c in calls] == ["transport_error"]
        assert [r["tool"] for r in seen if r["method"] == "tools/call"] == ["idem"]


class TestServedLabel:
    def test_telemetry_names_the_server_that_served_the_call(self, tmp_path):
        # Two servers offer `probe`; after the call, the first stops offering it (a fresh
        # listing), so the owner now is the second. The label is still the first.
        env = {"HOSTILE_LOG": str(tmp_path / "log.jsonl")}
        first = MCPConnection([sys.executable, str(HOSTILE), "--mode", "churn"], name="one",
                              env=env, log_dir=tmp_path)
        second = MCPConnection([sys.executable, str(HOSTILE), "--mode", "churn"], name="two",
                               env=env, log_dir=tmp_path)
        with MCPResolver([first, second]) as resolver:
            registry = ToolRegistry()
            registry.attach(resolver)
            gen = next(n for n in first.tool_names() if n.startswith("gen"))
            assert gen in second.tool_names()  # both are on their first listing
            assert resolver.connection_for(gen) is first
            with pytest.raises(ToolCallError):  # served (and refused) by `one`
                resolver.call_tool(gen, {})
            first.refresh_tools()  # its gen tool is gone: `two` owns the name now
            assert resolver.connection_for(gen) is second
            assert registry.transport_of(gen) == "stdio:one"
