"""The floors hold: `make lint`'s import-linter contracts pass, and catch an upward import."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).parent / "lint-imports"


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT), "--config", str(root / "pyproject.toml")], cwd=root,
                          capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "workbench", tmp_path / "workbench",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_package_keeps_its_floors(copy):
    out = lint(copy)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 kept, 0 broken" in out.stdout


def test_an_upward_import_breaks_the_floors(copy):
    names = copy / "workbench" / "contracts" / "names.py"
    names.write_text(names.read_text() + "\n\ndef _upward():\n"
                     "    from workbench.engine.conductor import Conductor\n\n"
                     "    return Conductor\n")
    out = lint(copy)
    assert out.returncode == 1
    assert "workbench.contracts is not allowed to import workbench.engine" in out.stdout
    assert "workbench.contracts.names -> workbench.engine.conductor" in out.stdout


def test_a_circle_inside_a_package_is_caught(copy):
    factory = copy / "workbench" / "engine" / "factory.py"
    factory.write_text(factory.read_text() + "\n\ndef _circle():\n"
                       "    from workbench.engine.conductor import Conductor\n\n"
                       "    return Conductor\n")
    out = lint(copy)
    assert out.returncode == 1 and "No cycles are allowed in workbench.engine" in out.stdout
