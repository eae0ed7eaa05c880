"""Shared data for the audit tests: where the repository (and its corpus) is."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests/data/audit_corpus"

#: The compiled audit's tree (``build/compiled``) when ``make test`` runs the audit's tests
#: on it, else None.
COMPILED = os.environ.get("WORKBENCH_COMPILED") or None
