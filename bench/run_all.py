"""Run every benchmark, each in its own interpreter, and print their tables.

``make bench`` runs this. Results are also written as JSON to ``bench/results/``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = ["bench_import.py", "bench_registry.py", "bench_engine.py", "bench_mcp.py",
         "bench_gateway.py",
         "bench_audit.py", "bench_audit_corpus.py", "bench_audit_baseline.py", "bench_config.py",
         "bench_sweep.py", "bench_model.py",
         "bench_selection.py"]


def main() -> int:
    failed = []
    start = time.perf_counter()
    for name in ORDER:
        path = HERE / name
        if not path.exists():
            print(f"\n== {name}: missing ==")
            failed.append(name)
            continue
        if subprocess.run([sys.executable, str(path)], cwd=HERE).returncode != 0:
            failed.append(name)
    print(f"\nall benchmarks: {time.perf_counter() - start:.0f} s"
          + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
