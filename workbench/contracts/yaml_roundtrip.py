r"""Saving edits into a YAML file written by a person, changing only the keys that changed.

The manifest editor saves a manifest this way, and ``workbench test --freeze`` writes a
scenario's ``expect:`` block this way. A config file is written by a person: comments
explain the agent, some keys are spelled out at their default on purpose, lists are in the
style they chose. Dumping the model
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

__all__ = ["DELETE", "updated_yaml"]

#: A value in ``changes`` that removes the key (at any depth of a changed mapping).
DELETE = object()


def _yaml() -> Any:
    from ruamel.yaml import YAML  # a dependency of the package itself: manifests, freezes

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 100
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def _node(value: Any, flow_maps: bool = False, in_list: bool = False) -> Any:
    """A new value as ruamel nodes: lists of scalars in flow style (``[a, b]``).

    With ``flow_maps``, a mapping of scalars inside a list is in flow style too
    (``- {agent: herald, tool: oracle}``): one line per item of a list of records.
    """
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, Mapping):
        node = CommentedMap()
        for key, item in value.items():
            if item is not DELETE:
                node[key] = _node(item, flow_maps)
        if flow_maps and in_list and all(not isinstance(v, Mapping | list | tuple)
                                         for v in value.values()):
            node.fa.set_flow_style()
        return node
    if isinstance(value, list | tuple):
        seq = CommentedSeq([_node(v, flow_maps, in_list=True) for v in value])
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


def _merge(node: Any, key: str, value: Any, flow_maps: bool = False) -> None:
    """Set ``node[key]`` to ``value``, recursing into mappings so their comments stay."""
    if value is DELETE:
        node.pop(key, None)
        return
    current = node.get(key)
    if _plain(current) == value:
        return
    if isinstance(current, Mapping) and isinstance(value, Mapping):
        for sub, item in value.items():
            if sub in current or item is not None:
                _merge(current, sub, item, flow_maps)
        return
    node[key] = _node(value, flow_maps)


def updated_yaml(text: str, changes: Mapping[str, Any], *, flow_maps: bool = False) -> str:
    """``text`` (a YAML mapping) with the top-level keys in ``changes`` set to new values.

    Keys not in ``changes`` are left exactly as written, comments included. A changed
    mapping is updated key by key; a new key is appended at the end; a key whose new
    value is :data:`DELETE` is removed. ``flow_maps`` writes new records in lists on one
    line each (see :func:`_node`).
    """
    yaml = _yaml()
    doc = yaml.load(text)
    for key, value in changes.items():
        _merge(doc, key, value, flow_maps)
    out = io.StringIO()
    yaml.dump(doc, out)
    return out.getvalue()
