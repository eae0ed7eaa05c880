from __future__ import annotations

import json
import os

import pytest
from surface_data import SEND, WEATHER

from workbench.contracts.surface import (
    entry_from_wire,
    entry_to_wire,
    is_empty,
    load_pins,
    load_policy,
    load_tools,
    save_tools,
    write_json_atomic,
)
from workbench.errors import ConfigError
from workbench.surface.candidate import Candidate, materialize


class TestLoad:
    def test_round_trip_keeps_order_and_text(self, make_surface):
        d = make_surface()
        assert [t["name"] for t in load_tools(d)] == ["get_weather", "send_email"]
        assert load_tools(d)[0] == WEATHER

    def test_unknown_key_names_file_key_path_and_allowed(self, tmp_path):
        (tmp_path / "tools.json").write_text(json.dumps(
            {"tools": [dict(WEATHER), dict(SEND, colour="red")]}))
        with pytest.raises(ConfigError) as err:
            load_tools(tmp_path)
        assert err.value.key == "tools[1].colour"
        assert err.value.path.endswith("tools.json")
        assert "allowed keys: name, title, description, parameters" in str(err.value)

    def test_wrong_type_and_missing_key(self, tmp_path):
        (tmp_path / "tools.json").write_text(json.dumps({"tools": [dict(WEATHER, examples={})]}))
        with pytest.raises(ConfigError, match=r"tools\[0\]\.examples: must be a list"):
            load_tools(tmp_path)
        (tmp_path / "tools.json").write_text(json.dumps({"tools": [{"name": "x"}]}))
        with pytest.raises(ConfigError, match=r"tools\[0\]\.description: is required"):
            load_tools(tmp_path)

    def test_bad_json_names_the_line(self, tmp_path):
        (tmp_path / "tools.json").write_text('{"tools": [\n  {,}\n]}')
        with pytest.raises(ConfigError) as err:
            load_tools(tmp_path)
        assert err.value.line == 2 and "not valid JSON" in str(err.value)

    def test_missing_file_is_an_empty_surface(self, tmp_path):
        assert load_tools(tmp_path) == [] and is_empty(tmp_path)


class TestPolicy:
    def test_missing_policy_is_mcp_tool_default(self, tmp_path):
        assert load_policy(tmp_path) == {
            "capability": "mcp-tool",
            "allow": ["description", "params", "examples", "add", "remove"], "modules": []}

    def test_tools_capability_allows_everything(self, make_surface):
        policy = load_policy(make_surface(capability="tools"))
        assert policy["allow"] == ["description", "params", "examples", "add", "remove",
                                   "schema", "code"]

    def test_allow_may_narrow_but_not_widen(self, tmp_path):
        (tmp_path / "policy.json").write_text(json.dumps({"allow": ["description"]}))
        assert load_policy(tmp_path)["allow"] == ["description"]
        (tmp_path / "policy.json").write_text(json.dumps({"allow": ["description", "code"]}))
        with pytest.raises(ConfigError) as err:
            load_policy(tmp_path)
        assert err.value.key == "allow[1]"
        assert "'code' is not allowed under mcp-tool" in str(err.value)
        assert '"capability": "tools"' in str(err.value)

    def test_unknown_capability_and_key(self, tmp_path):
        (tmp_path / "policy.json").write_text(json.dumps({"capability": "root"}))
        with pytest.raises(ConfigError, match="allowed: mcp-tool, tools"):
            load_policy(tmp_path)
        (tmp_path / "policy.json").write_text(json.dumps({"deny": []}))
        with pytest.raises(ConfigError, match="deny: unknown key"):
            load_policy(tmp_path)

    def test_bad_pins_file(self, tmp_path):
        (tmp_path / "pins.json").write_text(json.dumps({"tools": [{"name": "x"}]}))
        with pytest.raises(ConfigError, match=r"tools\[0\]"):
            load_pins(tmp_path)


class TestAtomicWrite:
    def test_failed_write_leaves_the_old_file_and_no_temp(self, make_surface):
        d = make_surface()
        before = (d / "tools.json").read_bytes()
        with pytest.raises(TypeError):
            write_json_atomic(d / "tools.json", {"tools": [object()]})
        assert (d / "tools.json").read_bytes() == before
        assert sorted(os.listdir(d)) == ["tools.json"]

    def test_save_refuses_bad_entries_before_writing(self, make_surface):
        d = make_surface()
        before = (d / "tools.json").read_bytes()
        with pytest.raises(ConfigError):
            save_tools(d, [{"name": "x", "description": "y"}])
        assert (d / "tools.json").read_bytes() == before


class TestWire:
    def test_wire_and_entry_convert_both_ways(self):
        wire = {"name": "t", "title": "T", "description": "d", "inputSchema": {"type": "object"},
                "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}
        entry = entry_from_wire(wire)
        assert entry["parameters"] == {"type": "object"} and "inputSchema" not in entry
        assert entry_to_wire(entry) == wire


class TestMaterialize:
    def test_text_parts_and_candidate(self, make_surface):
        d = make_surface([dict(WEATHER, examples=[{"city": "Oslo"}]), SEND])
        parts = materialize(d)
        assert list(parts) == ["tool.get_weather.description", "tool.get_weather.parameters",
                               "tool.get_weather.examples", "tool.send_email.description",
                               "tool.send_email.parameters"]
        assert json.loads(parts["tool.get_weather.parameters"]) == WEATHER["parameters"]
        cand = Candidate.from_dir(d)
        assert cand.to_dict() == {"id": cand.id, "component": "mcp-tool", "text_parts": parts,
                                  "dir": str(d)}
        assert Candidate("c1", "tools", {"a": "b"}, "x").to_dict() == {
            "id": "c1", "component": "tools", "text_parts": {"a": "b"}, "dir": "x"}

    def test_candidate_id_follows_the_text(self, make_surface):
        a, b = make_surface(), make_surface()
        assert Candidate.from_dir(a).id == Candidate.from_dir(b).id
        save_tools(b, [dict(WEATHER, description="Forecast."), SEND])
        assert Candidate.from_dir(a).id != Candidate.from_dir(b).id


class TestWriteKeepsTheFile:
    """Issue 11: an atomic write keeps the file's mode and writes through a symlink."""

    @pytest.mark.parametrize("mode", [0o644, 0o640, 0o664, 0o600])
    def test_mode_is_kept(self, make_surface, mode):
        d = make_surface()
        path = d / "tools.json"
        path.chmod(mode)
        save_tools(d, [SEND])
        assert path.stat().st_mode & 0o7777 == mode and load_tools(d) == [SEND]

    def test_a_new_file_gets_the_umask_mode_not_0600(self, tmp_path):
        old = os.umask(0o022)
        try:
            write_json_atomic(tmp_path / "new.json", {"a": 1})
        finally:
            os.umask(old)
        assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o644

    def test_a_symlink_stays_a_link_and_its_target_is_written(self, make_surface, tmp_path):
        d = make_surface()
        real = tmp_path / "shared" / "tools.json"
        real.parent.mkdir()
        (d / "tools.json").rename(real)
        real.chmod(0o644)
        (d / "tools.json").symlink_to(real)
        save_tools(d, [SEND])
        assert (d / "tools.json").is_symlink()
        assert os.readlink(d / "tools.json") == str(real)
        assert json.loads(real.read_text()) == {"tools": [SEND]}
        assert real.stat().st_mode & 0o7777 == 0o644
        assert sorted(p.name for p in real.parent.iterdir()) == ["tools.json"]  # no temp left
