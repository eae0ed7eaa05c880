from __future__ import annotations

from surface_data import SEND, WEATHER, WireResolver

from workbench.audit import audit
from workbench.contracts.surface import entry_to_wire
from workbench.engine.conductor import Conductor
from workbench.frames import (
    DIFF_COLUMNS,
    FINDINGS_COLUMNS,
    TOOLS_COLUMNS,
    diff_frame,
    findings_frame,
    tools_frame,
)
from workbench.surface.demo_server import TOOLS
from workbench.surface.overlay import CuratedResolver


class TestToolsFrame:
    def test_surface_directory(self, make_surface):
        frame = tools_frame(make_surface())
        assert list(frame.columns) == TOOLS_COLUMNS
        assert list(frame["name"]) == ["get_weather", "send_email"]
        row = frame.iloc[0]
        assert (row["parameters"], row["required"], row["source"]) == ("city, units", "city",
                                                                       "surface")
        hints = ["read_only", "destructive", "idempotent", "open_world"]
        # send_email declares no hints: the spec's defaults, the cautious reading.
        assert frame.loc[1, hints].tolist() == [False, True, False, True]
        # get_weather declares readOnlyHint only: the other three take the defaults.
        assert frame.loc[0, hints].tolist() == [True, True, False, True]

    def test_registry_through_a_curated_overlay(self, make_surface, registry):
        d = make_surface([dict(WEATHER, description="Curated.")])
        CuratedResolver.from_dir(d, WireResolver([entry_to_wire(WEATHER),
                                                  entry_to_wire(SEND)])).install(registry)
        frame = tools_frame(registry)
        assert list(frame["name"]) == ["get_weather", "oracle"]
        assert frame.set_index("name").loc["get_weather", "description"] == "Curated."
        assert frame.set_index("name").loc["oracle", "source"] == "in-process"


class TestFindingsFrame:
    def test_columns_and_sorting(self):
        wires = [{"name": n, "title": t, "description": d, "inputSchema": s, "annotations": a}
                 for n, (t, d, s, a, _) in TOOLS.items()]
        findings = audit({"demo": wires})
        frame = findings_frame(findings)
        assert list(frame.columns) == FINDINGS_COLUMNS and len(frame) == len(findings)
        sev = frame["severity"].tolist()
        assert sev == sorted(sev, key=["high", "warning", "info"].index)
        assert findings_frame([f.to_dict() for f in reversed(findings)]).equals(frame)


class TestDiffFrame:
    def test_two_surfaces(self, make_surface):
        a = make_surface()
        b = make_surface([dict(WEATHER, name="forecast"), dict(SEND, description="Other.")])
        frame = diff_frame(a, b)
        assert list(frame.columns) == DIFF_COLUMNS
        assert frame[["item", "status"]].values.tolist() == [
            ["get_weather -> forecast", "rename"], ["send_email", "drift"]]
        assert frame.iloc[1]["before"] == "Send an email." and frame.iloc[1]["after"] == "Other."

    def test_two_runs(self, config_dir, registry):
        r1 = Conductor.from_config(config_dir, "oracle-grove", registry=registry).run(ticks=2)
        r2 = Conductor.from_config(config_dir, "oracle-grove", registry=registry,
                                   seed=8).run(ticks=2)
        frame = diff_frame(r1, r2)
        assert list(frame.columns) == DIFF_COLUMNS and len(frame) == len(r1.ledger)
        assert frame.iloc[0]["status"] == "changed" and "payload" in frame.iloc[0]["fields"]
        same = diff_frame(r1, r1)
        assert set(same["status"]) == {"same"}


class TestServerTextIsEscaped:
    """Issue 10 item 5: frames show server text with its control characters spelled out."""

    HOSTILE = {"name": "get_time\r", "title": "T\u202eitle",
               "description": "Time.\n\x1b[8mhidden", "parameters": {
                   "type": "object", "properties": {"tz\t": {"type": "string"}}}}

    def test_tools_frame(self, make_surface):
        row = tools_frame(make_surface([self.HOSTILE])).iloc[0]
        assert (row["name"], row["title"], row["description"], row["parameters"]) == (
            "get_time\\r", "T\\u202eitle", "Time.\\n\\x1b[8mhidden", "tz\\t")

    def test_findings_and_diff_frames(self, make_surface):
        wire = entry_to_wire(self.HOSTILE)
        findings = findings_frame(audit({"evil\x1b": [wire]}))
        for column in FINDINGS_COLUMNS:
            assert not any("\r" in v or "\x1b" in v or "\n" in v for v in findings[column])
        changed = dict(wire, description="Other\rtext")
        row = diff_frame([wire], [changed]).iloc[0]
        assert row["item"].startswith("get_time\\r") and "\r" not in row["item"]
        assert row["after"] == "Other\\rtext"


class TestServerErrorsAreEscaped:
    def test_a_server_error_message_in_the_calls_frame(self, tmp_path, capsys):
        from surface_data import scripted_server, write_config

        from workbench.cli import main
        from workbench.frames import calls_frame

        fail = {"name": "fail", "description": "Fails with your message.",
                "inputSchema": {"type": "object", "properties": {
                    "message": {"type": "string"}}}}
        root = write_config(
            tmp_path / "config", grants=["fail"],
            script=[{"call": "fail", "params": {"message": "ok\rhigh\n\x1b[2Kforged"},
                     "say": "tried"}],
            servers=[("srv", scripted_server(tmp_path, [fail], "srv"))])
        result = Conductor.from_config(root, "trial", approver=lambda request: True).run(1)
        [row] = calls_frame(result).itertuples()
        assert (row.outcome, row.detail) == ("tool_error", "ok\\rhigh\\n\\x1b[2Kforged")
        code = main(["run", "trial", "--config", str(root), "--approve", "fail"])
        out = capsys.readouterr().out
        assert code == 0 and "\r" not in out and "\x1b" not in out
