"""ToolRegistry.call overhead against a direct call of the same function.

Targets: <= 2 us of overhead per call without an input schema (grant check included),
<= 10 us with the schema validated on every call.
"""

from __future__ import annotations

from _common import interleaved_us, report

from workbench.contracts.manifest import AgentManifest
from workbench.tools.registry import ToolRegistry

SCHEMA = {
    "type": "object",
    "properties": {"seed": {"type": "string"}},
    "required": ["seed"],
    "additionalProperties": False,
}


def tool(seed: str) -> dict:
    return {"seed": seed}


def main() -> None:
    reg = ToolRegistry()
    reg.register("plain", "No schema.", tool)
    reg.register("checked", "With schema.", tool, input_schema=SCHEMA)
    grants = AgentManifest(name="bench", role="worker",
                           tools=["a", "b", "c", "d", "plain", "checked"])
    params = {"seed": "x"}
    call = reg.call
    times = interleaved_us({
        "direct": lambda: tool(**params),
        "plain": lambda: call("bench", grants, "plain", params),
        "checked": lambda: call("bench", grants, "checked", params),
    }, number=100_000)
    plain_over = times["plain"] - times["direct"]
    checked_over = times["checked"] - times["direct"]
    report("registry", [
        {"figure": "ToolRegistry.call, no schema (overhead)", "value": plain_over, "unit": "us",
         "baseline": "direct call", "baseline_value": times["direct"],
         "ratio": times["plain"] / times["direct"], "target": "<= 2 us",
         "met": plain_over <= 2.0},
        {"figure": "ToolRegistry.call, schema validated (overhead)", "value": checked_over,
         "unit": "us", "baseline": "direct call", "baseline_value": times["direct"],
         "ratio": times["checked"] / times["direct"], "target": "<= 10 us",
         "met": checked_over <= 10.0},
    ])


if __name__ == "__main__":
    main()
