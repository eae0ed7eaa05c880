"""Shared data for the audit tests: where the repository (and its corpus) is."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests/data/audit_corpus"
