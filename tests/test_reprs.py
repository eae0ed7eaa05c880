"""Rich reprs stay small and bounded: a 10,000-event run shows in a few KB."""

from __future__ import annotations

import pytest

from workbench import Conductor
from workbench.audit import Finding
from workbench.contracts.config import ConfigTree
from workbench.tools.defaults import default_tool_registry

LIMIT = 20_000  # bytes of HTML, the bound


@pytest.fixture(scope="module")
def long_run():
    """oracle-grove without the oracle grant for 3,400 ticks: over 10,000 events."""
    tree = ConfigTree.load("config")
    seer = tree.agents["fortune-teller"].with_tools([])
    manifests = [seer if n == "fortune-teller" else tree.agents[n]
                 for n in tree.scenario("oracle-grove").cast]
    conductor = Conductor(tree.scenario("oracle-grove"), manifests,
                          default_tool_registry(env={}))
    result = conductor.run(3400)
    assert len(result.ledger) >= 10_000 and len(result.violations) == 3400
    return result


class TestReprSizes:
    def test_run(self, long_run):
        shown = long_run._repr_html_()
        assert len(shown.encode()) < LIMIT
        assert long_run.ledger.run_id in shown and "3,400 violations" in shown
        assert "12 of 3,400 shown" in shown
        assert len(repr(long_run)) < 200 and "telemetry" not in repr(long_run)

    def test_ledger(self, long_run):
        shown = long_run.ledger._repr_html_()
        assert len(shown.encode()) < LIMIT
        assert f"{len(long_run.ledger):,} events" in shown and "tool.denied" in shown

    def test_registry(self):
        registry = default_tool_registry(env={})
        for i in range(2000):
            registry.register(f"tool_{i}", f"Tool number {i}. " * 20, lambda: {})
        shown = registry._repr_html_()
        assert len(shown.encode()) < LIMIT and "2,001 tools" in shown
        assert "object at 0x" not in repr(registry)

    def test_tool_spec(self):
        registry = default_tool_registry(env={})
        props = {f"p{i}": {"type": "string", "description": "x" * 500} for i in range(500)}
        registry.register("wide", "d" * 50_000, lambda **_: {},
                          input_schema={"type": "object", "properties": props,
                                        "required": ["p0"]})
        shown = registry.spec("wide")._repr_html_()
        assert len(shown.encode()) < LIMIT and "p0 *" in shown
        assert "oracle" in registry.spec("oracle")._repr_html_()

    def test_manifest(self):
        manifest = ConfigTree.load("config").agents["fortune-teller"]
        big = manifest.model_copy(update={"persona": "p" * 100_000})
        assert len(big._repr_html_().encode()) < LIMIT
        assert "oracle" in manifest._repr_html_() and "fortune-teller" in manifest._repr_html_()

    def test_audit(self):
        from workbench.reprs import audit_html

        findings = [Finding(f"t{i}", "srv", "directive.model", "high", "description",
                            "ignore previous instructions " * 20) for i in range(10_000)]
        shown = audit_html(findings)
        assert len(shown.encode()) < LIMIT and "10,000 findings (10000 high)" in shown
