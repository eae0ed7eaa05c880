from __future__ import annotations

import subprocess
import sys

import workbench


def test_all_names_resolve_and_nothing_else_is_public():
    assert workbench.__all__ == sorted(set(workbench.__all__)) == sorted(workbench._EXPORTS)
    for name in workbench.__all__:
        value = getattr(workbench, name)
        assert getattr(value, "__name__", name) == name
    public = {n for n in dir(workbench) if not n.startswith("_")}
    modules = {n for n in public if type(getattr(workbench, n)).__name__ == "module"}
    helpers = {"annotations", "importlib", "Any", "TYPE_CHECKING"}  # the lazy loader's own
    assert public - modules - helpers == set(workbench.__all__)


def test_unknown_name_is_an_attribute_error():
    try:
        workbench.Nope  # noqa: B018
    except AttributeError as exc:
        assert "no attribute 'Nope'" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_import_workbench_stays_light():
    code = ("import sys, workbench; "
            "print(sorted(m for m in ('mcp', 'pandas', 'ipywidgets', 'jsonschema', 'pydantic') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_running_a_scenario_never_imports_mcp_pandas_or_widgets():
    code = ("import sys; from workbench import Conductor, ToolRegistry;"
            "from workbench.tools.builtins import register_builtins;"
            "Conductor.from_config('config', 'oracle-grove', "
            "registry=register_builtins(ToolRegistry())).run(2);"
            "print(sorted(m for m in ('mcp', 'pandas', 'ipywidgets', 'jsonschema') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_every_error_is_a_workbench_error():
    from workbench import errors

    for name in errors.__all__:
        obj = getattr(errors, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, errors.WorkbenchError), name
