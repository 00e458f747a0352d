"""tf.test.assert_equal_graph_def: TF 1.15's EqualGraphDef (tensorflow/core/util/
equal_graph_def.cc) in Python, with its messages: nodes are matched by name (order does not
matter), then op, device, data inputs in order ("t" equals "t:0"), control inputs as a set
and attributes (internal "_" ones ignored) are compared; GraphDef versions are not."""

from __future__ import annotations

import re
from typing import Any

from tfcluster.framework.attr_summaries import summarize_attr_value
from tfcluster.protos import graph_pb2


def assert_equal_graph_def(
    actual: Any, expected: Any, checkpoint_v2: bool = False, hash_table_shared_name: bool = False
) -> None:
    if not isinstance(actual, graph_pb2.GraphDef):
        raise TypeError(f"Expected tf.GraphDef for actual, got {type(actual).__name__}")
    if not isinstance(expected, graph_pb2.GraphDef):
        raise TypeError(f"Expected tf.GraphDef for expected, got {type(expected).__name__}")
    if checkpoint_v2:
        _strip_checkpoint_v2_randomized(actual)
        _strip_checkpoint_v2_randomized(expected)
    if hash_table_shared_name:
        _strip_hash_table_shared_name(actual)
        _strip_hash_table_shared_name(expected)
    diff = graph_def_diff(actual, expected)
    if diff:
        raise AssertionError(diff)


def graph_def_diff(actual: Any, expected: Any) -> str:
    """The first difference as EqualGraphDef words it, or "" when equal."""
    actual_index = {node.name: node for node in actual.node}
    for expected_node in expected.node:
        found = actual_index.pop(expected_node.name, None)
        if found is None:
            return f"Did not find expected node '{summarize_node_def(expected_node)}'"
        diff = _node_diff(found, expected_node)
        if diff:
            return diff
    if actual_index:
        return f"Found unexpected node '{summarize_node_def(next(iter(actual_index.values())))}'"
    return ""


def _node_diff(actual: Any, expected: Any) -> str:
    name = actual.name
    if actual.op != expected.op:
        return f"Node named '{name}' has op '{actual.op}' that is not expected '{expected.op}'"
    if actual.device != expected.device:
        return (
            f"Node named '{name}' has device '{actual.device}' that is not expected "
            f"'{expected.device}'"
        )
    if len(actual.input) != len(expected.input):
        return (
            f"Node named '{name}' has inputs '{', '.join(actual.input)}' that don't match "
            f"expected '{', '.join(expected.input)}'"
        )
    first_control = len(actual.input)
    for i, (got, want) in enumerate(zip(actual.input, expected.input)):
        if got.startswith("^"):
            first_control = i
            break
        if got not in (want, want + ":0") and got + ":0" != want:
            return f"Node named '{name}' has input {i} '{got}' that doesn't match expected '{want}'"
    actual_control = set(actual.input[first_control:])
    for want in expected.input[first_control:]:
        if want not in actual_control:
            return f"Node named '{name}' missing expected control input '{want}'"
        actual_control.discard(want)
    if actual_control:
        return f"Node named '{name}' has unexpected control input '{sorted(actual_control)[0]}'"
    actual_attrs = {k for k in actual.attr if not k.startswith("_")}
    for key in sorted(expected.attr):
        if key.startswith("_"):
            continue
        want_value = expected.attr[key]
        if key not in actual_attrs:
            return (
                f"Node named '{name}' missing expected attr '{key}' with value: "
                f"{summarize_attr_value(want_value)}"
            )
        actual_attrs.discard(key)
        if actual.attr[key] != want_value:
            return (
                f"Node named '{name}' has attr '{key}' with value: "
                f"{summarize_attr_value(actual.attr[key])} that does not match expected: "
                f"{summarize_attr_value(want_value)}"
            )
    if actual_attrs:
        key = sorted(actual_attrs)[0]
        return (
            f"Node named '{name}' has unexpected attr '{key}' with value: "
            f"{summarize_attr_value(actual.attr[key])}"
        )
    return ""


def summarize_node_def(node: Any) -> str:
    """TF's SummarizeNodeDef: {{node n}} = Op[attr=value, ..., _device="d"](inputs)."""
    attrs = [f"{k}={summarize_attr_value(node.attr[k])}" for k in sorted(node.attr)]
    if node.device:
        attrs.append(f'_device="{node.device}"')
    return f"{{{{node {node.name}}}}} = {node.op}[{', '.join(attrs)}]({', '.join(node.input)})"


# TF 1.15 matches these patterns against str() of the bytes value ("b'...'") with re.match,
# so under Python 3 they never match and nothing is stripped; the same test is kept here so
# that a graph compares equal or not exactly as in TF.
_SHARDED_SAVE_OP_PATTERN = re.compile(r"_temp_[0-9a-z]{32}/part")
_TABLE_SHARED_NAME_PATTERN = re.compile(r"hash_table_[0-9a-z\-]+")


def _strip_checkpoint_v2_randomized(graph_def: Any) -> None:
    for node in graph_def.node:
        for key in list(node.attr):
            tensor = node.attr[key].tensor
            value = tensor.string_val[0] if len(tensor.string_val) == 1 else b""
            if value and _SHARDED_SAVE_OP_PATTERN.match(str(value)):
                del node.attr[key]


def _strip_hash_table_shared_name(graph_def: Any) -> None:
    for node in graph_def.node:
        shared = node.attr["shared_name"].s if "shared_name" in node.attr else b""
        if node.op == "HashTableV2" and _TABLE_SHARED_NAME_PATTERN.match(str(shared)):
            del node.attr["shared_name"]
