"""The compiled audit (``make compiled``) is what runs when the audit's tests are run on it.

``make test`` runs ``tests/audit`` a second time with ``build/compiled`` first on the path:
every module of ``workbench.audit`` must then be its C extension, or that run would test the
pure-Python audit twice and the compiled one never.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest
from audit_data import COMPILED

import workbench.audit

pytestmark = pytest.mark.skipif(COMPILED is None, reason="runs on the compiled audit "
                                "(WORKBENCH_COMPILED=build/compiled, as make test sets)")


def test_every_module_of_the_audit_runs_compiled():
    tree = Path(COMPILED or ".").resolve()
    modules = [m.name for m in pkgutil.iter_modules(workbench.audit.__path__) if not m.ispkg]
    assert len(modules) >= 15, modules
    for name in modules:
        module = importlib.import_module(f"workbench.audit.{name}")
        where = Path(module.__file__ or "")
        assert where.suffix == ".so" and where.is_relative_to(tree), (name, where)
