from __future__ import annotations

import json

from surface_data import SEND, WEATHER

from workbench.contracts.surface import load_tools
from workbench.surface.edits import apply


def tool(d, name):
    return next(t for t in load_tools(d) if t["name"] == name)


ALLOWED_EDITS = [
    {"tool": "get_weather", "kind": "description", "value": "Forecast for a city, today."},
    {"tool": "get_weather", "kind": "params",
     "value": {"city": {"description": "City, like 'Oslo'.", "examples": ["Oslo"]}}},
    {"tool": "get_weather", "kind": "examples", "value": [{"city": "Oslo"}]},
    {"tool": "get_time", "kind": "add",
     "value": {"description": "Current time.", "parameters": {"type": "object",
                                                             "properties": {}}}},
    {"tool": "send_email", "kind": "remove"},
]


class TestMcpToolCapability:
    def test_description_params_examples_add_remove_are_applied(self, make_surface):
        d = make_surface()
        out = apply(d, ALLOWED_EDITS)
        assert out["refused"] == [] and out["applied"] == ALLOWED_EDITS
        w = tool(d, "get_weather")
        assert w["description"] == "Forecast for a city, today."
        assert w["parameters"]["properties"]["city"] == {
            "type": "string", "description": "City, like 'Oslo'.", "examples": ["Oslo"]}
        assert w["parameters"]["required"] == ["city"]
        assert w["examples"] == [{"city": "Oslo"}]
        assert [t["name"] for t in load_tools(d)] == ["get_weather", "get_time"]

    def test_schema_and_code_are_refused_with_reasons(self, make_surface):
        d = make_surface()
        out = apply(d, [
            {"tool": "get_weather", "kind": "schema", "value": {"type": "object"}},
            {"tool": "get_weather", "kind": "code", "value": "mypkg.weather:forecast"},
        ])
        assert out["applied"] == []
        reasons = [r["reason"] for r in out["refused"]]
        assert reasons[0].startswith("'schema' edits are not allowed under mcp-tool")
        assert reasons[1].startswith("'code' edits are not allowed under mcp-tool")
        assert "the server is external" in reasons[0]

    def test_params_schema_changes_are_refused_and_named(self, make_surface):
        d = make_surface()
        props = WEATHER["parameters"]["properties"]
        cases = {
            "type of 'city'": {"city": {"type": "integer"}},
            "required": dict(WEATHER["parameters"], required=["city", "units"]),
            "enum of 'units'": {"units": {"enum": ["metric", "imperial", "kelvin"]}},
            "new property 'days'": {"days": {"description": "How many days."}},
            "new property 'lang'": dict(WEATHER["parameters"],
                                        properties=dict(props, lang={"type": "string"})),
        }
        for what, value in cases.items():
            out = apply(d, [{"tool": "get_weather", "kind": "params", "value": value}])
            assert out["applied"] == [], what
            reason = out["refused"][0]["reason"]
            assert reason.startswith("schema change refused under mcp-tool"), reason
            assert what in reason, (what, reason)
            assert "only descriptions and examples of existing parameters" in reason

    def test_full_schema_params_edit_with_only_descriptions_is_applied(self, make_surface):
        d = make_surface()
        new = json.loads(json.dumps(WEATHER["parameters"]))
        new["properties"]["units"]["description"] = "metric or imperial"
        out = apply(d, [{"tool": "get_weather", "kind": "params", "value": new}])
        assert out["refused"] == [] and tool(d, "get_weather")["parameters"] == new

    def test_add_of_an_existing_name_is_refused(self, make_surface):
        d = make_surface()
        out = apply(d, [{"tool": "send_email", "kind": "add",
                         "value": {"description": "Another.", "parameters": {"type": "object"}}}])
        assert "already exists" in out["refused"][0]["reason"]

    def test_an_added_tool_whose_schema_refers_outside_itself_is_refused(self, make_surface):
        d = make_surface()
        before = (d / "tools.json").read_bytes()
        out = apply(d, [{"tool": "fetcher", "kind": "add", "value": {
            "description": "Fetches.", "examples": [{"a": 1}], "parameters": {
                "type": "object", "properties": {"a": {"$ref": "http://127.0.0.1:9/s"}}}}}])
        assert "only local references" in out["refused"][0]["reason"]
        assert (d / "tools.json").read_bytes() == before

    def test_all_refused_leaves_the_bytes_unchanged(self, make_surface):
        d = make_surface()
        before = (d / "tools.json").read_bytes()
        mtime = (d / "tools.json").stat().st_mtime_ns
        out = apply(d, [
            {"tool": "get_weather", "kind": "schema", "value": {"type": "object"}},
            {"tool": "get_weather", "kind": "params", "value": {"city": {"type": "number"}}},
            {"tool": "nope", "kind": "description", "value": "x"},
            {"tool": "get_weather", "kind": "explode", "value": 1},
            {"tool": "get_weather", "kind": "examples", "value": [{"city": 3}]},
            {"tool": "get_weather", "kind": "description", "value": "  "},
            "not an edit",
        ])
        assert out["applied"] == [] and len(out["refused"]) == 7
        assert (d / "tools.json").read_bytes() == before
        assert (d / "tools.json").stat().st_mtime_ns == mtime

    def test_a_refused_edit_changes_nothing_and_later_edits_still_apply(self, make_surface):
        d = make_surface()
        out = apply(d, [
            {"tool": "get_weather", "kind": "params", "value": {"city": {"type": "number",
                                                                       "description": "x"}}},
            {"tool": "get_weather", "kind": "description", "value": "Better."},
        ])
        assert len(out["applied"]) == 1 and len(out["refused"]) == 1
        w = tool(d, "get_weather")
        assert w["description"] == "Better."
        assert w["parameters"] == WEATHER["parameters"]

    def test_examples_must_match_the_schema(self, make_surface):
        d = make_surface()
        out = apply(d, [{"tool": "get_weather", "kind": "examples", "value": [{"town": "Oslo"}]},
                        {"tool": "get_weather", "kind": "examples",
                         "value": [{"city": "Oslo", "units": "kelvin"}]}])
        reasons = [r["reason"] for r in out["refused"]]
        assert "uses parameters the tool lacks: ['town']" in reasons[0]
        assert "does not match the parameters" in reasons[1]

    def test_narrowed_policy_refuses_what_it_leaves_out(self, make_surface):
        d = make_surface(capability="mcp-tool", allow=["description"])
        out = apply(d, [{"tool": "send_email", "kind": "remove"}])
        assert "this surface allows: description" in out["refused"][0]["reason"]


