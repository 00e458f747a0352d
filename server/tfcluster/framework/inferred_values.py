"""Values TF's C++ shape inference knows while building a graph, beyond tensor_util's
constant_value (TF's Python one): the shape refiner evaluates small constant subgraphs
(ShapeRefiner::EvaluateConstantTensorForEdge), so a reduction by BroadcastGradientArgs of two
known shapes, or by axes (axes + rank) % rank, gets a known shape (a Maximum's or a Mean's
gradient in a graph a FileWriter writes). Only shape functions use these values: TF's
tf.get_static_value knows none of them."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import tensor_util

# Integer arithmetic of shape vectors the refiner folds (what gradients build on shapes).
_ARITHMETIC = {
    "Add": np.add,
    "AddV2": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "FloorMod": np.mod,
    "FloorDiv": np.floor_divide,
    "Maximum": np.maximum,
    "Minimum": np.minimum,
}
# Larger values stay unevaluated (the refiner's limit is on the subgraph, not reached here).
_MAX_VALUES = 1024


def broadcast_reduction_indices(s0: list[int], s1: list[int]) -> tuple[list[int], list[int]]:
    """BroadcastGradientArgs: the axes each side's gradient sums over (both where both are 1);
    ValueError for shapes that do not broadcast."""
    n = max(len(s0), len(s1))
    p0 = [1] * (n - len(s0)) + list(s0)
    p1 = [1] * (n - len(s1)) + list(s1)
    r0: list[int] = []
    r1: list[int] = []
    for i, (a, b) in enumerate(zip(p0, p1)):
        if a != b and a != 1 and b != 1:
            raise ValueError(f"Incompatible shapes: {list(s0)} vs. {list(s1)}")
        if a == 1:
            r0.append(i)
        if b == 1:
            r1.append(i)
    return r0, r1


def inferred_value(tensor: Any) -> np.ndarray | None:
    """The value shape inference sees for `tensor`, or None (also where evaluating fails: a
    graph's bad values are its kernels' errors to report, when they run)."""
    try:
        return _evaluated(tensor)
    except (ValueError, TypeError, OverflowError, MemoryError, IndexError, RecursionError):
        return None


def _evaluated(tensor: Any) -> np.ndarray | None:
    value = tensor_util.constant_value(tensor)
    if value is not None:
        return value
    op = getattr(tensor, "op", None)
    if op is None:
        return None
    if op.type == "BroadcastGradientArgs":
        s0, s1 = (inferred_value(t) for t in op.inputs)
        if s0 is None or s1 is None:
            return None
        try:
            reduced = broadcast_reduction_indices(s0.tolist(), s1.tolist())
        except ValueError:
            return None
        return np.array(reduced[tensor.value_index], dtype=s0.dtype)
    if op.type == "Fill":
        dims, fill = (inferred_value(t) for t in op.inputs)
        if dims is None or fill is None or dims.ndim != 1 or fill.ndim != 0:
            return None
        sizes = [int(d) for d in dims]
        if any(d < 0 for d in sizes) or math.prod(sizes) > _MAX_VALUES:
            return None
        return np.full(sizes, fill, dtype=fill.dtype)
    if op.type == "DynamicStitch":
        return _stitched(op)
    fn = _ARITHMETIC.get(op.type)
    if fn is None or len(op.inputs) != 2:
        return _by_kernel(tensor)
    a, b = (inferred_value(t) for t in op.inputs)
    if a is None or b is None or a.dtype.kind not in "iu" or b.dtype.kind not in "iu":
        return None
    if a.size > _MAX_VALUES or b.size > _MAX_VALUES:
        return None
    if op.type in ("FloorMod", "FloorDiv") and not np.all(b):
        return None
    return np.asarray(fn(a, b)).astype(a.dtype)


def _stitched(op: Any) -> np.ndarray | None:
    """DynamicStitch of known indices and data of at most one dimension, each data the shape
    of its indices (a reduced shape: the kept dimensions and ones at the reduced axes), later
    pieces overwriting earlier ones as TF's kernel."""
    n = len(op.inputs) // 2
    known = [inferred_value(t) for t in op.inputs]
    pieces: list[np.ndarray] = []
    for p in known:
        if p is None or p.ndim > 1:
            return None
        pieces.append(p.reshape(-1))  # scalar indices (one reduced axis) place scalar data
    indices, data = pieces[:n], pieces[n:]
    if any(i.shape != d.shape for i, d in zip(indices, data)):
        return None
    size = 1 + max((int(i.max()) for i in indices if i.size), default=-1)
    if size > _MAX_VALUES or any(i.size and int(i.min()) < 0 for i in indices):
        return None
    out = np.zeros(size, dtype=data[0].dtype)
    filled = np.zeros(size, dtype=bool)
    for i, d in zip(indices, data):
        out[i] = d
        filled[i] = True
    return out if filled.all() else None


# Whether an op's outputs were evaluated: absent, or the values (None where they are not).
_NOT_YET = object()


def _by_kernel(tensor: Any) -> np.ndarray | None:
    """A small constant subgraph's value by the CPU kernels, as TF's refiner runs one
    (EvaluateConstantTensor): ops whose value depends only on their inputs (constant
    folding's), each input known and small. Remembered per op (a graph only grows)."""
    op = tensor.op
    cached = op.__dict__.get("_inferred_outputs", _NOT_YET)
    if cached is _NOT_YET:
        cached = _kernel_outputs(op)
        op.__dict__["_inferred_outputs"] = cached
    return None if cached is None else cached[tensor.value_index]


# The runtime's evaluation of one op by its CPU kernel (tfcluster.runtime.constant_evaluation
# registers it: the framework does not import the layers above it). Without it, no value.
_kernel_evaluator: Callable[[Any, list[np.ndarray]], list[np.ndarray | None] | None] | None = None


def set_kernel_evaluator(
    evaluate: Callable[[Any, list[np.ndarray]], list[np.ndarray | None] | None],
) -> None:
    global _kernel_evaluator
    _kernel_evaluator = evaluate


def _kernel_outputs(op: Any) -> list[np.ndarray | None] | None:
    if _kernel_evaluator is None or not op.inputs:
        return None
    inputs = [inferred_value(t) for t in op.inputs]
    if any(v is None or v.size > _MAX_VALUES for v in inputs):
        return None
    outs = _kernel_evaluator(op, [v for v in inputs if v is not None])
    if outs is None:
        return None
    values: list[np.ndarray | None] = []
    for t, out in zip(op.outputs, outs):
        if out is None:
            values.append(None)
            continue
        value = np.array(out)
        # Integers, booleans and strings (a sparse tensor's values on the way to its shape).
        same = value.dtype == t.dtype.as_numpy_dtype and value.dtype.kind in "biuO"
        values.append(value if same and value.size <= _MAX_VALUES else None)
    return values
