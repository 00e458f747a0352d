"""Kernels of the gradient chains a function body fuses (runtime/body_fusion.py explains
the rewrite and why the values are the same). Each keeps the kernels of the nodes it
replaces and runs them, one after the other, wherever its own shortcut does not apply
(other shapes, overlapping slices): the same values and the same errors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.array import _Masks, _strided_index
from tfcluster.kernels.common import Compute, LastHostInputs, host_ints
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.runtime import kernel_table
from tfcluster.runtime.body_fusion import FUSED_SELECT, FUSED_SLICE_GRADS, SLICE_MASKS
from tfcluster.runtime.graph_ir import Node


def _kernel_of(name: str, op: str, num_inputs: int, attrs: dict[str, Any]) -> Compute:
    """The CPU kernel of one node the fused node replaced."""
    node = Node(name, op, [("", 0)] * num_inputs, [], "", attrs)
    fn: Compute = kernel_table.lookup(op, "CPU").factory(node)
    return fn


@kernel(FUSED_SELECT, devices=CPU_ONLY)
def fused_select_of_compares(node: Any, xp: Any) -> Compute:
    """Select(Cmp1(a1, k1), Select(Cmp2(a2, k2), g, e), e) as where(both masks, g, e)."""
    a = node.attrs
    outer_cmp = _kernel_of(node.name, a["outer_compare"], 2, {"T": a["outer_compare_T"]})
    inner_cmp = _kernel_of(node.name, a["inner_compare"], 2, {"T": a["inner_compare_T"]})
    select = _kernel_of(node.name, "Select", 3, {"T": a["T"]})
    else_zero = bool(a.get("else_is_zero", False))

    def compute(ctx: Any, ins: list[Any]) -> Sequence[Any]:
        a1, k1, a2, k2, g, e = ins
        inner_mask = inner_cmp(ctx, [a2, k2])[0]
        outer_mask = outer_cmp(ctx, [a1, k1])[0]
        if (
            type(g) is np.ndarray
            and type(e) is np.ndarray
            and type(inner_mask) is np.ndarray
            and type(outer_mask) is np.ndarray
            and g.shape == e.shape == inner_mask.shape == outer_mask.shape
        ):
            mask = np.logical_and(outer_mask, inner_mask, out=outer_mask)
            floats = else_zero and g.dtype.kind == "f" and g.dtype == e.dtype
            bits = _BITS.get(g.dtype.itemsize) if floats else None
            if bits is None:
                return (np.where(mask, g, e),)
            # g's bits where the mask holds, else 0 bits (e's): where()'s values, without
            # its branch per element (a third of its time on a 128 x 32 batch).
            keep = mask.astype(bits)
            np.negative(keep, out=keep)
            np.bitwise_and(keep, g.view(bits), out=keep)
            return (keep.view(g.dtype),)
        inner = select(ctx, [inner_mask, g, e])[0]
        return select(ctx, [outer_mask, inner, e])

    return compute


# Item size -> the integer type whose bits a float of that size is viewed as.
_BITS: dict[int, np.dtype[Any]] = {4: np.dtype(np.int32), 8: np.dtype(np.int64)}


class _Layout:
    """Where each part's dy lands in the sum, for one set of slice specs."""

    __slots__ = ("covers_all", "indices", "shape", "target_shapes")

    def __init__(self, shape: tuple[int, ...], indices: list[Any], covers_all: bool) -> None:
        self.shape = shape
        self.indices = indices
        self.covers_all = covers_all
        probe = np.broadcast_to(np.zeros((), np.uint8), shape)
        self.target_shapes = [probe[i].shape for i in indices]


def _layout(specs: list[Any], masks: list[_Masks]) -> _Layout | None:
    """The parts' slices of one output shape, when they do not overlap (None otherwise, or
    where the parts' shapes differ or a spec is bad: the parts' own kernels say what)."""
    shapes = {tuple(host_ints(specs[4 * k])) for k in range(len(masks))}
    if len(shapes) != 1:
        return None
    (shape,) = shapes
    if any(d < 0 for d in shape):
        return None
    cover = np.zeros(shape, np.uint8)
    indices = []
    try:
        for k, m in enumerate(masks):
            begin, end, strides = specs[4 * k + 1 : 4 * k + 4]
            index = _strided_index(shape, begin, end, strides, m)
            cover[index] += 1
            indices.append(index)
    except (errors.OpError, ValueError, TypeError, IndexError):
        # a bad spec: the parts' kernels raise TF's error for it
        return None
    if cover.size and int(cover.max()) > 1:
        return None
    return _Layout(shape, indices, bool(cover.size == 0 or cover.min() == 1))


@kernel(FUSED_SLICE_GRADS, devices=CPU_ONLY)
def fused_add_n_of_strided_slice_grads(node: Any, xp: Any) -> Compute:
    """AddN(StridedSliceGrad(shape, begin_k, end_k, strides_k, dy_k) for each k): each dy + 0
    written into its slice where the slices do not overlap."""
    a = node.attrs
    n = int(a["N"])
    part_attrs = [
        {"T": a["T"], "Index": a["Index"], **{m: a[m + "s"][k] for m in SLICE_MASKS}}
        for k in range(n)
    ]
    masks = [_Masks(p) for p in part_attrs]
    parts = [_kernel_of(node.name, "StridedSliceGrad", 5, p) for p in part_attrs]
    add_n = _kernel_of(node.name, a["addn_op"], n, {"T": a["T"], "N": n})
    last = LastHostInputs()

    def compute(ctx: Any, ins: list[Any]) -> Sequence[Any]:
        specs = [v for k in range(n) for v in ins[5 * k : 5 * k + 4]]
        dys = ins[4::5]
        layout = last.get(*specs)
        if layout is None:
            layout = _layout(specs, masks) or False  # False: the parts' kernels run
            last.keep(tuple(specs), layout)
        if layout and _fits(dys, layout):
            dtype = dys[0].dtype
            out = (np.empty if layout.covers_all else np.zeros)(layout.shape, dtype)
            for dy, index, target in zip(dys, layout.indices, layout.target_shapes):
                out[index] = dy.reshape(target)
            # + 0 once over the whole (a copy into a slice is faster than an addition into
            # it): the sum's -0.0 + 0 = +0.0.
            return (np.add(out, dtype.type(0), out=out),)
        return add_n(ctx, [part(ctx, ins[5 * k : 5 * k + 5])[0] for k, part in enumerate(parts)])

    return compute


def _fits(dys: list[Any], layout: _Layout) -> bool:
    """Float arrays of one dtype, each with its slice's number of values."""
    dtype = getattr(dys[0], "dtype", None)
    if dtype is None or dtype.kind != "f":
        return False
    for dy, target in zip(dys, layout.target_shapes):
        if type(dy) is not np.ndarray or dy.dtype != dtype or dy.size != math.prod(target):
            return False
    return True
