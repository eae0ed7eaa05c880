import pytest

from workbench.errors import ConfigError
from workbench.selection import load_tasks


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
