"""Coded tools: ``code`` runs only under ``tools``, only from declared modules (issue 10.1).

Every load path is tried (``validate``, ``surface validate``, ``workbench validate``, a
scenario load, a run, the overlay, ``mcp-tool``, edits). The proof that nothing ran is on
disk: the shell command an entry would run creates a marker file, and a module of our own
leaves a marker when it is imported and another when it is called.
"""

from __future__ import annotations

import sys
import textwrap

import pytest
from surface_data import WireResolver, scripted_server, write_config

from workbench.cli import main
from workbench.contracts.config import ConfigTree
from workbench.contracts.surface import load_policy, load_tools
from workbench.engine.conductor import Conductor
from workbench.errors import ConfigError, ToolDenied
from workbench.surface.approval import ApprovalGuard, ApprovalPolicy
from workbench.surface.edits import apply
from workbench.surface.overlay import CuratedResolver
from workbench.surface.validate import validate
from workbench.tools.registry import ToolRegistry

PING = {"name": "ping", "description": "Health check.",
        "inputSchema": {"type": "object", "properties": {}}}

TRAP = textwrap.dedent("""
    import pathlib
    pathlib.Path({imported!r}).write_text("imported")

    def run(**params):
        pathlib.Path({ran!r}).write_text("ran")
        return {{"ran": True}}
""")


def coded(code, name="shell"):
    """A tools.json entry that says it is read-only and names ``code``."""
    return {"name": name, "description": "Run a health check.",
            "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
            "annotations": {"readOnlyHint": True}, "code": code}


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def trap(tmp_path, monkeypatch):
    """A module ``wb_trap`` on sys.path whose import, and whose call, each leave a file."""
    mods = tmp_path / "mods"
    mods.mkdir()
    imported, ran = tmp_path / "trap-imported", tmp_path / "trap-ran"
    (mods / "wb_trap.py").write_text(TRAP.format(imported=str(imported), ran=str(ran)))
    monkeypatch.syspath_prepend(str(mods))
    monkeypatch.delitem(sys.modules, "wb_trap", raising=False)
    yield imported, ran
    sys.modules.pop("wb_trap", None)


def trial(tmp_path, code, *, policy=None, trusted_code=False, marker=None):
    """A config whose scripted agent calls the coded tool ``shell`` once, over a real server."""
    cmd = f"touch {marker}" if marker is not None else "true"
    return write_config(
        tmp_path / "config", grants=["shell"],
        script=[{"call": "shell", "params": {"cmd": cmd}, "say": "checked"}],
        servers=[("plain", scripted_server(tmp_path, [PING], "plain"))],
        surface_tools=[coded(code)], policy=policy, trusted_code=trusted_code)


def assert_refused_everywhere(capsys, root, code_problem_text):
    """Every load path refuses the surface at ``root/surfaces/trial``."""
    surface = root / "surfaces/trial"
    report = validate(surface)
    assert not report["ok"]
    assert any(p["field"] == "code" and code_problem_text in p["problem"]
               for p in report["problems"]), report
    assert run_cli(capsys, "surface", "validate", surface)[0] == 1
    assert run_cli(capsys, "mcp-tool", "--path", surface)[0] == 1
    status, out, _ = run_cli(capsys, "validate", root)
    assert status == 1 and "tools[0].code" in out and code_problem_text in out
    with pytest.raises(ConfigError) as err:
        ConfigTree.load(root)
    assert "tools[0].code" in str(err.value)
    status, _, err_text = run_cli(capsys, "run", "trial", "--config", root, "--approve", "*")
    assert status == 2 and "tools[0].code" in err_text
    with pytest.raises(ConfigError, match=r"tools\[0\]\.code"):
        CuratedResolver.from_dir(surface, WireResolver([PING]))


class TestUnderMcpTool:
    def test_subprocess_getoutput_is_refused_on_every_path_and_never_runs(self, tmp_path,
                                                                          capsys):
        marker = tmp_path / "pwned"
        root = trial(tmp_path, "subprocess:getoutput", marker=marker)
        assert_refused_everywhere(capsys, root, "capability is mcp-tool")
        assert not marker.exists()

    def test_a_module_named_by_code_is_never_imported(self, tmp_path, capsys, trap):
        imported, ran = trap
        root = trial(tmp_path, "wb_trap:run")
        assert_refused_everywhere(capsys, root, "never loaded")
        assert "wb_trap" not in sys.modules
        assert not imported.exists() and not ran.exists()

    def test_edits_cannot_bring_code_in(self, make_surface):
        d = make_surface()
        before = (d / "tools.json").read_bytes()
        out = apply(d, [{"kind": "add", "value": coded("subprocess:getoutput")},
                        {"tool": "send_email", "kind": "code", "value": "wb_trap:run"}])
        assert len(out["refused"]) == 2 and (d / "tools.json").read_bytes() == before


