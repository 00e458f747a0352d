"""Kernels of TF 1.15's older op types (ops/legacy_ops.py). An op whose semantics are exactly a
newer op's runs that op's kernel (registered under both names); one whose inputs differ (Concat's
axis first, Gather without an axis, TopK's k attr, MaxPoolV2's window as inputs) runs the newer
body on its inputs rearranged; the rest have their bodies here."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.kernels import array as _array
from tfcluster.kernels import (  # noqa: F401 - kernels aliased below must be registered first
    array_extras,
    in_place,
    linalg,
    math,
    nn,
    reordering,
    scatter_ops,
    spectral,
    state,
)
from tfcluster.kernels import ordering as _ordering
from tfcluster.kernels import pooling as _pooling
from tfcluster.kernels import sparse_serialization as _sparse_serialization
from tfcluster.kernels._window import Window
from tfcluster.kernels.common import host_array, host_ints, invalid, shape_str, typed
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.runtime import kernel_table, serving_state
from tfcluster.runtime.resources import VariableRef

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]

# Same semantics, same body (TF 1.15 registers a CPU kernel for each of these names). Those
# TF 1.15 no longer builds (removed from its GraphDef version: they come only from old
# GraphDefs) run on the CPU only.
_SAME_AS = {
    "Inv": "Reciprocal",
    "InvGrad": "ReciprocalGrad",
    "BiasAddV1": "BiasAdd",
    "Variable": "VariableV2",
    "PlaceholderV2": "Placeholder",
    "ScatterNdNonAliasingAdd": "TensorScatterAdd",
    "DebugGradientIdentity": "Identity",
    "RefIdentity": "Identity",
    "DebugGradientRefIdentity": "Identity",
    "BatchCholesky": "Cholesky",
    "BatchMatrixBandPart": "MatrixBandPart",
    "BatchMatrixDeterminant": "MatrixDeterminant",
    "BatchMatrixDiag": "MatrixDiag",
    "BatchMatrixDiagPart": "MatrixDiagPart",
    "BatchMatrixInverse": "MatrixInverse",
    "BatchMatrixSetDiag": "MatrixSetDiag",
    "BatchMatrixSolve": "MatrixSolve",
    "BatchMatrixSolveLs": "MatrixSolveLs",
    "BatchMatrixTriangularSolve": "MatrixTriangularSolve",
    "BatchSelfAdjointEigV2": "SelfAdjointEigV2",
    "BatchSvd": "Svd",
}
# BatchFFT/BatchIFFT (2D, 3D): TF 1.15 defines the ops but registers no kernel for them.
_REMOVED = frozenset({"PlaceholderV2", *(op for op in _SAME_AS if op.startswith("Batch"))})
for _old, _new in _SAME_AS.items():
    kernel_table.alias(_old, _new, ("CPU",) if _old in _REMOVED else None)


def _int_mod(xp: Any, x: Any, y: Any) -> Any:
    # Mod's integer kernel checks for zero (InvalidArgumentError), where TruncateMod's fails
    # inside the functor (InternalError); otherwise both are C++'s remainder (fmod).
    if not bool(xp.all(y)):
        raise invalid("Integer division by zero")
    return xp.fmod(x, y)


kernel("Mod")(math._binary_factory("fmod", _int_mod))


class _NodeView:
    """A node seen with other attrs (the window MaxPoolV2 takes as inputs)."""

    def __init__(self, node: Any, **attrs: Any) -> None:
        self._node = node
        self.attrs = {**node.attrs, **attrs}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._node, name)


# ---- matmul broadcasting its batch dimensions ----------------------------------------------


# ---- newer bodies, inputs rearranged -------------------------------------------------------


@kernel("Concat", host=[0])
def concat(node: Any, xp: Any) -> Compute:
    inner = _array.concat(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return inner(ctx, [*ins[1:], ins[0]])

    return compute


@kernel("Gather")
def gather(node: Any, xp: Any) -> Compute:
    inner = _array.gather(node, xp)
    axis = np.int32(0)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return inner(ctx, [ins[0], ins[1], axis])

    return compute


@kernel("TopK", devices=CPU_ONLY)
def top_k(node: Any, xp: Any) -> Compute:
    inner = _ordering.top_k(node, xp)
    k = np.int32(node.attrs["k"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return inner(ctx, [xp.asarray(ins[0]), k])

    return compute


@kernel("Reverse", host=[1])
def reverse(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        dims = host_array(ins[1])
        if dims.ndim != 1:
            raise invalid(f"'dims' must be 1-dimension, not {dims.ndim}")
        if dims.size != x.ndim:
            raise invalid(
                f"'dims' must have the same number of values as 'input' has dimensions. 'input' "
                f"has {x.ndim}'dims' has {dims.size} values"
            )
        if x.ndim > 8:
            raise invalid("reverse is not implemented for tensors of rank > 8.")
        axes = tuple(int(a) for a in np.nonzero(dims)[0])
        return (xp.flip(x, axis=axes) if axes else x,)

    return compute


@kernel("ConjugateTranspose", host=[1])
def conjugate_transpose(node: Any, xp: Any) -> Compute:
    inner = _array.transpose(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        (y,) = inner(ctx, ins)
        return (xp.conj(y) if y.dtype.kind == "c" else y,)

    return compute


def _window(node: Any, ksize: Any, strides: Any) -> Window:
    return Window(_NodeView(node, ksize=host_ints(ksize), strides=host_ints(strides)), 2, "ksize")


def _checked_window(node: Any, ksize: Any, strides: Any) -> Window:
    for name, v in (("ksize", ksize), ("strides", strides)):
        if host_array(v).size != 4:
            raise invalid(f"Sliding window {name} field must specify 4 dimensions")
    return _window(node, ksize, strides)


@kernel("MaxPoolV2", host=[1, 2])
def max_pool_v2(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        win = _checked_window(node, ins[1], ins[2])
        return (_pooling._max_pool(xp, win, xp.asarray(ins[0])),)

    return compute


def _max_pool_grad_v2(grad_grad: bool) -> Callable[[Any, Any], Compute]:
    fn = _pooling._max_pool_grad_grad if grad_grad else _pooling._max_pool_grad

    def factory(node: Any, xp: Any) -> Compute:
        cast = typed(node, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            win = _checked_window(node, ins[3], ins[4])
            x, y, g = (xp.asarray(v) for v in ins[:3])
            return (cast(fn(xp, win, x, y, g, True)),)

        return compute

    return factory


kernel("MaxPoolGradV2", host=[3, 4])(_max_pool_grad_v2(False))
kernel("MaxPoolGradGradV2", host=[3, 4])(_max_pool_grad_v2(True))


def _cpu_kernel_of(op: str, node: Any, **attrs: Any) -> Any:
    """The CPU compute of another op type for this node (bodies composed on the host)."""
    return kernel_table.lookup(op, "CPU").factory(_NodeView(node, **attrs))


def _conv3d_backprop_v1(v2: str, sized: int) -> Callable[[Any, Any], Compute]:
    """Conv3DBackpropInput/Filter take the tensor whose shape the V2 ops take as sizes."""

    def factory(node: Any, xp: Any) -> Compute:
        inner = _cpu_kernel_of(v2, node)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            args = list(ins)
            args[sized] = np.asarray(np.shape(ins[sized]), np.int32)
            return tuple(inner(ctx, args))

        return compute

    return factory


kernel("Conv3DBackpropInput", devices=CPU_ONLY)(_conv3d_backprop_v1("Conv3DBackpropInputV2", 0))
kernel("Conv3DBackpropFilter", devices=CPU_ONLY)(_conv3d_backprop_v1("Conv3DBackpropFilterV2", 1))


@kernel("FusedPadConv2D", devices=CPU_ONLY)
def fused_pad_conv2d(node: Any, xp: Any) -> Compute:
    pad = _cpu_kernel_of("MirrorPad", node)
    conv = _cpu_kernel_of("Conv2D", node, data_format="NHWC")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, paddings, filt = ins
        (padded,) = pad(ctx, [x, paddings])
        return tuple(conv(ctx, [padded, filt]))

    return compute


@kernel("FusedResizeAndPadConv2D", devices=CPU_ONLY)
def fused_resize_pad_conv2d(node: Any, xp: Any) -> Compute:
    align = bool(node.attrs.get("resize_align_corners", False))
    resize = _cpu_kernel_of("ResizeBilinear", node, align_corners=align, half_pixel_centers=False)
    pad = _cpu_kernel_of("MirrorPad", node)
    conv = _cpu_kernel_of("Conv2D", node, data_format="NHWC")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, size, paddings, filt = ins
        (resized,) = resize(ctx, [x, size])
        (padded,) = pad(ctx, [np.asarray(resized).astype(filt.dtype, copy=False), paddings])
        return tuple(conv(ctx, [padded, filt]))

    return compute


# ---- unique along an axis ------------------------------------------------------------------


def _unique_along(x: np.ndarray, axis_t: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """TF's UniqueV2: the distinct slices along `axis` in order of first appearance."""
    axis_v = host_array(axis_t)
    if axis_v.ndim != 1:
        raise invalid("axis expects a 1D vector.")
    if axis_v.size > 1:
        raise invalid("axis does not support input tensors larger than 1 elements")
    if axis_v.size == 0:
        if x.ndim != 1:
            raise invalid("unique expects a 1D vector.")
        axis = 0
    else:
        axis = int(axis_v[0])
        if axis < 0:
            axis += x.ndim
        if not 0 <= axis < x.ndim:
            raise invalid(f"axis has to be between [0, {x.ndim})")
    moved = np.moveaxis(x, axis, 0)
    rows = moved.reshape(moved.shape[0], -1)
    if x.dtype == object:
        keys = [tuple(r) for r in rows.tolist()]
    else:
        keys = [r.tobytes() for r in np.ascontiguousarray(rows)]
    first: dict[Any, int] = {}
    idx = np.array([first.setdefault(k, len(first)) for k in keys], dtype=np.int64)
    picks = np.zeros(len(first), np.int64)
    picks[idx[::-1]] = np.arange(idx.size)[::-1]
    counts = np.bincount(idx, minlength=len(first))
    y = np.moveaxis(moved[picks], 0, axis)
    return y, idx, counts


