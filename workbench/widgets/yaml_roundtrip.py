r"""Saving an edited manifest into its YAML file, changing only the keys that were edited.

A manifest file is written by a person: comments explain the agent, some keys are spelled
out at their default on purpose, lists are in the style they chose. Dumping the model
would lose all of that. :func:`updated_yaml` reads the file with ruamel.yaml's round-trip
loader (comments, key order, flow or block style are kept), replaces only the values that
differ between the file and the edited manifest, and writes the text back.

Example:
    >>> text = "# the seer\nname: seer\nrole: worker  # works\ntools: [oracle]\n"
    >>> print(updated_yaml(text, {"tools": []}), end="")
    # the seer
    name: seer
    role: worker  # works
    tools: []
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from workbench.errors import MissingDependency

__all__ = ["updated_yaml"]


def _yaml() -> Any:
    try:
        from ruamel.yaml import YAML
    except ImportError as exc:
        raise MissingDependency("ruamel.yaml", "widgets") from exc
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 100
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def _node(value: Any) -> Any:
    """A new value as ruamel nodes: lists of scalars in flow style (``[a, b]``)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, Mapping):
        node = CommentedMap()
        for key, item in value.items():
            node[key] = _node(item)
        return node
    if isinstance(value, list | tuple):
        seq = CommentedSeq([_node(v) for v in value])
        if all(not isinstance(v, Mapping | list | tuple) for v in value):
            seq.fa.set_flow_style()
        return seq
    return value


def _plain(node: Any) -> Any:
    if isinstance(node, Mapping):
        return {k: _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def _merge(node: Any, key: str, value: Any) -> None:
    """Set ``node[key]`` to ``value``, recursing into mappings so their comments stay."""
    current = node.get(key)
    if _plain(current) == value:
        return
    if isinstance(current, Mapping) and isinstance(value, Mapping):
        for sub, item in value.items():
            if sub in current or item is not None:
                _merge(current, sub, item)
        return
    node[key] = _node(value)


def updated_yaml(text: str, changes: Mapping[str, Any]) -> str:
    """``text`` (a YAML mapping) with the top-level keys in ``changes`` set to new values.

    Keys not in ``changes`` are left exactly as written, comments included. A changed
    mapping is updated key by key; a new key is appended at the end.

    Raises:
        MissingDependency: ruamel.yaml is not installed.
    """
    yaml = _yaml()
    doc = yaml.load(text)
    for key, value in changes.items():
        _merge(doc, key, value)
    out = io.StringIO()
    yaml.dump(doc, out)
    return out.getvalue()
