import json
import os

import pytest

from workbench.errors import ConfigError
from workbench.selection import Task, load_tasks
from workbench.selection.tasks import (
    MAX_QUERY_BYTES,
    MAX_TASK_DEPTH,
    MAX_TASK_LINES,
    MAX_TASKS_BYTES,
)


def test_jsonl_and_yaml(tmp_path):
    (tmp_path / "t.jsonl").write_text('{"query": "a", "tool": "x"}\n\n# note\n'
                                      '{"query": "b", "tool": null, "args": {"k": 1}}\n')
    (tmp_path / "t.yaml").write_text("- {query: a, tool: x}\n- {query: b, tool: null}\n")
    jsonl, yaml = load_tasks(tmp_path / "t.jsonl"), load_tasks(tmp_path / "t.yaml")
    assert [(t.query, t.tool) for t in jsonl] == [(t.query, t.tool) for t in yaml] == [
        ("a", "x"), ("b", None)]
    assert jsonl[1].args == {"k": 1}


def test_a_surface_directory_means_its_tasks_file():
    assert len(load_tasks("config/surfaces/watch-house")) >= 30


@pytest.mark.parametrize("text, words", [
    ('{"query": "a"}\n', ["tool", "null when no tool fits", ":1"]),
    ('{"query": "", "tool": "x"}\n', ["query", "non-empty"]),
    ('{"query": "a", "tool": "x", "extra": 1}\n', ["extra", "allowed"]),
    ('{"query": "a", "tool": 3}\n', ["tool"]),
    ('[1, 2]\n', ["each task is an object"]),
    ('{"query": "a", "tool": "x"}\n{broken\n', ["not a JSON object", ":2"]),
    ('', ["holds no tasks"]),
])
def test_bad_files_name_the_file_line_and_field(tmp_path, text, words):
    path = tmp_path / "tasks.jsonl"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_tasks(path)
    for word in words:
        assert word in str(err.value)
    assert "tasks.jsonl" in str(err.value)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(ConfigError, match="no task file"):
        load_tasks(tmp_path / "none.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="UTF-8"):
        load_tasks(tmp_path / "bin.jsonl")


def _eval(args, timeout=60):
    """`workbench eval` in a subprocess (a hang fails the test, not the suite)."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "workbench.cli", "eval",
                           "config/surfaces/watch-house", *args],
                          capture_output=True, text=True, timeout=timeout)


class TestFilesThatAreNotFiles:
    """A device, a FIFO or a directory given as --tasks is refused before it is read."""

    def test_dev_zero_is_one_line(self):
        proc = _eval(["--tasks", "/dev/zero"])
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: /dev/zero")
        assert "not a regular file" in proc.stderr

    def test_a_fifo_with_no_writer_is_refused_not_waited_on(self, tmp_path):
        fifo = tmp_path / "tasks.jsonl"
        os.mkfifo(fifo)
        proc = _eval(["--tasks", str(fifo)], timeout=30)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and "FIFO" in proc.stderr
        assert str(fifo) in proc.stderr

    def test_the_api_refuses_a_device_too(self):
        with pytest.raises(ConfigError, match="not a regular file"):
            load_tasks("/dev/zero")


class TestCaps:
    """Sizes past the caps are one error naming the file (and line), before any ranking."""

    def test_a_file_over_the_byte_cap(self, tmp_path):
        path = tmp_path / "big.jsonl"
        line = json.dumps({"query": "what time is it", "tool": "x"}) + "\n"
        with path.open("w") as fh:
            fh.write(line * (MAX_TASKS_BYTES // len(line) + 1))
        with pytest.raises(ConfigError) as err:
            load_tasks(path)
        assert "big.jsonl" in str(err.value) and "MiB" in str(err.value)

    def test_a_fifty_megabyte_query(self, tmp_path):
        path = tmp_path / "t.jsonl"
        path.write_text(json.dumps({"query": "x" * 50_000_000, "tool": None}) + "\n")
        proc = _eval(["--tasks", str(path)])
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and "t.jsonl" in proc.stderr

    def test_a_query_over_the_query_cap_names_the_line(self, tmp_path):
        path = tmp_path / "t.jsonl"
        path.write_text('{"query": "a", "tool": "x"}\n'
                        + json.dumps({"query": "y" * (MAX_QUERY_BYTES + 1), "tool": None}))
        with pytest.raises(ConfigError) as err:
            load_tasks(path)
        assert f"{path}:2: query:" in str(err.value)
        assert f"{MAX_QUERY_BYTES:,}" in str(err.value)

    def test_a_query_at_the_cap_is_fine(self, tmp_path):
        path = tmp_path / "t.jsonl"
        path.write_text(json.dumps({"query": "y" * MAX_QUERY_BYTES, "tool": None}))
        assert len(load_tasks(path)[0].query) == MAX_QUERY_BYTES

    def test_a_task_built_in_python_is_held_to_the_query_cap(self):
        with pytest.raises(ConfigError, match="query"):
            Task("q" * (MAX_QUERY_BYTES + 1), None)

    @pytest.mark.parametrize("suffix", [".jsonl", ".yaml"])
    @pytest.mark.slow
    def test_too_many_tasks(self, tmp_path, suffix):
        path = tmp_path / f"t{suffix}"
        rows = MAX_TASK_LINES + 1
        if suffix == ".jsonl":
            path.write_text('{"query": "a", "tool": null}\n' * rows)
        else:
            path.write_text("- {query: a, tool: null}\n" * rows)
        with pytest.raises(ConfigError) as err:
            load_tasks(path)
        assert f"{MAX_TASK_LINES:,}" in str(err.value) and path.name in str(err.value)


class TestNesting:
    """A line nested past the depth cap is one error naming the file and the line."""

    def test_a_line_nested_200000_deep_is_one_line_on_the_cli(self, tmp_path):
        path = tmp_path / "t.jsonl"
        path.write_text('{"query": "a", "tool": null}\n'
                        '{"query": "b", "tool": null, "args": {"k": '
                        + "[" * 200_000 + "]" * 200_000 + "}}\n")
        proc = _eval(["--tasks", str(path)])
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1, proc.stderr
        assert f"{path}:2:" in proc.stderr and "nested" in proc.stderr

    @pytest.mark.parametrize("depth, ok", [(MAX_TASK_DEPTH, True), (MAX_TASK_DEPTH + 1, False)])
    def test_the_depth_cap(self, tmp_path, depth, ok):
        # The task object is level 1, args level 2: the value inside adds depth - 2 levels.
        inner = "[" * (depth - 2) + "]" * (depth - 2)
        path = tmp_path / "t.jsonl"
        path.write_text('{"query": "b", "tool": null, "args": {"k": ' + inner + "}}\n")
        if ok:
            assert load_tasks(path)[0].args == {"k": json.loads(inner)}
        else:
            with pytest.raises(ConfigError, match=f"{path}:1: .*nested"):
                load_tasks(path)

    def test_deep_yaml_is_one_error(self, tmp_path):
        path = tmp_path / "t.yaml"
        path.write_text("- {query: a, tool: null, args: {k: " + "[" * 50_000
                        + "]" * 50_000 + "}}\n")
        with pytest.raises(ConfigError, match="nested"):
            load_tasks(path)

    def test_a_yaml_alias_bomb_is_refused(self, tmp_path):
        lines = ['- {query: a, tool: null, args: {k: &a0 [x, x, x, x, x, x, x, x, x, x]}}']
        for i in range(1, 9):
            lines.append(f"- {{query: a, tool: null, args: {{k: &a{i} "
                         f"[{', '.join([f'*a{i-1}'] * 10)}]}}}}")
        path = tmp_path / "t.yaml"
        path.write_text("\n".join(lines) + "\n")
        with pytest.raises(ConfigError, match="aliases"):
            load_tasks(path)
