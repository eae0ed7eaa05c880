"""Import from real servers: mcp-server-time (PyPI) and server-everything (npm)."""

from __future__ import annotations

import json

import pytest

from workbench.audit import at_or_above, audit
from workbench.contracts.surface import load_pins, load_policy, load_tools
from workbench.errors import ConfigError
from workbench.surface.importer import import_surface
from workbench.surface.pins import fingerprint
from workbench.surface.validate import validate


@pytest.mark.external
class TestImport:
    def test_snapshot_of_two_servers_with_pins(self, tmp_path, time_conn, everything_conn):
        out = tmp_path / "clock"
        summary = import_surface([time_conn, everything_conn], out)
        assert summary["servers"] == ["time", "everything"] and summary["shadowed"] == []
        tools = {t["name"]: t for t in load_tools(out)}
        assert {"get_current_time", "convert_time", "echo", "get-sum"} <= set(tools)
        live = {t["name"]: t for t in time_conn.list_tools() + everything_conn.list_tools()}
        assert len(tools) == len(live) == summary["pinned"]
        # Wire fields land verbatim: the server's own text and schema, ready to curate.
        assert tools["echo"]["description"] == live["echo"]["description"]
        assert tools["echo"]["parameters"] == live["echo"]["inputSchema"]
        assert tools["echo"]["annotations"] == live["echo"]["annotations"]
        assert tools["get_current_time"]["output_schema"] == live["get_current_time"][
            "outputSchema"]
        pins = {p["name"]: p for p in load_pins(out)}
        assert pins["echo"]["server"] == "everything" and pins["convert_time"]["server"] == "time"
        assert all(p["fingerprint"] == fingerprint(live[n]) for n, p in pins.items())
        assert load_policy(out)["capability"] == "mcp-tool"
        assert validate(out)["ok"], validate(out)["problems"]

    def test_real_descriptions_produce_no_finding_at_warning_or_above(
            self, time_conn, everything_conn):
        found = audit({"time": time_conn.list_tools(), "everything": everything_conn.list_tools()})
        assert at_or_above(found, "warning") == [], [f.to_dict() for f in found]

    def test_refuses_to_overwrite_a_curated_surface(self, tmp_path, time_conn):
        out = tmp_path / "t"
        import_surface(time_conn, out)
        with pytest.raises(ConfigError, match="already holds a surface"):
            import_surface(time_conn, out)
        json.loads((out / "tools.json").read_text())
        assert import_surface(time_conn, out, force=True)["tools"] == [
            "get_current_time", "convert_time"]
