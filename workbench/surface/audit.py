"""The audit, as curation has always imported it: :mod:`workbench.audit` re-exported.

The audit is a package of its own (:mod:`workbench.audit`), a floor below curation; this
module keeps ``workbench.surface.audit`` and ``from workbench.surface import audit``
working for callers and notebooks written before it moved.
"""

from workbench.audit import (
    SEVERITIES,
    Finding,
    at_or_above,
    audit,
    phantom_params,
    risk,
    tool_texts,
    visible,
)

__all__ = ["SEVERITIES", "Finding", "at_or_above", "audit", "phantom_params", "risk",
           "tool_texts", "visible"]
