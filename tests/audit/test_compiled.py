"""The compiled audit (``make compiled``) is what runs when the audit's tests are run on it.

``make test`` runs ``tests/audit`` a second time with ``build/compiled`` first on the path:
every module of ``workbench.audit`` must then be its C extension, or that run would test the
pure-Python audit twice and the compiled one never.
"""

from __future__ import annotations

import importlib
import json
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


# What both audits are asked, printed as JSON: the real servers together, each poisoned
# tool of the labelled corpus among them, and tools with fields of odd types (each reported
# on its own, the others its context).
_FINDINGS = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from audit_data import CORPUS, odd_tools
from workbench.audit import audit
from workbench.surface.audit_corpus import load_corpus
corpus = load_corpus(CORPUS)
real = corpus["real"]
base = [t for tools in real.values() for t in tools]
def name(tool):
    return tool.get("name") if isinstance(tool.get("name"), str) else ""
asked = [(real, None), *(({**real, "poison": [p["tool"]]}, {("poison", name(p["tool"]))})
                         for p in corpus["poisoned"]),
         *(({"odd": [t], "real": base[:20]}, {("odd", name(t))}) for t in odd_tools(base, 300, 2))]
print(json.dumps([[[f.tool, f.server, f.code, f.severity, f.field, f.evidence, f.reason,
                    f.start, f.end, f.rule] for f in audit(world, focus=focus)]
                  for world, focus in asked]))
"""


@pytest.mark.subprocess
def test_the_compiled_audit_finds_what_the_python_one_finds():
    import subprocess
    import sys

    from audit_data import REPO

    def findings(tree: Path) -> list:
        out = subprocess.run([sys.executable, "-P", "-c", _FINDINGS, str(tree),
                              str(Path(__file__).parent)], capture_output=True, text=True,
                             check=True, timeout=120).stdout
        return json.loads(out)

    python, compiled = findings(REPO), findings(Path(COMPILED or "."))
    assert len(python) > 800 and sum(map(len, python)) > 3000
    assert compiled == python
