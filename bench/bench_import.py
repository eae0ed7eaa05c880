"""``import workbench`` against ``python -c pass``: target <= 0.3 s more.

Each is a fresh interpreter, run alternately, medians over repeats.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from _common import REPO, report


def _time(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
    return time.perf_counter() - start


def main(repeat: int = 15) -> None:
    bare, loaded = [], []
    _time("import workbench")  # warm the file cache and bytecode
    for _ in range(repeat):
        bare.append(_time("pass"))
        loaded.append(_time("import workbench"))
    b, w = statistics.median(bare), statistics.median(loaded)
    report("import", [
        {"figure": "import workbench (extra over bare interpreter)", "value": w - b,
         "unit": "s", "baseline": "python -c pass", "baseline_value": b, "ratio": w / b,
         "target": "<= 0.3 s more", "met": (w - b) <= 0.3},
    ])


if __name__ == "__main__":
    main()