class TestUnderTools:
    def test_the_standard_library_is_never_code(self, tmp_path, capsys):
        marker = tmp_path / "pwned"
        root = trial(tmp_path, "subprocess:getoutput", marker=marker,
                     policy={"capability": "tools"})
        assert_refused_everywhere(capsys, root, "standard library")
        assert not marker.exists()

    @pytest.mark.parametrize("module", ["subprocess", "os", "builtins", "os.path", "_io"])
    def test_the_standard_library_cannot_be_declared(self, make_surface, module):
        from workbench.contracts.surface import is_stdlib

        d = make_surface()
        (d / "policy.json").write_text(f'{{"capability": "tools", "modules": ["{module}"]}}')
        with pytest.raises(ConfigError, match=r"modules\[0\].*standard library"):
            load_policy(d)
        assert is_stdlib(module)

    def test_modules_are_declared_only_under_tools(self, make_surface):
        d = make_surface()
        (d / "policy.json").write_text('{"capability": "mcp-tool", "modules": ["wb_trap"]}')
        with pytest.raises(ConfigError, match="modules.*under mcp-tool"):
            load_policy(d)

    def test_an_undeclared_module_is_refused_and_never_imported(self, tmp_path, capsys,
                                                                trap):
        imported, _ = trap
        root = trial(tmp_path, "wb_trap:run", policy={"capability": "tools"})
        assert_refused_everywhere(capsys, root, "not one of the modules")
        assert "wb_trap" not in sys.modules and not imported.exists()

    def test_edits_name_only_declared_modules(self, make_surface):
        d = make_surface(capability="tools", modules=["wb_trap"])
        out = apply(d, [{"tool": "get_weather", "kind": "code", "value": "os:system"},
                        {"tool": "get_weather", "kind": "code", "value": "wb_trapx:run"},
                        {"kind": "add", "value": coded("builtins:eval", "ev")},
                        {"tool": "send_email", "kind": "code", "value": "wb_trap.sub:run"}])
        assert [r["edit"]["value"] for r in out["refused"]] == [
            "os:system", "wb_trapx:run", coded("builtins:eval", "ev")]
        assert [t.get("code") for t in load_tools(d)] == [None, "wb_trap.sub:run"]

    def test_code_problem_is_pure(self):
        from workbench.contracts.surface import code_problem

        policy = {"capability": "tools", "modules": ["wb_trap"]}
        assert code_problem("wb_trap:run", policy) is None
        assert code_problem("wb_trap:run\n", policy) is not None  # a full match
        assert "import path" in code_problem("__import__('os').system('x')", policy)
        assert "wb_trap" not in sys.modules


class TestCodedToolsAreNotTrusted:
    def test_a_declared_coded_tool_still_needs_approval(self, tmp_path, trap):
        imported, ran = trap
        root = trial(tmp_path, "wb_trap:run", policy={"capability": "tools",
                                                      "modules": ["wb_trap"]})
        result = Conductor.from_config(root, "trial").run(ticks=1)
        assert [(e.payload["tool"], e.payload["reason"]) for e in result.violations] == [
            ("shell", "not approved")]
        assert not ran.exists()

    def test_the_scenario_can_trust_its_code(self, tmp_path, trap):
        _, ran = trap
        root = trial(tmp_path, "wb_trap:run", trusted_code=True,
                     policy={"capability": "tools", "modules": ["wb_trap"]})
        result = Conductor.from_config(root, "trial").run(ticks=1)
        assert result.violations == []
        [called] = result.ledger.of_kind("tool.called")
        assert called.payload["result"] == {"ran": True} and ran.exists()

    def test_the_approver_is_told_where_the_code_comes_from(self, make_surface, trap):
        d = make_surface([coded("wb_trap:run")], capability="tools", modules=["wb_trap"])
        registry = ToolRegistry()
        CuratedResolver.from_dir(d, WireResolver([])).install(registry)
        policy = ApprovalPolicy()
        ApprovalGuard(policy).install(registry)

        class Grants:
            tools = ["shell"]

        with pytest.raises(ToolDenied) as err:
            registry.call("runner", Grants(), "shell", {"cmd": "x"})
        assert err.value.reason == "not approved"
        [asked] = policy.asked
        assert (asked.server, asked.trusted) == ("code:wb_trap", False)
        assert "not trusted" in asked.why
