"""The desk scenario of the model tests: an openai clerk, its config and a scripted brain."""

from __future__ import annotations

from pathlib import Path

from chat_server import completion

API_KEY = "sk-test-7Hq2-secret-key-never-written"


def desk_brain(body):
    """Step 1: call the granted oracle and the ungranted vault at once; step 2: speak."""
    steps = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if steps == 0:
        return completion(None, [("oracle", {"seed": "the desk"}), ("vault", {})],
                          model=body["model"])
    return completion("The omen is read; the vault stayed shut.", model=body["model"])


def write_desk(config_dir: Path, url: str, **model) -> Path:
    """Add agent ``clerk`` (openai backend at ``url``) and scenario ``desk`` to a config."""
    settings = {"backend": "openai", "model": "desk-model", "base_url": url,
                "api_key_env": "DESK_API_KEY", "retry_backoff": 0.01, "timeout": 10,
                **model}
    lines = "\n".join(f"  {k}: {v}" for k, v in settings.items())
    (config_dir / "agents" / "clerk.yaml").write_text(
        "name: clerk\nrole: worker\npersona: A careful clerk at the desk.\n"
        "may_emit: [clerk.said]\nschedule:\n  tick_every: 1\n"
        f"model:\n{lines}\nmemory:\n  window: 3\ntools: [oracle]\n")
    (config_dir / "scenarios" / "desk.yaml").write_text(
        "name: desk\ntitle: The desk\ndefault_seed: 1\ngenesis_text: 'A desk (seed {seed}).'\n"
        "cast: [clerk]\ngovernor:\n  max_ticks: 2\n")
    return config_dir
