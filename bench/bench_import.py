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
    bare, loaded, used = [], [], []
    first_use = "from workbench import Conductor, ToolRegistry, AgentManifest"
    _time(first_use)  # warm the file cache and bytecode
    for _ in range(repeat):
        bare.append(_time("pass"))
        loaded.append(_time("import workbench"))
        used.append(_time(first_use))
    b, w, u = statistics.median(bare), statistics.median(loaded), statistics.median(used)
    report("import", [
        {"figure": "import workbench (extra over bare interpreter)", "value": w - b,
         "unit": "s", "baseline": "python -c pass", "baseline_value": b, "ratio": w / b,
         "target": "<= 0.3 s more", "met": (w - b) <= 0.3},
        {"figure": "first use: import Conductor, ToolRegistry, AgentManifest (extra)",
         "value": u - b, "unit": "s", "baseline": "python -c pass", "baseline_value": b,
         "ratio": u / b, "target": "reported (pydantic models)", "met": None},
    ])


if __name__ == "__main__":
    main()
