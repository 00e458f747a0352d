"""Pow by a constant exponent computed as TF 1.15's arithmetic optimizer (grappler's
ConvertPowStage) rewrites it before a step runs.

tf.pow(x, 2.0), `x ** 3` or a gradient's pow(x, y - 1) whose exponent is a constant (after
constant folding) with every element equal does not reach TF's Pow kernel (glibc's powf on
CPU): 2 becomes Square(x), 3 becomes Mul(x, Square(x)) (on CPU only), 0.5 becomes Sqrt(x),
-0.5 Rsqrt(x) and -1 Reciprocal(x). These round otherwise than powf (x * x * x is two
roundings; Sqrt and Rsqrt are Eigen's packet forms), so a polynomial regression printed other
costs. The node keeps its name (it may be fetched itself); the exponent stays as a control
input. TF also turns 1 into Identity and 0 into ones, which give powf's values anyway and are
left as they are. Only in graphs of at least four nodes, counted over the whole graph (TF's
meta optimizer skips smaller ones; a three-node graph x, 3.0, x ** 3 keeps its Pow).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

import numpy as np

from tfcluster.runtime.graph_ir import Node

# TF's meta optimizer skips graphs with fewer nodes (kDefaultMinGraphNodes).
MIN_GRAPH_NODES = 4

_BY_EXPONENT = {2.0: "Square", 0.5: "Sqrt", -0.5: "Rsqrt", -1.0: "Reciprocal"}


def _constant_exponent(node: Node | None, fed: Collection[str]) -> float | None:
    """The one value every element of a Const node holds, or None."""
    if node is None or node.op != "Const" or f"{node.name}:0" in fed:
        return None
    value = node.attrs.get("value")
    if value is None:
        return None
    arr = np.asarray(value)
    if arr.size == 0 or arr.dtype.kind not in "fc":
        return None
    first = arr.reshape(-1)[0]
    if not bool(np.all(arr == first)) or complex(first).imag != 0:
        return None
    return float(complex(first).real)


def _cube_name(name: str) -> str:
    scope, _, base = name.rpartition("/")
    prefix = f"{scope}/" if scope else ""
    return f"{prefix}ArithmeticOptimizer/ConvertPow_{base}_inner"


def rewrite_constant_powers(
    nodes: Mapping[str, Node], needed: Sequence[str], feeds: Collection[str]
) -> dict[str, Node]:
    """The rewritten Pow nodes (and the inner Squares of cubes), by name."""
    if len(nodes) < MIN_GRAPH_NODES:
        return {}
    fed = set(feeds)
    out: dict[str, Node] = {}
    for name in needed:
        node = nodes[name]
        if node.op != "Pow" or len(node.inputs) != 2:
            continue
        dtype = node.attrs.get("T")
        if dtype is None or not getattr(dtype, "is_floating", False):
            continue
        (x_src, x_index), (y_src, _) = node.inputs
        exponent = _constant_exponent(nodes.get(y_src), fed)
        if exponent is None:
            continue
        controls = [*node.control_inputs, y_src]
        op = _BY_EXPONENT.get(exponent)
        if op is not None:
            out[name] = replace(node, op=op, inputs=[(x_src, x_index)], control_inputs=controls)
        elif exponent == 3.0 and "GPU" not in node.device.upper():
            inner = _cube_name(name)
            if inner in nodes:
                continue
            out[inner] = replace(
                node, name=inner, op="Square", inputs=[(x_src, x_index)], control_inputs=[]
            )
            out[name] = replace(
                node, op="Mul", inputs=[(x_src, x_index), (inner, 0)], control_inputs=controls
            )
    return out
