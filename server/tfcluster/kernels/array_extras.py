"""Kernels over xp of the array ops added with tf.broadcast_to, tf.unravel_index,
tf.identity_n, tf.parallel_stack, tf.ensure_shape, tf.guarantee_const, tf.bitcast and
tf.sparse_matmul."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import memory_budget
from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def _broadcast_dims(a: list[int], b: list[int]) -> list[int] | None:
    """numpy's broadcast of two shapes, or None when they do not broadcast."""
    try:
        return [int(d) for d in np.broadcast_shapes(tuple(a), tuple(b))]
    except ValueError:
        return None


@kernel("BroadcastTo", host=(1,))
def broadcast_to(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, shape = ins
        target = u.host_ints(shape)
        if any(d < 0 for d in target):
            raise u.invalid(f"Broadcast target shape {u.shape_str(target)} has a negative size")
        have = list(x.shape)
        # The target must be what x and the target broadcast to (x cannot grow it).
        if len(have) > len(target) or _broadcast_dims(have, target) != target:
            raise u.invalid(f"Incompatible shapes: {u.shape_str(have)} vs. {u.shape_str(target)}")
        # The shape is the caller's word: it may ask for more memory than there is.
        memory_budget.check_shape(target, x.dtype, "BroadcastTo's output")
        # A materialised copy: consumers may update their inputs' buffers in place.
        # (.copy(), not ascontiguousarray: that makes a 0-d result 1-d.)
        return (xp.broadcast_to(x, tuple(target)).copy(),)

    return compute


@kernel("BroadcastArgs", all_host=True)
def broadcast_args(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        s0, s1 = (u.host(v) for v in ins)
        if s0.ndim != 1 or s1.ndim != 1:
            raise u.invalid(
                f"In[0] and In[1] must be vectors, got shapes {u.shape_str(s0.shape)} and "
                f"{u.shape_str(s1.shape)}"
            )
        a, b = [int(d) for d in s0], [int(d) for d in s1]
        out = _broadcast_dims(a, b)
        if out is None:
            raise u.invalid(f"Incompatible shapes: {u.shape_str(a)} vs. {u.shape_str(b)}")
        return (np.array(out, dtype=s0.dtype),)

    return compute


@kernel("UnravelIndex", devices=("CPU",))
def unravel_index(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        indices, dims = ins
        if dims.ndim != 1:
            raise u.invalid(f"Expected dimension to be a vector, got shape {dims.shape}")
        if indices.ndim > 1:
            raise u.invalid(f"Expected indices to be a scalar or vector, got {indices.shape}")
        if xp.any(dims <= 0):
            raise u.invalid("All dimensions must be positive")
        size = int(xp.prod(dims.astype(np.int64)))
        if indices.size and (int(indices.min()) < 0 or int(indices.max()) >= size):
            raise u.invalid(f"index out of bounds for dims {u.shape_str(u.host_ints(dims))}")
        coords = xp.unravel_index(indices.astype(np.int64), tuple(u.host_ints(dims)))
        return (xp.stack(coords).astype(indices.dtype),)

    return compute


@kernel("IdentityN", keep_inputs=True)
@kernel("GuaranteeConst", keep_inputs=True)
def passthrough(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return tuple(ins)

    return compute


@kernel("EnsureShape", keep_inputs=True)
def ensure_shape(node: Any, xp: Any) -> Compute:
    shape = node.attrs["shape"]
    dims = None if shape.ndims is None else shape.as_list()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        got = list(x.shape)
        if dims is not None and (
            len(got) != len(dims) or any(d is not None and d != g for d, g in zip(dims, got))
        ):
            want = "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
            raise u.invalid(
                f"Shape of tensor {node.name} {u.shape_str(got)} is not compatible with "
                f"expected shape {want}."
            )
        return (x,)

    return compute


@kernel("ParallelConcat")
def parallel_concat(node: Any, xp: Any) -> Compute:
    want = node.attrs["shape"].as_list()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        out = xp.concatenate(ins, axis=0)
        if list(out.shape) != want:
            raise u.invalid(
                f"The inputs of ParallelConcat make shape {u.shape_str(out.shape)}, not the "
                f"shape attribute {u.shape_str(want)}"
            )
        return (out,)

    return compute


@kernel("Bitcast")
def bitcast(node: Any, xp: Any) -> Compute:
    src = u.np_dtype(node, "T")
    dst = u.np_dtype(node, "type")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.ascontiguousarray(ins[0])
        if src.itemsize > dst.itemsize:
            return (x.reshape((*x.shape, 1)).view(dst),)
        if src.itemsize < dst.itemsize:
            ratio = dst.itemsize // src.itemsize
            if x.ndim == 0 or x.shape[-1] != ratio:
                last = x.shape[-1] if x.ndim else 0
                raise u.invalid(f"Cannot bitcast due to shape. {last} does not match {ratio}")
            return (x.view(dst).reshape(x.shape[:-1]),)
        return (x.view(dst),)

    return compute


@kernel("SparseMatMul")
def sparse_matmul(node: Any, xp: Any) -> Compute:
    ta, tb = bool(node.attrs["transpose_a"]), bool(node.attrs["transpose_b"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        a, b = ins
        a = a.T if ta else a
        b = b.T if tb else b
        if a.shape[1] != b.shape[0]:
            raise u.invalid(
                f"Matrix size-incompatible: In[0]: {u.shape_str(a.shape)}, In[1]: "
                f"{u.shape_str(b.shape)}"
            )
        return (xp.matmul(a.astype(np.float32), b.astype(np.float32)),)

    return compute