class TestToolsCapability:
    def test_every_kind_is_applied(self, make_surface):
        d = make_surface(capability="tools", modules=["workbench.tools"])
        schema = {"type": "object", "properties": {"city": {"type": "string"},
                                                   "days": {"type": "integer"}}}
        edits = [
            {"tool": "get_weather", "kind": "description", "value": "Forecast."},
            {"tool": "get_weather", "kind": "params", "value": {"city": {"type": "string",
                                                                       "minLength": 1}}},
            {"tool": "get_weather", "kind": "examples", "value": [{"city": "Oslo"}]},
            {"tool": "get_weather", "kind": "schema", "value": schema},
            {"tool": "get_weather", "kind": "code", "value": "workbench.tools.builtins:oracle"},
            {"tool": "roll", "kind": "add", "value": {
                "description": "Roll a die.", "parameters": {"type": "object"},
                "code": "workbench.tools.builtins:roll"}},
            {"tool": "send_email", "kind": "remove"},
        ]
        out = apply(d, edits)
        assert out["refused"] == [] and len(out["applied"]) == 7
        w = tool(d, "get_weather")
        assert w["parameters"] == schema and w["code"] == "workbench.tools.builtins:oracle"
        assert [t["name"] for t in load_tools(d)] == ["get_weather", "roll"]

    def test_code_is_an_import_path_never_text(self, make_surface):
        d = make_surface(capability="tools")
        out = apply(d, [{"tool": "get_weather", "kind": "code",
                         "value": "__import__('os').system('echo pwned')"}])
        assert "import path 'module:function'" in out["refused"][0]["reason"]
        assert "code" not in tool(d, "get_weather")

    def test_add_with_code_is_refused_under_mcp_tool(self, make_surface):
        d = make_surface()
        out = apply(d, [{"tool": "x", "kind": "add", "value": {
            "description": "X.", "parameters": {"type": "object"}, "code": "m:f"}}])
        assert "may not carry code under mcp-tool" in out["refused"][0]["reason"]
        assert SEND in load_tools(d)


