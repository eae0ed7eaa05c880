"""Running a scenario's contract test: the run its ``expect:`` asks for, offline, then judged.

Each scenario with an ``expect:`` block is run as ``workbench run`` would run it, with
three differences that make it a test: model agents replay their cassette (a request the
cassette lacks fails the scenario with the cassette's one-line miss, never a live call);
calls that need approval are approved only if ``expect: approve:`` lists them (nobody is
asked at a terminal); and the seed and ticks come from the block. The ledger is then
judged by :func:`workbench.testing.judge.judge`. ``workbench test`` and the pytest plugin
both call :func:`check_scenario`.

Example:
    >>> verdict = check_scenario("config", "town-square")  # doctest: +SKIP
    >>> verdict.ok, verdict.lines()  # doctest: +SKIP
    (True, [])
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from workbench.contracts.config import ConfigTree
from workbench.contracts.expect import Expectations
from workbench.contracts.scenario import ScenarioConfig
from workbench.engine.result import RunResult
from workbench.errors import ConfigError, WorkbenchError
from workbench.testing.judge import Failure, judge

__all__ = ["CannotRun", "ScenarioVerdict", "cassette_for", "check_scenario", "run_offline",
           "scenarios_with_expect"]


@dataclass(frozen=True)
class ScenarioVerdict:
    """How one scenario's contract test went.

    Attributes:
        scenario: Its name.
        failures: Every broken expectation (empty when all hold).
        final_hash: The run's final hash (None when it could not run).
        events: Events on its ledger.
        seconds: Wall time of the run and the judging.
        error: Why the run could not be made or finished (a cassette miss, a server that
            would not start), as one line; None when it ran.
    """

    scenario: str
    failures: tuple[Failure, ...] = ()
    final_hash: str | None = None
    events: int = 0
    seconds: float = 0.0
    error: str | None = None
    ledger: tuple = field(default=(), repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """True when the scenario ran and every expectation holds."""
        return self.error is None and not self.failures

    def lines(self) -> list[str]:
        """One line per problem: the run's error, or each failure."""
        if self.error is not None:
            return [f"{self.scenario}: run: {self.error}"]
        return [f.line() for f in self.failures]


def scenarios_with_expect(tree: ConfigTree, names: Iterable[str] = ()) -> list[str]:
    """The scenarios to test: ``names`` (each must exist and have ``expect:``), else all.

    Raises:
        ConfigError: a named scenario does not exist or has no ``expect:`` block.
    """
    names = list(names)
    if not names:
        return sorted(n for n, s in tree.scenarios.items() if s.expect is not None)
    for name in names:
        spec = tree.scenario(name)
        if spec.expect is None:
            raise ConfigError(tree.root / "scenarios" / f"{name}.yaml", "expect",
                              "the scenario has no expect: block to test; add one, or "
                              f"write what a run does with `workbench test --freeze {name}`")
    return names


def cassette_for(tree: ConfigTree, spec: ScenarioConfig,
                 expect: Expectations | None = None) -> Path | None:
    """The cassette a scenario's model agents replay, or None if it has none.

    ``expect: cassette:`` (relative to the config directory) when given, else
    ``cassettes/<scenario>.jsonl`` when that file exists.
    """
    expect = expect or spec.expect
    if expect is not None and expect.cassette is not None:
        return tree.root / expect.cassette
    default = tree.root / "cassettes" / f"{spec.name}.jsonl"
    return default if default.exists() else None


class CannotRun(WorkbenchError):
    """A contract test's run cannot be made: a model agent without a cassette, say."""


def run_offline(tree: ConfigTree, spec: ScenarioConfig,
                expect: Expectations | None = None) -> RunResult:
    """Run ``spec`` as its contract test does: its seed and ticks, replayed models only.

    Args:
        tree: The config.
        spec: The scenario.
        expect: The block whose ``seed``, ``ticks``, ``cassette`` and ``approve`` to use
            (``spec.expect`` when None; an empty block when it has none).

    Raises:
        CannotRun: a model agent and no cassette to replay, or a cassette that is missing.
        WorkbenchError: the run failed (a cassette miss, a server that would not start).
    """
    from workbench.engine.conductor import Conductor
    from workbench.surface.approval import ApprovalPolicy

    expect = expect or spec.expect or Expectations()
    models = [m.name for m in tree.cast_of(spec) if m.model.backend == "openai"]
    cassette = cassette_for(tree, spec, expect)
    if models and cassette is None:
        raise CannotRun(
            f"{', '.join(models)} use a model, and a test never calls one live: record a "
            f"cassette (workbench run {spec.name} --cassette FILE --cassette-mode record) "
            f"and name it in expect: cassette:, or put it at cassettes/{spec.name}.jsonl")
    if models and not cassette.is_file():  # type: ignore[union-attr]
        raise CannotRun(f"expect: cassette: {cassette} does not exist")
    conductor = Conductor.from_config(
        tree, spec.name, seed=expect.seed, cassette=cassette if models else None,
        cassette_mode="replay", approver=ApprovalPolicy(allow=list(expect.approve)))
    return conductor.run(ticks=expect.ticks or spec.governor.max_ticks)


def check_scenario(config: ConfigTree | str | Path, name: str) -> ScenarioVerdict:
    """Run scenario ``name`` as its ``expect:`` block says and judge the ledger.

    Raises:
        ConfigError: the config does not load, or the scenario has no ``expect:`` block
            (bad input: the caller exits 2, not 1).
    """
    tree = config if isinstance(config, ConfigTree) else ConfigTree.load(config)
    scenarios_with_expect(tree, [name])
    spec = tree.scenario(name)
    expect = spec.expect
    assert expect is not None
    started = time.perf_counter()
    try:
        result = run_offline(tree, spec, expect)
    except WorkbenchError as exc:
        return ScenarioVerdict(name, error=_one_line(exc), seconds=time.perf_counter() - started)
    events = result.ledger.events
    failures = judge(name, expect, events, result.final_hash)
    return ScenarioVerdict(name, tuple(failures), result.final_hash, len(events),
                           time.perf_counter() - started, ledger=tuple(events))


def _one_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
