from __future__ import annotations

import ast
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


HEAVY = ("mcp", "pandas", "ipywidgets", "jsonschema", "pydantic")


def heavy_modules_after(code: str, repo_root) -> list[str]:
    """Which heavy modules a fresh interpreter has loaded after running ``code``."""
    probe = f"{code}\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=repo_root)
    return ast.literal_eval(out.stdout.strip())


def test_import_workbench_stays_light(repo_root):
    assert heavy_modules_after("import workbench", repo_root) == []


def test_running_a_scenario_never_imports_mcp_pandas_or_widgets(repo_root):
    code = ("from workbench import Conductor, ToolRegistry\n"
            "from workbench.tools.builtins import register_builtins\n"
            "Conductor.from_config('config', 'oracle-grove', "
            "registry=register_builtins(ToolRegistry())).run(2)")
    assert heavy_modules_after(code, repo_root) == ["pydantic"]


def test_every_error_is_a_workbench_error():
    from workbench import errors

    for name in errors.__all__:
        obj = getattr(errors, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, errors.WorkbenchError), name


def test_the_errors_docstring_draws_every_workbench_error():
    """Every public subclass of WorkbenchError, wherever it is defined, is in the tree."""
    import importlib
    import pkgutil

    import workbench
    from workbench import errors

    for info in pkgutil.walk_packages(workbench.__path__, "workbench."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    seen, stack = set(), [errors.WorkbenchError]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
    public = sorted(c.__name__ for c in seen if not c.__name__.startswith("_"))
    missing = [name for name in public if f"── {name} " not in errors.__doc__]
    assert missing == [], f"add these to workbench/errors.py's tree: {missing}"
    assert len(public) >= 20
