"""Fixtures for the audit tests: the helpers beside this file are importable by name."""

from __future__ import annotations

import sys
from pathlib import Path

# The shared test helpers live beside this file; `conftest` itself is tests/conftest.py's name.
sys.path.insert(0, str(Path(__file__).parent))
