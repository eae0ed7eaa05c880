"""Scenarios: a cast of agents, a world to start from, and the governor's limits.

A scenario is data (``config/scenarios/<name>.yaml``) and strict like a manifest. It may
name MCP ``servers`` it needs (started for the run, stopped after) and a curated
``surface`` to put in front of them; ``trusted_code: true`` makes the approver believe the
annotations of that surface's coded tools.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from pydantic import Field, field_validator, model_validator

from workbench.contracts._yaml import load_named
from workbench.contracts.expect import Expectations
from workbench.contracts.manifest import Name, StrictModel

__all__ = ["MAX_TICKS", "GovernorLimits", "ScenarioConfig", "ServerSpec", "load_scenario",
           "split_command"]


def split_command(command: str) -> list[str]:
    """A stdio server's command line split into argv, as a POSIX shell would split it.

    The one rule for every place a command line is given: a scenario's ``command:``,
    ``MCP_SERVERS`` and ``--server``.

    Raises:
        ValueError: the line is empty or its quotes are unbalanced; the message says so
            and shows an example.

    Example:
        >>> split_command("python -m 'my server'")
        ['python', '-m', 'my server']
    """
    try:
        argv = shlex.split(command)
    except ValueError as exc:  # shlex: "No closing quotation" / "No escaped character"
        raise ValueError(f"{command!r} cannot be split into words ({str(exc).lower()}); "
                         f"balance its quotes, e.g. \"python -m 'my server'\"") from None
    if not argv:
        raise ValueError("the command line is empty; give one such as "
                         "'python -m workbench.tools.mcp.server'")
    return argv


#: The most ticks a scenario may ask for: far past any designed world, and a bound for a
#: mistyped ``max_ticks`` (or a ``--set`` of 2**63) that would otherwise run for ever.
MAX_TICKS = 1_000_000


class GovernorLimits(StrictModel):
    """Budgets that bound a run.

    Attributes:
        max_ticks: Ticks a run takes unless told otherwise.
        max_calls_per_tick: Agent activations one tick's subscription cascade may take.
        max_total_calls: Agent activations in the whole run (None = no limit).
        max_tool_calls: Tool calls in the whole run (None = no limit).
        max_model_calls: Calls to model backends (``openai``) in the whole run, retries
            not counted (None = no limit).
    """

    max_ticks: int = Field(default=10, ge=1, le=MAX_TICKS)
    max_calls_per_tick: int = Field(default=32, ge=1)
    max_total_calls: int | None = Field(default=None, ge=1)
    max_tool_calls: int | None = Field(default=None, ge=0)
    max_model_calls: int | None = Field(default=None, ge=0)


class ServerSpec(StrictModel):
    """An MCP server a scenario needs: a stdio command line or an http(s) URL."""

    name: str
    command: str | None = None
    url: str | None = None
    trusted: bool = False
    #: Seconds a call to this server may wait for its reply (``WORKBENCH_MCP_TIMEOUT`` or 30).
    timeout: float | None = Field(default=None, gt=0, allow_inf_nan=False)

    @model_validator(mode="after")
    def _one_target(self) -> ServerSpec:
        if (self.command is None) == (self.url is None):
            raise ValueError("a server needs exactly one of 'command' or 'url'")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"url {self.url!r} must start with http:// or https://")
        return self

    @field_validator("command")
    @classmethod
    def _splits(cls, value: str | None) -> str | None:
        if value is not None:
            split_command(value)
        return value

    @property
    def target(self) -> str:
        """The command line or URL, as MCP_SERVERS spells it."""
        return self.command if self.command is not None else str(self.url)


class ScenarioConfig(StrictModel):
    """A scenario, as data."""

    name: Name
    title: str = ""
    goal: str = ""
    default_seed: int = 0
    example_seeds: tuple[int, ...] = ()
    genesis_text: str = "The world begins (seed {seed})."
    cast: tuple[str, ...] = Field(min_length=1)
    governor: GovernorLimits = GovernorLimits()
    servers: tuple[ServerSpec, ...] = ()
    surface: str | None = None
    #: Believe the annotations of the surface's coded tools (tools.json says them, and
    #: tools.json is only a file): without it every coded call is confirmed by the approver.
    trusted_code: bool = False
    #: What the scenario must and must never do (``workbench test``; see contracts.expect).
    expect: Expectations | None = None

    @field_validator("cast")
    @classmethod
    def _unique_cast(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        seen = set()
        for name in value:
            if name in seen:
                raise ValueError(f"{name!r} is cast twice; each agent acts once per turn")
            seen.add(name)
        return value

    def genesis(self, seed: int) -> str:
        """The genesis text for ``seed`` (only ``{seed}`` is substituted)."""
        return self.genesis_text.replace("{seed}", str(seed))


def load_scenario(path: str | Path) -> ScenarioConfig:
    """Load and validate one scenario file (its ``name`` must match the file name).

    Raises:
        ConfigError: naming the file, line, key path and what is allowed.
    """
    return load_named(path, ScenarioConfig)
