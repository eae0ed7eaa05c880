from __future__ import annotations

import subprocess
import sys

import workbench


def test_all_matches_what_is_exported():
    assert sorted(workbench.__all__) == sorted(set(workbench.__all__))
    for name in workbench.__all__:
        assert hasattr(workbench, name), name
    public = {n for n in vars(workbench) if not n.startswith("_")}
    modules = {n for n in public if type(getattr(workbench, n)).__name__ == "module"}
    assert public - modules == set(workbench.__all__)


def test_import_workbench_stays_light():
    code = ("import sys, workbench; "
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
