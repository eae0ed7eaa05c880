"""The widget package's boundaries: lazy imports, its public names, cheap reprs."""

from __future__ import annotations

import re
import subprocess
import sys

import workbench.widgets as widgets_pkg


def test_import_workbench_imports_neither_pandas_nor_ipywidgets(offline_env):
    code = ("import sys, workbench, workbench.widgets; "
            "print(sorted(m for m in ('pandas', 'ipywidgets') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=offline_env, check=True).stdout
    assert out.strip() == "[]"


def test_all_names_are_exported():
    for name in widgets_pkg.__all__:
        assert getattr(widgets_pkg, name).__name__ == name


def test_unknown_name_is_an_attribute_error():
    import pytest

    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        widgets_pkg.Nope  # noqa: B018


def test_nothing_outside_widgets_imports_ipywidgets(repo_root):
    offenders = [
        str(path.relative_to(repo_root))
        for path in (repo_root / "workbench").rglob("*.py")
        if "widgets" not in path.relative_to(repo_root / "workbench").parts
        and re.search(r"^\s*(import|from) ipywidgets", path.read_text(encoding="utf-8"), re.M)
    ]
    assert offenders == []


def test_workbench_repr_is_short(workbench):
    assert repr(workbench).startswith("Workbench(Session(")
    assert len(repr(workbench)) < 200
    assert "/" not in repr(workbench)  # no machine path: reprs end up in saved notebooks
    assert workbench.titles[0] == "Manifests" and workbench.titles[-1] == "History"
    assert workbench.titles[-2] == "Call a tool"
    workbench.show_tab("Run")
    assert workbench.titles[workbench.selected_index] == "Run"
