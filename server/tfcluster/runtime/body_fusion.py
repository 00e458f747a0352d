"""Fusions of a function body's gradient chains, which a loop's gradient body runs once per
iteration (a Keras LSTM's: 28 times per training step).

- The gradient of clip_by_value (TF's _MaximumMinimumGrad, twice):
      Select(Cmp1(a1, k1), Select(Cmp2(a2, k2), g, zeros), zeros)
  becomes one `_FusedSelectOfCompares` node (named as the outer Select) that computes
  where(Cmp1(a1, k1) & Cmp2(a2, k2), g, zeros): the same value at every element (the outer
  else and the inner else are the same constant), with one where in place of two (numpy's
  where on a float32 batch costs three of its multiplications) and one kernel call in place
  of four. Both elses must be Consts holding the same bytes: a gradient body's `zeros`, once
  the shape specialization (runtime/shape_specialization.py) has made them constants.
- The gradient of slicing one tensor into parts (an LSTM's four gates of one product):
      AddN(StridedSliceGrad(shape, b1, e1, s1, dy1), ..., StridedSliceGrad(shape, bn, ...))
  becomes one `_FusedAddNOfStridedSliceGrads` node (named as the AddN) that writes each dy
  into its slice of one output, plus zero: where the slices do not overlap each element of
  the sum is one dy's value plus zeros, so dy + 0 is the sum's value (-0.0 included, which
  the sum makes +0.0). The kernel checks the slices, and computes the parts and their sum
  as before where they overlap.

- Products of one matrix by several others (an LSTM's four gates: h times each gate's block
  of the recurrent kernel, x times each block of the kernel, once per iteration):
      MatMul(a, b1), ..., MatMul(a, bn)
  become one `_FusedMatMuls` node (named as the first product, the others Identities of its
  outputs) that, where the b's are side by side column blocks of one matrix (the slices of
  a variable's value the loop reads), makes one product of a with the whole block and hands
  out its column blocks; elsewhere the n products as before. Only float32 products of more
  than one row by blocks of a multiple of 16 columns (kernels/fused_products.py): BLAS's,
  whose each element is then the same sum over the contracted dimension in either form.

A chain fuses only where its inner nodes have no other reader, are neither fetched nor
targeted, and carry no control edges. The fused node keeps the last node's name, so its
readers and the body's results see it as before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.runtime.graph_ir import Node, split_tensor_name

FUSED_SELECT = "_FusedSelectOfCompares"
FUSED_SLICE_GRADS = "_FusedAddNOfStridedSliceGrads"
FUSED_MATMULS = "_FusedMatMuls"
COMPARES = frozenset({"Less", "LessEqual", "Greater", "GreaterEqual"})
# The StridedSliceGrad attrs the fused node keeps, one list entry per part.
SLICE_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


class _Uses:
    """How often each node's outputs are read by the nodes the results need (a gradient body
    holds nodes nothing reads: the gradient of clip_by_value's constant bounds), and the
    nodes that must stay as they are."""

    def __init__(self, nodes: Sequence[Node], fetches: Sequence[str], targets: Sequence[str]):
        self.by_name = {n.name: n for n in nodes}
        self.pinned = {split_tensor_name(t)[0] for t in fetches} | set(targets)
        needed: set[str] = set()
        stack = [name for name in self.pinned if name in self.by_name]
        while stack:
            name = stack.pop()
            if name in needed:
                continue
            needed.add(name)
            node = self.by_name[name]
            stack += [src for src, _ in node.inputs if src in self.by_name]
            stack += [c for c in node.control_inputs if c in self.by_name]
        self.reads = Counter(src for n in nodes if n.name in needed for src, _ in n.inputs)
        self.pinned |= {c for n in nodes for c in n.control_inputs}

    def inner(self, src: tuple[str, int], op: str | frozenset[str]) -> Node | None:
        """The node making `src` when it is an op of that type that only the chain reads."""
        node = self.by_name.get(src[0])
        if node is None or src[1] != 0 or node.control_inputs or node.name in self.pinned:
            return None
        if (node.op != op) if isinstance(op, str) else (node.op not in op):
            return None
        return node if self.reads[node.name] == 1 else None

    def const(self, src: tuple[str, int]) -> np.ndarray | None:
        node = self.by_name.get(src[0])
        if node is None or node.op != "Const" or src[1] != 0:
            return None
        value = node.attrs.get("value")
        return value if isinstance(value, np.ndarray) else None


def _same_bytes(a: np.ndarray, b: np.ndarray | None) -> bool:
    return (
        b is not None and a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    )


def _fused_select(outer: Node, uses: _Uses) -> tuple[Node, list[str]] | None:
    if outer.control_inputs or len(outer.inputs) != 3:
        return None
    c1 = uses.inner(outer.inputs[0], COMPARES)
    inner = uses.inner(outer.inputs[1], "Select")
    if c1 is None or inner is None or len(inner.inputs) != 3:
        return None
    c2 = uses.inner(inner.inputs[0], COMPARES)
    if c2 is None or len(c1.inputs) != 2 or len(c2.inputs) != 2:
        return None
    otherwise = uses.const(outer.inputs[2])
    if otherwise is None or not _same_bytes(otherwise, uses.const(inner.inputs[2])):
        return None
    attrs: dict[str, Any] = {
        "T": outer.attrs.get("T"),
        "outer_compare": c1.op,
        "outer_compare_T": c1.attrs.get("T"),
        "inner_compare": c2.op,
        "inner_compare_T": c2.attrs.get("T"),
        # zeros (all bits 0): the kernel can take g's bits under the mask
        "else_is_zero": not otherwise.tobytes().strip(b"\0"),
    }
    inputs = [*c1.inputs, *c2.inputs, inner.inputs[1], outer.inputs[2]]
    fused = Node(outer.name, FUSED_SELECT, inputs, [], outer.device, attrs)
    return fused, [c1.name, inner.name, c2.name]


def _fused_slice_grads(add: Node, uses: _Uses) -> tuple[Node, list[str]] | None:
    if add.control_inputs or len(add.inputs) < 2:
        return None
    parts = [uses.inner(src, "StridedSliceGrad") for src in add.inputs]
    if any(p is None or len(p.inputs) != 5 for p in parts):
        return None
    # Constant slice specs (a specialized body's): the kernel works out their layout once.
    if any(uses.const(t) is None for p in parts if p is not None for t in p.inputs[:4]):
        return None
    # (one reader each, so no part appears twice)
    ready = [p for p in parts if p is not None]
    attrs: dict[str, Any] = {
        "T": add.attrs.get("T"),
        "N": len(ready),
        "Index": ready[0].attrs.get("Index"),
        "addn_op": add.op,
    }
    for mask in SLICE_MASKS:
        attrs[mask + "s"] = [int(p.attrs.get(mask, 0)) for p in ready]
    inputs = [t for p in ready for t in p.inputs]
    return Node(add.name, FUSED_SLICE_GRADS, inputs, [], add.device, attrs), [p.name for p in ready]


def _plain_float32_product(n: Node) -> bool:
    return (
        n.op == "MatMul"
        and len(n.inputs) == 2
        and not n.control_inputs
        and not n.attrs.get("transpose_a", False)
        and not n.attrs.get("transpose_b", False)
        and _dtype_name(n.attrs.get("T")) == "float32"
    )


def _dtype_name(value: Any) -> str:
    try:
        return dtypes.as_dtype(value).name
    except (TypeError, ValueError, KeyError):
        return ""


def _fused_products(nodes: Sequence[Node]) -> list[Node]:
    """The products of one matrix by several others, each group as a _FusedMatMuls node and
    Identities of its outputs (the same list where no group is found)."""
    groups: dict[tuple[str, int], list[Node]] = {}
    for n in nodes:
        if _plain_float32_product(n):
            groups.setdefault(n.inputs[0], []).append(n)
    groups = {a: g for a, g in groups.items() if len(g) > 1}
    if not groups:
        return list(nodes)
    readers: dict[str, list[str]] = {}
    for n in nodes:
        for src in [s for s, _ in n.inputs] + list(n.control_inputs):
            readers.setdefault(src, []).append(n.name)
    replaced: dict[str, Node] = {}
    for group in groups.values():
        # A b made from one of the products would wait for the fused node: a cycle.
        after = _reached_from([g.name for g in group], readers)
        if any(g.inputs[1][0] in after for g in group):
            continue
        first = group[0]
        attrs = {"T": first.attrs.get("T"), "N": len(group)}
        inputs = [first.inputs[0], *(g.inputs[1] for g in group)]
        replaced[first.name] = Node(first.name, FUSED_MATMULS, inputs, [], first.device, attrs)
        for j, g in enumerate(group[1:], start=1):
            id_attrs = {"T": g.attrs.get("T")}
            replaced[g.name] = Node(g.name, "Identity", [(first.name, j)], [], g.device, id_attrs)
    return [replaced.get(n.name, n) for n in nodes]


def _reached_from(names: Sequence[str], readers: dict[str, list[str]]) -> set[str]:
    seen: set[str] = set()
    stack = list(names)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack += readers.get(name, [])
    return seen


def fuse_body(nodes: Sequence[Node], fetches: Sequence[str], targets: Sequence[str]) -> list[Node]:
    """The body's nodes with the chains above fused (the same list where none is found)."""
    nodes = _fused_products(nodes)
    uses = _Uses(nodes, fetches, targets)
    replaced: dict[str, Node] = {}
    gone: set[str] = set()
    for n in nodes:
        if n.name in gone:
            continue
        if n.op == "Select":
            found = _fused_select(n, uses)
        elif n.op == "AddN":
            found = _fused_slice_grads(n, uses)
        else:
            continue
        if found is None or any(name in gone or name in replaced for name in found[1]):
            continue
        replaced[n.name] = found[0]
        gone.update(found[1])
    if not replaced:
        return list(nodes)
    return [replaced.get(n.name, n) for n in nodes if n.name not in gone]


__all__ = [
    "COMPARES",
    "FUSED_MATMULS",
    "FUSED_SELECT",
    "FUSED_SLICE_GRADS",
    "SLICE_MASKS",
    "fuse_body",
]
