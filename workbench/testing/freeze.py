"""Freezing what a run did as its scenario's ``expect:`` block, keeping the file as written.

A designer who likes what a scenario does freezes it: the run is made the way its contract
test makes it (:func:`~workbench.testing.runner.run_offline`), and what happened becomes
the block: each agent's calls per tool with their counts, each refusal with its reason,
the number of refusals, and the final hash when the run is deterministic (run twice, the
same hash). The inputs a person wrote (``cassette``, ``approve``, ``seed``, ``ticks``) and
the promises only a person can make (``never``, ``said``) are kept as they are; the file's
comments and key order too (:mod:`workbench.contracts.yaml_roundtrip`).

A block that exists and would change is not overwritten unless asked (``force``): the
difference is returned for a person to read first.

Example:
    >>> outcome = freeze("config", "town-square")  # doctest: +SKIP
    >>> outcome.written, outcome.diff  # doctest: +SKIP
    (True, '--- ...')
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.contracts.config import ConfigTree
from workbench.contracts.events import TOOL_CALLED, TOOL_DENIED, Event
from workbench.testing.runner import run_offline

__all__ = ["Frozen", "expect_block", "freeze"]

#: The keys freezing derives from the run; every other key of a block is a person's.
DERIVED = ("calls", "denied", "violations", "final_hash")


@dataclass(frozen=True)
class Frozen:
    """What a freeze did.

    Attributes:
        path: The scenario file.
        block: The derived part of the block, as written (or as it would be written).
        diff: A unified diff of the file, before and after ("" when nothing changes).
        written: Whether the file was rewritten.
        existed: Whether the scenario had an ``expect:`` block before.
        deterministic: Whether two runs gave the same final hash (so ``final_hash`` is in).
    """

    path: Path
    block: dict[str, Any]
    diff: str
    written: bool
    existed: bool
    deterministic: bool


def expect_block(events: list[Event] | tuple[Event, ...],
                 final_hash: str | None) -> dict[str, Any]:
    """The derived keys of an ``expect:`` block for a run's ledger.

    Calls and refusals are listed in the order they first happened; a run without any
    leaves the key out (``violations: 0`` still says there were none).
    """
    counts: dict[tuple[str, str], int] = {}
    denied: dict[tuple[str, str, str], None] = {}
    for event in events:
        tool = event.payload.get("tool") if isinstance(event.payload, dict) else None
        if event.kind == TOOL_CALLED:
            counts[(event.actor, tool)] = counts.get((event.actor, tool), 0) + 1
        elif event.kind == TOOL_DENIED:
            denied[(event.actor, tool, str(event.payload.get("reason", "")))] = None
    block: dict[str, Any] = {}
    if counts:
        block["calls"] = [{"agent": a, "tool": t, "count": n} for (a, t), n in counts.items()]
    if denied:
        block["denied"] = [{"agent": a, "tool": t, "reason": r} for a, t, r in denied]
    block["violations"] = sum(1 for e in events if e.kind == TOOL_DENIED)
    if final_hash is not None:
        block["final_hash"] = final_hash
    return block


def freeze(config: ConfigTree | str | Path, name: str, *, force: bool = False) -> Frozen:
    """Run scenario ``name`` and write what it did as its ``expect:`` block.

    Args:
        config: The config directory (or a loaded tree).
        name: The scenario.
        force: Overwrite an existing block that would change.

    Raises:
        ConfigError: the config or scenario does not load.
        WorkbenchError: the run cannot be made (see :func:`run_offline`).
    """
    from workbench._files import read_text
    from workbench.atomic import write_text_atomic
    from workbench.contracts.yaml_roundtrip import DELETE, updated_yaml

    tree = config if isinstance(config, ConfigTree) else ConfigTree.load(config)
    spec = tree.scenario(name)
    path = tree.root / "scenarios" / f"{name}.yaml"
    first = run_offline(tree, spec)
    second = run_offline(tree, spec)
    deterministic = first.final_hash == second.final_hash
    block = expect_block(first.ledger.events, first.final_hash if deterministic else None)
    before = read_text(path, "a scenario")
    changes = {key: block.get(key, DELETE) for key in DERIVED}
    if spec.expect is None:
        changes = {k: v for k, v in changes.items() if v is not DELETE}
    after = updated_yaml(before, {"expect": changes}, flow_maps=True)
    # Named as the config names it, so a diff reads the same on every machine.
    label = f"scenarios/{name}.yaml"
    diff = "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True),
                                        f"{label} (now)", f"{label} (frozen)"))
    existed = spec.expect is not None
    write = bool(diff) and (force or not existed)
    if write:
        write_text_atomic(path, after, mkdir=False)
        ConfigTree.load(tree.root).scenario(name)  # what was written loads, or it is a bug
    return Frozen(path, block, diff, write, existed, deterministic)
