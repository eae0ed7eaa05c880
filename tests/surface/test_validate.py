from __future__ import annotations

import json

from surface_data import SEND, WEATHER

from workbench.contracts.surface import save_policy
from workbench.surface.validate import validate


def problems(d):
    found: dict[tuple, str] = {}
    for p in validate(d)["problems"]:
        key = (p["tool"], p["field"])
        found[key] = f"{found[key]} | {p['problem']}" if key in found else p["problem"]
    return found


class TestValidate:
    def test_a_good_surface_is_ok(self, make_surface):
        assert validate(make_surface()) == {"ok": True, "tools": 2, "problems": []}

    def test_every_problem_class_names_tool_and_field(self, make_surface):
        bad_schema = {"type": "object", "properties": {"n": {"type": "nonsense"}}}
        d = make_surface([
            dict(WEATHER, examples=[{"city": "Oslo"}, {"city": 7}, {"town": "Oslo"}]),
            dict(SEND, description=""),
            dict(SEND),
            {"name": "bad name!", "description": "Spaces.", "parameters": {"type": "object"}},
            {"name": "broken", "description": "Broken schema.", "parameters": bad_schema},
            {"name": "listy", "description": "Not an object.", "parameters": {"type": "array"}},
            {"name": "needy", "description": "Requires a ghost.",
             "parameters": {"type": "object", "properties": {}, "required": ["ghost"]}},
            {"name": "liar", "description": "Set the `limit` parameter to page results.",
             "parameters": {"type": "object", "properties": {
                 "q": {"type": "string", "description": "The query; see the 'lang' option."}}}},
            {"name": "coded", "description": "Has code.", "parameters": {"type": "object"},
             "code": "workbench.tools.builtins:oracle"},
        ])
        found = problems(d)
        assert "duplicate of tools[1]" in found[("send_email", "name")]
        assert "not a valid tool name" in found[("bad name!", "name")]
        assert "is empty" in found[("send_email", "description")]
        assert "not a valid JSON Schema" in found[("broken", "parameters")]
        assert "object schema" in found[("listy", "parameters")]
        assert "requires 'ghost'" in found[("needy", "parameters.required")]
        assert "7 is not of type 'string'" in found[("get_weather", "examples[1]")]
        assert "uses parameter 'town'" in found[("get_weather", "examples[2]")]
        assert "documents parameter 'limit'" in found[("liar", "description")]
        assert "documents parameter 'lang'" in found[("liar", "parameters.q.description")]
        assert "capability is mcp-tool" in found[("coded", "code")]
        assert validate(d)["ok"] is False and validate(d)["tools"] == 9

    def test_code_path_checks_under_tools(self, make_surface):
        d = make_surface([
            {"name": "ok", "description": "Fine.", "parameters": {"type": "object"},
             "code": "workbench.tools.builtins:oracle"},
            {"name": "gone", "description": "Gone.", "parameters": {"type": "object"},
             "code": "no_such_module_xyz:f"},
        ], capability="tools", modules=["workbench.tools.builtins", "no_such_module_xyz"])
        assert list(problems(d)) == [("gone", "code")]

    def test_file_problems_are_reported_not_raised(self, tmp_path, make_surface):
        (tmp_path / "tools.json").write_text("{")
        report = validate(tmp_path)
        assert report["ok"] is False and "not valid JSON" in report["problems"][0]["problem"]
        d = make_surface()
        (d / "policy.json").write_text(json.dumps({"capability": "mcp-tool", "allow": ["code"]}))
        assert any("allow[0]" == p["field"] for p in validate(d)["problems"])
        save_policy(d, "tools")
        assert validate(d)["ok"]


class TestAgainstTheServer:
    """Issue 10 item 3: a pinned tool is documented against the server's schema."""

    def test_phantom_parameters_are_checked_against_the_server_schema(self, tmp_path):
        from surface_data import scripted_server

        from workbench.contracts.surface import load_tools, save_tools
        from workbench.surface.importer import import_surface

        wire = {"name": "send_email", "description": "Send an email.",
                "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}},
                                "required": ["to"]}}
        d = tmp_path / "surface"
        import_surface([scripted_server(tmp_path, [wire], "mail")], d, names=["mail"])
        assert validate(d)["ok"]
        # A hand-edited curated copy that documents (and declares) a parameter the server
        # lacks: consistent with itself, wrong about the server.
        [entry] = load_tools(d)
        entry["description"] = "Send an email. Set the `bcc` parameter to copy yourself."
        entry["parameters"]["properties"]["bcc"] = {"type": "string"}
        entry["examples"] = [{"to": "a@b.org", "bcc": "me@b.org"}]
        save_tools(d, [entry])
        found = problems(d)
        assert "documents parameter 'bcc'" in found[("send_email", "description")]
        assert "new property 'bcc'" in found[("send_email", "parameters")]
        assert "server 'mail'" in found[("send_email", "parameters")]
        assert "uses parameter 'bcc'" in found[("send_email", "examples[0]")]
