"""Additions of zero replaced by their other operand, as TF 1.15's constant folding
simplifies them (ConstantFolding::SimplifyArithmeticOperations).

`x + 0`, `0 + x` and `x - 0` with a scalar constant 0 become an Identity of x (the constant
kept as a control input), which TF's dependency optimizer then bypasses, so a constant
multiplied after them meets the product before them: the second round of constant push-down
folds `(r * 0.9 + 0.0) * 0.1` (tf.random_normal with stddev 0.9 and the default mean, times a
constant) into `r * (0.9 * 0.1)`, which rounds otherwise. TF treats products by one (`x * 1`,
a gradient's `Fill(1) * x`) alike, but where its later passes take those is not known here (a
loop's gradients rounded otherwise than TF's when they were forwarded too): they stay.

TF makes it a Snapshot instead (which nothing bypasses, its value the same but for the sign
of a zero) where the step's graph holds an op that takes a reference input (a ref variable's
assign or optimizer update, a first-version queue's enqueue) or works in place; such steps
are left alone here. TF checks the shapes (the forwarded operand's must be the output's, which
a scalar constant never changes where the operand's rank is known); the master has none, so
only scalar constants count. Fetched, fed and targeted nodes stay.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

import numpy as np

from tfcluster.runtime.graph_ir import Node, split_tensor_name

_ADDS = frozenset({"Add", "AddV2"})
# Ops whose TF definition takes a reference input (Ref(...)): ref-variable writes, the ops of
# queues, readers, TensorArrays, stacks, barriers, accumulators and tables of the first
# version (string handles by reference), and reference control flow. Resource ops do not
# count (TF's ModifiesInputsInPlace leaves out even the resource assigns).
_REF_PREFIXES = (
    "Apply",
    "SparseApply",
    "Scatter",
    "Queue",
    "Reader",
    "TensorArray",
    "Stack",
    "Barrier",
    "Accumulator",
    "SparseAccumulator",
    "LookupTable",
    "InitializeTable",
    "Ref",
)
_REF_OPS = frozenset(
    {
        "Assign",
        "AssignAdd",
        "AssignSub",
        "CountUpTo",
        "IsVariableInitialized",
        "DestroyTemporaryVariable",
        "StridedSliceAssign",
        "SdcaShrinkL1",
    }
)


def _writes_inputs(node: Node) -> bool:
    """TF's HasRefInput or ModifiesInputsInPlace for the node's op."""
    op = node.op
    if "inplace" in op.lower() or node.attrs.get("in_place") or node.attrs.get("inplace"):
        return True
    if op in _REF_OPS:
        return True
    return op.startswith(_REF_PREFIXES) and not op.endswith(("V2", "V3"))


def _scalar_constant(node: Node, fed: set[str], name: str) -> float | None:
    if node.op != "Const" or f"{name}:0" in fed:
        return None
    value = node.attrs.get("value")
    if not isinstance(value, np.ndarray) or value.shape != () or value.dtype.kind not in "iuf":
        return None
    return float(value)


def forward_neutral_operands(
    nodes: Mapping[str, Node],
    needed: Sequence[str],
    feeds: Collection[str],
    fetches: Collection[str],
    targets: Collection[str],
) -> dict[str, Node]:
    """The `needed` nodes that add or subtract a zero, as Identities of their other operand,
    by name (none where the step holds an op with a reference input)."""
    if any(_writes_inputs(nodes[name]) for name in needed):
        return {}
    fed = set(feeds)
    pinned = {split_tensor_name(t)[0] for t in (*feeds, *fetches)} | set(targets)
    out: dict[str, Node] = {}
    for name in needed:
        node = nodes[name]
        if name in pinned or len(node.inputs) != 2:
            continue
        (x, xi), (y, yi) = node.inputs
        if xi != 0 and yi != 0:
            continue
        x_value = _scalar_constant(nodes[x], fed, x) if xi == 0 else None
        y_value = _scalar_constant(nodes[y], fed, y) if yi == 0 else None
        keep: int | None = None
        if node.op in _ADDS:
            keep = 0 if y_value == 0.0 else 1 if x_value == 0.0 else None
        elif node.op == "Sub":
            keep = 0 if y_value == 0.0 else None
        if keep is None or (x_value is not None and y_value is not None):
            continue
        kept, dropped = node.inputs[keep], node.inputs[1 - keep]
        attrs = {k: v for k, v in node.attrs.items() if k == "T" or k.startswith("_")}
        out[name] = replace(
            node,
            op="Identity",
            inputs=[kept],
            control_inputs=[*node.control_inputs, dropped[0]],
            attrs=attrs,
        )
    return out
