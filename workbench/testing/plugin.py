"""The pytest plugin: ``pytest --workbench CONFIG`` tests every scenario's ``expect:``.

Installed with the package (entry point ``pytest11``, as nbval is) and inert until
``--workbench`` is given. Each scenario of CONFIG with an ``expect:`` block becomes one
test item named ``scenario::NAME`` (collected from its YAML file, so ``-k``, ``-x``,
``--junit-xml`` and ``-p xdist`` work as for any test), and each surface with a
``selection.yaml`` one item ``selection::SURFACE``. A failure is reported as the same
lines ``workbench test`` prints; a bad ``expect:`` is a collection error naming the file,
line and key. Runs are offline: model agents replay their cassette.

Example (the project's own ``make test`` does this)::

    pytest --workbench config tests
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

__all__ = ["pytest_addoption", "pytest_collect_file", "pytest_configure"]

_ROOTS = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--workbench CONFIG`` (repeatable): the config directories to test."""
    group = parser.getgroup("workbench", "tool contract workbench")
    group.addoption("--workbench", action="append", default=[], metavar="CONFIG",
                    help="test every scenario with an expect: block and every surface "
                         "with a selection.yaml in this config directory (repeatable)")


def pytest_configure(config: pytest.Config) -> None:
    """Remember the config roots and make sure pytest collects their files."""
    roots = [Path(p).resolve() for p in config.getoption("workbench", default=[]) or []]
    config.stash[_ROOTS] = roots
    for root in roots:
        if not root.is_dir():
            raise pytest.UsageError(f"--workbench {root}: not a directory; give a config "
                                    f"directory (the one holding agents/ and scenarios/)")
        for sub in ("scenarios", "surfaces"):
            if (root / sub).is_dir() and str(root / sub) not in config.args:
                config.args.append(str(root / sub))


def _root_of(config: pytest.Config, file_path: Path) -> Path | None:
    for root in config.stash.get(_ROOTS, []):
        if file_path.is_relative_to(root):
            return root
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A scenario file or a surface's selection.yaml under a ``--workbench`` root."""
    root = _root_of(parent.config, file_path)
    if root is None:
        return None
    if file_path.suffix == ".yaml" and file_path.parent == root / "scenarios":
        return ScenarioFile.from_parent(parent, path=file_path, root=root)
    if file_path.name == "selection.yaml" and file_path.parent.parent == root / "surfaces":
        return SelectionFile.from_parent(parent, path=file_path, root=root)
    return None


class _Problem(Exception):
    """The lines to report, instead of a traceback."""

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


class _Quiet:
    """Collectors and items whose failures are their lines, never a traceback."""

    def repr_failure(self, excinfo: Any, *args: Any, **kwargs: Any) -> str:
        from workbench.errors import WorkbenchError

        if isinstance(excinfo.value, _Problem | WorkbenchError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, *args, **kwargs)  # type: ignore[misc]


class ScenarioFile(_Quiet, pytest.File):
    """One scenario file: an item if it has an ``expect:`` block, nothing otherwise."""

    def __init__(self, *, root: Path, **kwargs: Any):
        super().__init__(**kwargs)
        self.root = root

    def collect(self) -> Any:
        from workbench.contracts.scenario import load_scenario

        spec = load_scenario(self.path)  # a bad expect: is one ConfigError line
        if spec.expect is not None:
            yield ScenarioItem.from_parent(self, name=f"scenario::{spec.name}",
                                           scenario=spec.name)


class ScenarioItem(_Quiet, pytest.Item):
    """One scenario's contract test (see :func:`workbench.testing.check_scenario`)."""

    def __init__(self, *, scenario: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.scenario = scenario

    def runtest(self) -> None:
        """Run and judge the scenario; fail with its lines."""
        from workbench.contracts.config import ConfigTree
        from workbench.testing.runner import check_scenario

        verdict = check_scenario(ConfigTree.load(self.parent.root), self.scenario)
        if not verdict.ok:
            raise _Problem(verdict.lines())

    def reportinfo(self) -> tuple[Path, int, str]:
        """Where the item comes from, for pytest's report."""
        return self.path, 0, self.name


class SelectionFile(_Quiet, pytest.File):
    """A surface's ``selection.yaml``: one selection gate item."""

    def __init__(self, *, root: Path, **kwargs: Any):
        super().__init__(**kwargs)
        self.root = root

    def collect(self) -> Any:
        from workbench.surface.gate import load_gate

        load_gate(self.path.parent)  # a bad selection.yaml is one ConfigError line
        yield SelectionItem.from_parent(self, name=f"selection::{self.path.parent.name}")


class SelectionItem(_Quiet, pytest.Item):
    """One surface's selection gate (see :func:`workbench.surface.gate.check_gate`)."""

    def runtest(self) -> None:
        """Score the surface's tasks and fail with the gate's lines."""
        from workbench.surface.gate import check_gate

        verdict = check_gate(self.path.parent)
        if not verdict.ok:
            raise _Problem(verdict.lines())

    def reportinfo(self) -> tuple[Path, int, str]:
        """Where the item comes from, for pytest's report."""
        return self.path, 0, self.name