class TestSeedShapes:
    """Issue 11: the mcp-tool acceptance check's own edit shapes."""

    PING = {"kind": "add", "value": {"name": "ping", "description": "health check",
                                     "parameters": {"type": "object"}}}

    def test_add_takes_its_name_from_value_name(self, make_surface):
        d = make_surface()
        out = apply(d, [self.PING])
        assert out == {"applied": [self.PING], "refused": []}
        assert tool(d, "ping") == {"name": "ping", "description": "health check",
                                   "parameters": {"type": "object"}}

    def test_a_tool_key_that_disagrees_is_refused_with_a_reason(self, make_surface):
        d = make_surface()
        before = (d / "tools.json").read_bytes()
        edit = dict(self.PING, tool="pong")
        out = apply(d, [edit])
        assert out["applied"] == [] and out["refused"][0]["edit"] == edit
        assert "'pong'" in out["refused"][0]["reason"] and "'ping'" in out["refused"][0][
            "reason"] and "disagree" in out["refused"][0]["reason"]
        assert (d / "tools.json").read_bytes() == before
        assert apply(d, [dict(self.PING, tool="ping")])["refused"] == []  # agreeing is fine

    def test_an_add_still_needs_a_valid_name(self, make_surface):
        out = apply(make_surface(), [{"kind": "add", "value": {"description": "x"}},
                                     {"kind": "add", "value": {"name": "ping\n",
                                                               "description": "x"}}])
        assert [r["reason"][:20] for r in out["refused"]] == [
            '"tool" must name the', "'ping\\n' is not a va"]

    def test_apply_with_no_edits_applies_nothing(self, make_surface):
        d = make_surface()
        before = (d / "tools.json").read_bytes(), (d / "tools.json").stat().st_mtime_ns
        assert apply(d, None) == {"applied": [], "refused": []}
        assert apply(d) == {"applied": [], "refused": []}
        assert ((d / "tools.json").read_bytes(), (d / "tools.json").stat().st_mtime_ns) == before


class TestServerDefinedTools:
    """Issue 10 item 3: under mcp-tool, remove + add cannot swap a server's schema."""

    def test_add_cannot_redefine_a_pinned_tool(self, tmp_path):
        from surface_data import scripted_server

        from workbench.surface.importer import import_surface
        from workbench.surface.validate import validate

        wire = {"name": "send_email", "description": "Send an email.",
                "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}},
                                "required": ["to"]}}
        d = tmp_path / "surface"
        import_surface([scripted_server(tmp_path, [wire], "mail")], d, names=["mail"])
        swapped = {"name": "send_email", "description": "Send an email; set `bcc` to copy.",
                   "parameters": {"type": "object", "properties": {
                       "to": {"type": "string"}, "bcc": {"type": "string"}}}}
        out = apply(d, [{"tool": "send_email", "kind": "remove"},
                        {"tool": "send_email", "kind": "add", "value": swapped},
                        {"kind": "add", "value": {"name": "ping", "description": "Ping.",
                                                  "parameters": {"type": "object"}}}])
        assert [e["kind"] for e in out["applied"]] == ["remove", "add"]
        [refused] = out["refused"]
        assert refused["edit"]["value"] == swapped
        assert "defined by server 'mail'" in refused["reason"]
        assert "new property 'bcc'" in refused["reason"]
        assert [t["name"] for t in load_tools(d)] == ["ping"]  # ping is nobody's: added
        assert validate(d)["ok"]
        # Added back as the server defines it (a hidden tool exposed again) is fine: with
        # no parameters given, the pinned schema is taken.
        out = apply(d, [{"kind": "add", "value": {"name": "send_email",
                                                  "description": "Mail someone."}}])
        assert out["refused"] == []
        assert tool(d, "send_email")["parameters"] == wire["inputSchema"]
        assert validate(d)["ok"]
