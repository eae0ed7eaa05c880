"""Build the audit compiled with mypyc: a copy of ``workbench/`` whose audit is C extensions.

Usage: ``python tools/compile_audit.py [OUT]`` (``make compiled``; OUT is ``build/compiled``).
Put OUT first on the path (``PYTHONPATH=build/compiled python -P ...``) and
``workbench.audit`` runs compiled; everything else stays the checkout's Python. The modules
of ``workbench/audit/`` are compiled as they are written (mypyc reads their annotations and
enforces them at run time); the rule catalogue (``workbench/audit/rules/``) stays Python.

The pure-Python audit is the one the editable install runs and the one to edit: a compiled
copy next to the sources would shadow every edit, so the copy lives in its own tree,
rebuilt whenever the sources change. ``make test`` runs the audit's tests on it, and
``bench/bench_audit_corpus.py`` measures both.

Needs mypy (the ``dev`` extra), setuptools and a C compiler.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "build" / "compiled"

# Run in the copy: mypyc type-checks the audit's modules (what they import is read as Any) and
# compiles each to C. Optimisation level 1: the same speed here as 3, in less build time.
_SETUP = """
import glob
from mypyc.build import mypycify
from setuptools import setup
modules = sorted(glob.glob("workbench/audit/*.py"))
setup(name="workbench-audit-compiled",
      ext_modules=mypycify(["--ignore-missing-imports", "--follow-imports=skip", *modules],
                           opt_level="1", debug_level="0", multi_file=True),
      script_args=["build_ext", "--inplace", "--parallel", "2", "--build-temp", "build"])
"""


def build(out: Path = OUT) -> Path:
    """Copy ``workbench/`` to ``out`` and compile its audit there; returns ``out``.

    Built beside ``out`` and moved into place when every module compiled, so a failed build
    leaves the last good one (or none) and never half of one.
    """
    work = out.with_name(out.name + ".building")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(REPO / "workbench", work / "workbench",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    done = subprocess.run([sys.executable, "-c", _SETUP], cwd=work, capture_output=True,
                          text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"compiling the audit failed (exit {done.returncode}): see above; "
                         "the pure-Python audit is unaffected")
    sources = sorted(p.stem for p in (work / "workbench/audit").glob("*.py"))
    built = sorted(p.name.split(".")[0] for p in (work / "workbench/audit").glob("*.so"))
    if built != sources:
        raise SystemExit(f"compiled {built}, expected {sources}")
    shutil.rmtree(work / "build")
    shutil.rmtree(out, ignore_errors=True)
    work.rename(out)
    (out / ".built").touch()
    return out


if __name__ == "__main__":
    print(f"compiled audit in {build(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)}")
