"""Reading YAML with line numbers, so every config error can point at its line.

One loader for every config file (``validate`` and ``run`` both read through
:func:`read_yaml`): it refuses duplicate keys and aliases that expand a file beyond
:data:`MAX_ALIAS_VALUES` values (a "billion laughs" would pass a check and then blow up a
run). Line lookups compose each text once, so reporting N problems in a file is linear in N.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml

from workbench._files import read_text
from workbench.errors import ConfigError

__all__ = ["MAX_ALIAS_VALUES", "format_loc", "line_of", "load_named", "model_from_yaml",
           "parse_yaml", "read_yaml"]

#: How many values YAML aliases may add to a file when expanded. Anchors and aliases are
#: fine for sharing a block or two; a legitimate config never comes near this.
MAX_ALIAS_VALUES = 10_000


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys (YAML would silently keep the last one)."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False):
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *base`: merged, may be overridden
            continue
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"duplicate key {key!r} (first on line {seen[key] + 1})",
                key_node.start_mark,
            )
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping
)


def read_yaml(path: Path) -> tuple[Any, str]:
    """Parse ``path`` and return ``(data, text)``.

    Raises:
        ConfigError: unreadable file, not UTF-8, invalid YAML, or aliases that expand
            too far, with the line of the problem.
    """
    text = read_text(path, "a YAML file of keys and values")
    return parse_yaml(path, text), text


def parse_yaml(path: str | Path, text: str) -> Any:
    """Parse ``text`` (read from ``path``, named in errors) as :func:`read_yaml` does.

    For callers that read the file themselves (with a size cap, say).

    Raises:
        ConfigError: invalid YAML, or aliases that expand too far, with the line.
    """
    loader = _UniqueKeyLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_aliases(path, node)
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        line = mark.line + 1 if mark is not None else None
        raise ConfigError(path, "", f"invalid YAML: {problem}", line) from None
    except RecursionError:
        raise ConfigError(path, "", "nested too deeply to read; a config needs a few levels, "
                          "not hundreds") from None
    finally:
        loader.dispose()
    return data


def _check_aliases(path: Path, root: yaml.Node) -> None:
    """Refuse aliases that refer to themselves or expand the file too far.

    Works on the composed node graph, where an alias is the same node reached twice: the
    expanded size is summed with a memo, so a bomb is measured without being expanded.
    """
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    written = 0
    biggest: tuple[int, yaml.Node | None] = (0, None)

    def size(node: yaml.Node) -> int:
        nonlocal written, biggest
        key = id(node)
        if key in sizes:  # reached again: an alias
            if sizes[key] > biggest[0]:
                biggest = (sizes[key], node)
            return sizes[key]
        if key in open_nodes:
            raise ConfigError(path, "", "an alias refers to the block that contains it "
                              "(a value cannot hold itself); write the values out",
                              node.start_mark.line + 1)
        open_nodes.add(key)
        written += 1
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k) + size(v) for k, v in node.value)
        open_nodes.discard(key)
        sizes[key] = total
        return total

    total = size(root)
    if total - written > MAX_ALIAS_VALUES:
        anchor = biggest[1]
        raise ConfigError(
            path, "", f"YAML aliases expand this file to {total:,} values ({written:,} "
            f"written); aliases may add at most {MAX_ALIAS_VALUES:,} (a 'billion laughs' "
            f"is refused): write the values out instead of repeating an anchor",
            anchor.start_mark.line + 1 if anchor is not None else None)


def format_loc(loc: tuple[Any, ...]) -> str:
    """``('tools', 0)`` -> ``tools[0]``, ``('schedule', 'tick_every')`` -> dotted."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def line_of(text: str, loc: tuple[Any, ...]) -> int | None:
    """1-based line of the deepest node of ``loc`` that exists in the YAML ``text``."""
    node = _composed(text)
    if node is None:
        return None
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == part:
                    line = key_node.start_mark.line + 1
                    node = value_node
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                return line
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


@functools.lru_cache(maxsize=16)
def _composed(text: str) -> yaml.Node | None:
    """The node tree of ``text``, composed once however many lines are looked up in it.

    Nodes are read, never changed, so sharing them between calls is safe.
    """
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return None


def model_from_yaml(
    path: Path, model: type[Any], data: Any = None, text: str | None = None
) -> Any:
    """Validate YAML ``data`` (read from ``path`` when not given) into a pydantic ``model``.

    Every failure becomes one :class:`ConfigError` naming the file, the line, the key
    path and what is allowed.
    """
    import pydantic

    if text is None:
        data, text = read_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(
            path, "", f"expected a mapping of keys at the top level, got {_type_name(data)}"
        )
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False):
            loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and "[" in p))
            problems.append(ConfigError(
                path, format_loc(loc), _explain(err, model, loc), line_of(text, loc)))
        first = problems[0]
        first.problems = problems
        raise first from None


def _type_name(value: Any) -> str:
    return {type(None): "nothing", list: "a list", str: "a string", dict: "a mapping"}.get(
        type(value), type(value).__name__
    )


def _explain(err: dict[str, Any], model: type[Any], loc: tuple[Any, ...]) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        allowed = _allowed_keys(model, loc[:-1])
        return f"unknown key; allowed keys: {', '.join(allowed)}"
    if kind == "missing":
        return "required key is missing"
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if kind not in ("value_error", "assertion_error"):
        msg = f"{msg}, got {_type_name(err.get('input'))}"
        if kind.endswith("_type") or kind == "literal_error":
            msg = msg[0].lower() + msg[1:]
    return msg


def _allowed_keys(model: type[Any], loc: tuple[Any, ...]) -> list[str]:
    """Field names of the (nested) model at ``loc``."""
    import typing

    current = model
    for part in loc:
        if isinstance(part, int):
            continue
        field = getattr(current, "model_fields", {}).get(part)
        if field is None:
            break
        ann = field.annotation
        candidates = [ann, *typing.get_args(ann)]
        for cand in candidates:
            for inner in [cand, *typing.get_args(cand)]:
                if hasattr(inner, "model_fields"):
                    current = inner
                    break
            else:
                continue
            break
    return list(getattr(current, "model_fields", {}))


def load_named(path: str | Path, model: type[Any]) -> Any:
    """Load ``path`` into ``model`` and check that its ``name`` matches the file name.

    Raises:
        ConfigError: naming the file, line, key path and what is allowed.
    """
    path = Path(path)
    loaded = model_from_yaml(path, model)
    if loaded.name != path.stem:
        data, text = read_yaml(path)
        raise ConfigError(
            path, "name", f"{loaded.name!r} does not match the file name; name it "
            f"{path.stem!r} or rename the file to {loaded.name}.yaml",
            line_of(text, ("name",)),
        )
    return loaded
