"""Sweeps: many independent runs of one scenario, on local processes or a Dask cluster.

A sweep is a grid of seeds times variants (``--set`` overrides of scenario or manifest
fields, and alternative curated surfaces). Each run writes its own verified ledger; the
runs are gathered into ``runs.parquet`` and ``events.parquet``.

Example:
    >>> import workbench
    >>> frame = workbench.sweep("config", "oracle-grove", seeds="0-3",  # doctest: +SKIP
    ...                         sets=["agents.fortune-teller.tools=[]"], out="sweeps/a")
"""

from __future__ import annotations

from workbench.errors import SweepError
from workbench.sweeps.runner import EVENT_COLUMNS, RUN_COLUMNS, sweep

__all__ = ["EVENT_COLUMNS", "RUN_COLUMNS", "SweepError", "sweep"]
