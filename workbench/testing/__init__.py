"""Contract tests: what a scenario must and must never do, checked in CI like the tutorials.

A scenario's ``expect:`` block (:mod:`workbench.contracts.expect`) says what its run must
show; :func:`check_scenario` runs it offline and :func:`judge` reads the ledger against
it; :mod:`~workbench.testing.freeze` writes what a run did as the block; the pytest plugin
(:mod:`~workbench.testing.plugin`, ``pytest --workbench CONFIG``) collects each scenario
as a test item beside nbval's notebooks.
"""

from workbench.testing.judge import Failure, judge
from workbench.testing.runner import ScenarioVerdict, check_scenario

__all__ = ["Failure", "ScenarioVerdict", "check_scenario", "judge"]
