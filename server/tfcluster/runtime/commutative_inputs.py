"""AddN's inputs in the order TensorFlow's arithmetic optimizer (grappler) gives them.

Before a step's graph runs, TF 1.15's arithmetic optimizer canonicalizes every node of a
commutative op: its data inputs sorted by their input strings ("name", or "name:k" for output
k). For AddN this changes the result's last bits: its kernel adds left to right, so a gradient
that tf.gradients aggregates from three or more paths (the four of
sigmoid_cross_entropy_with_logits) is summed in the order of its inputs' names, not in the
order the paths reached it. Binary commutative ops give the same value either way, so only
AddN nodes with three or more data inputs are rewritten here.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace

from tfcluster.runtime.graph_ir import Node


def _input_string(src: str, index: int) -> str:
    return src if index == 0 else f"{src}:{index}"


def sorted_addn_inputs(nodes: Mapping[str, Node], needed: Collection[str]) -> dict[str, Node]:
    """The `needed` AddN nodes whose data inputs TF's canonicalization reorders, with their
    inputs in that order, by name."""
    out: dict[str, Node] = {}
    for name in needed:
        node = nodes[name]
        if node.op != "AddN" or len(node.inputs) < 3:
            continue
        ordered = sorted(node.inputs, key=lambda i: _input_string(*i))
        if ordered != node.inputs:
            out[name] = replace(node, inputs=ordered)
    return out