@kernel("UniqueV2", devices=CPU_ONLY)
def unique_v2(node: Any, xp: Any) -> Compute:
    idx_dtype = node.attrs.get("out_idx", dtypes.int32).as_numpy_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        y, idx, _ = _unique_along(np.asarray(ins[0]), ins[1])
        return (y, idx.astype(idx_dtype))

    return compute


@kernel("UniqueWithCountsV2", devices=CPU_ONLY)
def unique_with_counts_v2(node: Any, xp: Any) -> Compute:
    idx_dtype = node.attrs.get("out_idx", dtypes.int32).as_numpy_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        y, idx, counts = _unique_along(np.asarray(ins[0]), ins[1])
        return (y, idx.astype(idx_dtype), counts.astype(idx_dtype))

    return compute


# ---- elementwise ---------------------------------------------------------------------------


@kernel("ClipByValue")
def clip_by_value(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        t, lo, hi = (xp.asarray(v) for v in ins)
        for b in (lo, hi):
            if b.ndim != 0 and tuple(b.shape) != tuple(t.shape):
                raise invalid(
                    "clip_value_min and clip_value_max must be either of the same shape as "
                    f"input, or a scalar. input shape: {shape_str(t.shape)}clip_value_min "
                    f"shape: {shape_str(lo.shape)}clip_value_max shape: {shape_str(hi.shape)}"
                )
        return (xp.maximum(xp.minimum(t, hi), lo).astype(t.dtype, copy=False),)

    return compute


@kernel("ApproximateEqual")
def approximate_equal(node: Any, xp: Any) -> Compute:
    tolerance = float(node.attrs.get("tolerance", 1e-5))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, y = (xp.asarray(v) for v in ins)
        if tuple(x.shape) != tuple(y.shape):
            raise invalid(
                f"x and y must be of the same shape. x shape: {shape_str(x.shape)}. y shape: "
                f"{shape_str(y.shape)}"
            )
        return (xp.abs(x - y) < tolerance,)

    return compute


_BIT_WEIGHTS = np.array([128, 64, 32, 16, 8, 4, 2, 1], np.uint8)


@kernel("CompareAndBitpack")
def compare_and_bitpack(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, threshold = (xp.asarray(v) for v in ins)
        if threshold.ndim != 0:
            raise invalid(
                f"Compare threshold must be a scalar, but saw shape: {shape_str(threshold.shape)}"
            )
        if x.ndim < 1:
            raise invalid("Input should be at least a vector, but saw a scalar.")
        if x.shape[-1] % 8:
            raise invalid(
                "Inner dimension of input should be divisible by 8, but saw shape: "
                f"{shape_str(x.shape)}"
            )
        bits = (x > threshold).astype(np.uint8)
        bits = bits.reshape((*x.shape[:-1], x.shape[-1] // 8, 8))
        return ((bits * xp.asarray(_BIT_WEIGHTS)).sum(axis=-1).astype(np.uint8),)

    return compute


_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], np.uint8)


@kernel("PopulationCount")
def population_count(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.ascontiguousarray(xp.asarray(ins[0]))
        octets = x.reshape(-1).view(np.uint8).reshape((*x.shape, x.dtype.itemsize))
        counts = xp.asarray(_POPCOUNT)[octets].sum(axis=-1, dtype=np.uint8)
        return (counts.astype(np.uint8),)

    return compute


@kernel("NthElement", host=[1])
def nth_element(node: Any, xp: Any) -> Compute:
    reverse_ = bool(node.attrs.get("reverse", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        n_t = host_array(ins[1])
        if n_t.ndim != 0:
            raise invalid(f"N must be scalar, got shape {shape_str(n_t.shape)}")
        n = int(n_t)
        if n < 0:
            raise invalid(f"Need n >= 0, got {n}")
        if x.ndim < 1:
            raise invalid(f"Input must be >= 1-D, got shape {shape_str(x.shape)}")
        last = x.shape[-1]
        if last <= n:
            raise invalid(f"Input must have at least n+1 columns, but got {last}")
        k = last - 1 - n if reverse_ else n
        return (xp.partition(x, k, axis=-1)[..., k],)

    return compute


def _format_attr(node: Any, key: str, default: str) -> str:
    value = node.attrs.get(key, default)
    return value.decode() if isinstance(value, bytes) else str(value)


@kernel("DataFormatDimMap")
def data_format_dim_map(node: Any, xp: Any) -> Compute:
    src = _format_attr(node, "src_format", "NHWC")
    dst = _format_attr(node, "dst_format", "NCHW")
    if len(src) != 4 or len(dst) != 4:
        raise invalid(f"Source format must of length 4, received src_format = {src}")
    table = np.array([dst.index(c) for c in src], np.int64)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        return (xp.asarray(table)[xp.mod(x, 4)].astype(x.dtype),)

    return compute


@kernel("DataFormatVecPermute")
def data_format_vec_permute(node: Any, xp: Any) -> Compute:
    src = _format_attr(node, "src_format", "NHWC")
    dst = _format_attr(node, "dst_format", "NCHW")
    perm = [src.index(c) for c in dst]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        if x.ndim not in (1, 2):
            raise invalid(
                f"input must be a vector or 2D tensor, but got shape {shape_str(x.shape)}"
            )
        if x.ndim == 1 and x.shape[0] != 4:
            raise invalid(f"1D input must be of size 4, but got shape {shape_str(x.shape)}")
        if x.ndim == 2 and (x.shape[0] != 4 or x.shape[1] != 2):
            raise invalid(f"2D input must be of size 4 x 2, but got shape {shape_str(x.shape)}")
        return (x[perm],)

    return compute


# ---- copies and in-place updates of tensors ------------------------------------------------


@kernel("Snapshot")
@kernel("DeepCopy")
def copy(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (xp.array(ins[0], copy=True),)

    return compute


@kernel("Empty", host=[0])
def empty(node: Any, xp: Any) -> Compute:
    dtype = node.attrs["dtype"].as_numpy_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        shape = host_array(ins[0])
        if shape.ndim != 1:
            raise invalid(f"shape must be a vector of int32, got shape {shape_str(shape.shape)}")
        dims = [int(d) for d in shape]
        if any(d < 0 for d in dims):
            raise invalid(f"Dimension {min(dims)} must be >= 0")
        # TF leaves the memory uninitialized unless `init`; zeros are one such value.
        return (xp.zeros(dims, dtype=dtype),)

    return compute


def _inplace(mode: str) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x, i, v = (xp.asarray(a) for a in ins)
            rows = host_array(i)
            if rows.ndim != 1:
                raise invalid(f"i must be a vector. {shape_str(rows.shape)}")
            if x.ndim < 1:
                raise invalid(f"x must be at least 1-D: {shape_str(x.shape)}")
            if v.ndim != x.ndim:
                raise invalid(
                    f"x and v shape doesn't match (ranks differ): {shape_str(x.shape)} vs. "
                    f"{shape_str(v.shape)}"
                )
            if tuple(v.shape[1:]) != tuple(x.shape[1:]):
                raise invalid(
                    f"x and v shape doesn't match at index 1 : {shape_str(x.shape)} vs. "
                    f"{shape_str(v.shape)}"
                )
            if rows.size != v.shape[0]:
                raise invalid(
                    f"i and x shape doesn't match at index 0 : {shape_str(rows.shape)} vs. "
                    f"{shape_str(v.shape)}"
                )
            bad = (rows < 0) | (rows >= x.shape[0])
            if bad.any():
                raise invalid(f"Index {int(rows[bad][0])} is out of range")
            y = xp.array(x, copy=True)
            for j, r in enumerate(rows.tolist()):  # one row per index, in order, as TF
                if mode == "update":
                    y[r] = v[j]
                elif mode == "add":
                    y[r] += v[j]
                else:
                    y[r] -= v[j]
            return (y,)

        return compute

    return factory


kernel("InplaceAdd", host=[1])(_inplace("add"))
kernel("InplaceSub", host=[1])(_inplace("sub"))
kernel("InplaceUpdate", host=[1])(_inplace("update"))


def _no_broadcast(lhs: Any, rhs: Any) -> errors.OpError:
    return errors.UnimplementedError(
        None,
        None,
        f"sliced l-value shape {shape_str(lhs)} does not match r-value shape {shape_str(rhs)}. "
        "Automatic broadcasting not yet implemented.",
    )


@kernel("TensorStridedSliceUpdate", host=[1, 2, 3])
def tensor_strided_slice_update(node: Any, xp: Any) -> Compute:
    masks = _array._Masks(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, begin, end, strides, value = ins
        y = xp.array(xp.asarray(x), copy=True)
        index = _array._strided_index(y.shape, begin, end, strides, masks)
        target = y[index]
        value = xp.asarray(value)
        if tuple(target.shape) != tuple(value.shape):
            raise _no_broadcast(target.shape, value.shape)
        y[index] = value
        return (y,)

    return compute


# ---- references ------------------------------------------------------------------------------


@kernel("StridedSliceAssign", host=[1, 2, 3])
def strided_slice_assign(node: Any, xp: Any) -> Compute:
    """ref[begin:end:strides] = value, in the variable (RefVariable's slice assign)."""
    masks = _array._Masks(node.attrs)
    name = node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ref, begin, end, strides, value = ins
        value = xp.asarray(value)
        with ref.lock:
            target = in_place.writable_value(xp, ref, name)
            try:
                index = _array._strided_index(target.shape, begin, end, strides, masks)
                shape = tuple(target[index].shape)
                if shape != tuple(value.shape):
                    raise _no_broadcast(shape, value.shape)
                target[index] = value
            finally:
                in_place.done(ref, target)
                del target
        return (ref,)

    return compute


@kernel("RefSelect", keep_inputs=True, host=[0])
def ref_select(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        index = host_array(ins[0])
        if index.ndim != 0:
            raise invalid(f"Index must be a scalar, but it has shape {shape_str(index.shape)}")
        i = int(index)
        n = len(ins) - 1
        if not 0 <= i < n:
            raise invalid(f"Index must be in the range [0, {n}) but got {i}")
        return (ins[1 + i],)

    return compute


@kernel("TemporaryVariable", devices=CPU_ONLY)
def temporary_variable(node: Any, xp: Any) -> Compute:
    """A variable living for one run: its buffer is allocated (TF leaves it uninitialized,
    zeros here) and its value is taken by DestroyTemporaryVariable."""
    a = node.attrs
    dtype, shape = a["dtype"], a["shape"]
    name = a.get("var_name") or node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ref = VariableRef(name, dtype, shape)
        ref.value = np.zeros(shape.as_list(), dtype.as_numpy_dtype)
        return (ref,)

    return compute


@kernel("DestroyTemporaryVariable", devices=CPU_ONLY, keep_inputs=True)
def destroy_temporary_variable(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ref = ins[0]
        value = ref.read(node.name)
        ref.value = None
        return (value,)

    return compute


# ---- sparse (x) dense ----------------------------------------------------------------------


def _sparse_dense(fn: Callable[[Any, Any, Any], Any]) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            indices, values, dense = (xp.asarray(ins[i]) for i in (0, 1, 3))
            shape_t = host_array(ins[2])
            shape = tuple(int(d) for d in shape_t.reshape(-1))
            if indices.ndim != 2 or values.ndim != 1 or shape_t.ndim != 1:
                raise invalid(
                    "Inputs sp_indices, sp_values and sp_shape must be a matrix, a vector and a "
                    f"vector: {shape_str(indices.shape)} {shape_str(values.shape)} "
                    f"{shape_str(shape_t.shape)}"
                )
            d = tuple(dense.shape)
            ok = len(d) <= len(shape) and all(a in (1, b) for a, b in zip(d[::-1], shape[::-1]))
            if not ok:
                raise invalid(
                    "SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible "
                    f"shapes: [{','.join(map(str, d))}] vs. [{','.join(map(str, shape))}]"
                )
            wide = xp.broadcast_to(dense, shape)
            picked = wide[tuple(indices[:, j] for j in range(len(shape)))]
            return (fn(xp, values, picked).astype(values.dtype, copy=False),)

        return compute

    return factory


def _divide(xp: Any, a: Any, b: Any) -> Any:
    if a.dtype.kind in "iu":
        q = a // b
        return q + ((q < 0) & (q * b != a))  # C++'s truncating division
    return a / b


kernel("SparseDenseCwiseAdd", host=[2])(_sparse_dense(lambda xp, a, b: a + b))
kernel("SparseDenseCwiseMul", host=[2])(_sparse_dense(lambda xp, a, b: a * b))
kernel("SparseDenseCwiseDiv", host=[2])(_sparse_dense(_divide))


# ---- linear algebra ------------------------------------------------------------------------


def _adjoint(xp: Any, m: Any) -> Any:
    m = xp.swapaxes(m, -1, -2)
    return xp.conj(m) if m.dtype.kind == "c" else m


@kernel("CholeskyGrad")
@kernel("BatchCholeskyGrad", devices=CPU_ONLY)
def cholesky_grad(node: Any, xp: Any) -> Compute:
    """dA from L = chol(A) and dL, reading only the lower triangles (TF's kernel)."""

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        l_, g = (xp.asarray(v) for v in ins)
        if l_.ndim < 2 or l_.shape[-1] != l_.shape[-2]:
            raise invalid(f"Input l should be a square matrix: {shape_str(l_.shape)}")
        if tuple(l_.shape) != tuple(g.shape):
            raise invalid(
                f"Incompatible shapes for l and grad: {shape_str(l_.shape)} {shape_str(g.shape)}"
            )
        low = xp.tril(l_)
        n = l_.shape[-1]
        l_inv = xp.linalg.solve(low, xp.broadcast_to(xp.eye(n, dtype=l_.dtype), low.shape))
        middle = xp.tril(_adjoint(xp, low) @ xp.tril(g))
        diag = xp.arange(n)
        middle[..., diag, diag] *= 0.5
        grad_a = _adjoint(xp, l_inv) @ middle @ l_inv
        return ((grad_a + _adjoint(xp, grad_a)) * 0.5,)

    return compute


@kernel("SelfAdjointEig", devices=CPU_ONLY)
@kernel("BatchSelfAdjointEig", devices=CPU_ONLY)
def self_adjoint_eig_v1(node: Any, xp: Any) -> Compute:
    """Eigenvalues in row 0, eigenvectors (as columns) below: SelfAdjointEigV2 in one matrix."""

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise invalid(f"Input matrix must be square: {shape_str(x.shape)}")
        # Eigen's solver (the lower triangle), as TF 1.15's kernel runs it.
        w, v = linalg.self_adjoint_eigen(xp, x, True)
        return (xp.concatenate([w[..., None, :], v], axis=-2),)

    return compute


# TileGrad: TF 1.15's kernel requires an attr (Tmultiples) the op does not have, so no node
# ever gets one (InvalidArgumentError when run); the op is defined, without a kernel, as there.


@kernel("BatchNormWithGlobalNormalization", devices=CPU_ONLY)
def batch_norm_global(node: Any, xp: Any) -> Compute:
    eps = float(node.attrs["variance_epsilon"])
    scale = bool(node.attrs["scale_after_normalization"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        t, m, v, beta, gamma = (xp.asarray(a) for a in ins)
        if t.ndim != 4:
            raise invalid(f"input must be 4-dimensional{shape_str(t.shape)}")
        inv = 1 / xp.sqrt(v + eps)
        if scale:
            inv = inv * gamma
        return (((t - m) * inv + beta).astype(t.dtype, copy=False),)

    return compute


@kernel("BatchNormWithGlobalNormalizationGrad", devices=CPU_ONLY)
def batch_norm_global_grad(node: Any, xp: Any) -> Compute:
    eps = float(node.attrs["variance_epsilon"])
    scale = bool(node.attrs["scale_after_normalization"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        t, m, v, gamma, g = (xp.asarray(a) for a in ins)
        axes = (0, 1, 2)
        rs = 1 / xp.sqrt(v + eps)
        centered = t - m
        db = g.sum(axis=axes)
        dg = (g * centered).sum(axis=axes) * rs if scale else xp.zeros_like(gamma)
        factor = gamma * rs if scale else rs
        dx = g * factor
        dm = -db * factor
        dv = (g * centered).sum(axis=axes) * (-0.5) * rs**3 * (gamma if scale else 1)
        return tuple(a.astype(t.dtype, copy=False) for a in (dx, dm, dv, db, dg))

    return compute


@kernel("AdjustContrast", devices=CPU_ONLY)
def adjust_contrast_v1(node: Any, xp: Any) -> Compute:
    """The first AdjustContrast: float output, clipped to [min_value, max_value]."""

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        images = xp.asarray(ins[0])
        factor, lo, hi = (float(host_array(v)) for v in ins[1:])
        if images.ndim < 3:
            raise invalid(f"input must be at least 3-D, got shape{shape_str(images.shape)}")
        x = images.astype(np.float32)
        mean = x.mean(axis=(-3, -2), keepdims=True, dtype=np.float64).astype(np.float32)
        out = (x - mean) * np.float32(factor) + mean
        return (xp.clip(out, np.float32(lo), np.float32(hi)).astype(np.float32),)

    return compute


@kernel("DeserializeSparse", devices=CPU_ONLY)
def deserialize_sparse(node: Any, xp: Any) -> Compute:
    """DeserializeManySparse over any leading dimensions ([3]: one SparseTensor, [N, 3]: a
    batch, [A, B, 3]: a batch of batches)."""
    many = _sparse_serialization.deserialize_many_sparse(node, xp)
    dt = node.attrs["dtype"]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        # asanyarray: boxed rows that remember their batch (sparse_serialization.BoxedRows).
        serialized = np.asanyarray(ins[0], dtype=object)
        if serialized.ndim >= 1 and serialized.shape[-1] == 3:
            combined = _sparse_serialization.deserialize_boxed(serialized, dt)
            if combined is not None:
                return combined
        if serialized.ndim < 1 or serialized.shape[-1] != 3:
            raise invalid(
                "Serialized sparse should have at least 1 dimension and its last dimension "
                f"should have size 3, got shape {shape_str(serialized.shape)}"
            )
        lead = tuple(serialized.shape[:-1])
        indices, values, shape = many(ctx, [serialized.reshape(-1, 3)])
        batch = np.unravel_index(indices[:, 0], lead) if lead else ()
        coords = [np.asarray(b, np.int64)[:, None] for b in batch]
        out_indices = np.concatenate([*coords, indices[:, 1:]], axis=1).astype(np.int64)
        out_shape = np.concatenate([np.asarray(lead, np.int64), shape[1:]]).astype(np.int64)
        return (out_indices, values, out_shape)

    return compute


# ---- strings and files ---------------------------------------------------------------------


@kernel("ShardedFilespec", devices=CPU_ONLY)
def sharded_filespec(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        base = np.asarray(ins[0]).item()
        base = base if isinstance(base, bytes) else str(base).encode()
        shards = int(np.asarray(ins[1]))
        return (np.array(base + b"-?????-of-%05d" % shards, dtype=object),)

    return compute


@kernel("DecodePaddedRaw", devices=CPU_ONLY)
def decode_padded_raw(node: Any, xp: Any) -> Compute:
    out = np.dtype(node.attrs["out_type"].as_numpy_dtype)
    little = bool(node.attrs.get("little_endian", True))
    wire = out.newbyteorder("<" if little else ">")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = np.asarray(ins[0], dtype=object)
        length = int(np.asarray(ins[1]))
        if length % out.itemsize:
            raise invalid(
                f"fixed_length ({length}) must be a multiple of the size of out_type "
                f"({out.itemsize})"
            )
        if length <= 0:
            raise invalid("fixed_length must be positive")
        flat = [bytes(s)[:length].ljust(length, b"\0") for s in data.reshape(-1).tolist()]
        values = np.frombuffer(b"".join(flat), dtype=wire).astype(out)
        return (values.reshape((*data.shape, length // out.itemsize)),)

    return compute


@kernel("Abort", devices=CPU_ONLY)
def abort(node: Any, xp: Any) -> Compute:
    """Ends the process, as TF's: normally with exit_without_error, else with SIGABRT (not
    in a process serving a task server: other clients' sessions live there)."""
    message = node.attrs.get("error_msg", "")
    clean = bool(node.attrs.get("exit_without_error", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        if serving_state.serving():
            raise errors.PermissionDeniedError(
                None,
                None,
                "Abort: a step may not end a task server's process (it serves other "
                f"clients); error_msg: {message!r}",
            )
        if clean:
            sys.stderr.write(f"Exiting the process: {message}\n")
            sys.stderr.flush()
            os._exit(0)
        sys.stderr.write(f"Abort_op intentional failure; {message}\n")
        sys.stderr.flush()
        os.abort()

    return compute
