"""Array kernels over xp: constants, shapes, reshaping, joining/splitting, slicing, gathers.

Index arithmetic (slice bounds, strided-slice specs, paddings, split sizes, gather index
checks) runs on the host with TF's messages; only the data movement uses xp. Shape-like
inputs stay in host memory on a GPU, as in TF (the `host` positions).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, memory_budget
from tfcluster.kernels import tensor_lists
from tfcluster.kernels.common import (
    Compute,
    LastHostInputs,
    axis_in,
    frozen,
    host_array,
    host_ints,
    invalid,
    scalar_int,
    scalar_value,
    shape_of,
    shape_str,
    unchanging,
)
from tfcluster.kernels.registry import CPU_ONLY, kernel


# ---- constants, placeholders, pass-throughs ----------------------------------------------
@kernel("Const", keep_inputs=True)
def const(node: Any, xp: Any) -> Compute:
    # Every step hands out this same array: read-only, so no consumer or client can change it.
    value = frozen(np.array(node.attrs["value"]))
    # TF keeps int32 tensors of GPU kernels in host memory: they are shapes and axes.
    out = (value if value.dtype == np.int32 else xp.asarray(value),)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return out

    return compute


# A fed placeholder never runs. TF has a GPU kernel too, so a placeholder colocated with a
# GPU variable (Saver's restore) keeps the group on the GPU.
@kernel("Placeholder", keep_inputs=True)
def placeholder(node: Any, xp: Any) -> Compute:
    dtype = node.attrs["dtype"]
    shape = node.attrs.get("shape")
    # TF names the shape only when it has dimensions (a scalar's [] is left out too).
    known = shape is not None and bool(shape.ndims)
    shape_s = (
        "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]" if known else ""
    )
    message = (
        f"You must feed a value for placeholder tensor '{node.name}' with dtype "
        f"{dtypes.data_type_string(dtype)}" + (f" and shape {shape_s}" if known else "")
    )

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        raise invalid(message)

    return compute


@kernel("Identity", keep_inputs=True)
@kernel("StopGradient", keep_inputs=True)
def passthrough(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> Any:
        return ins

    return compute


@kernel("PlaceholderWithDefault", keep_inputs=True)
def placeholder_with_default(node: Any, xp: Any) -> Compute:
    shape = node.attrs.get("shape")
    dims = None if shape is None or shape.ndims is None else shape.as_list()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        if dims is not None:
            got = shape_of(x)
            if len(got) != len(dims) or any(d is not None and d != g for d, g in zip(dims, got)):
                raise invalid(
                    f"PlaceholderWithDefault: default value shape {shape_str(got)} is not "
                    f"compatible with shape {shape}"
                )
        return (x,)

    return compute


# ---- shapes ----------------------------------------------------------------------------
def _out_type(node: Any, attr: str = "out_type") -> np.dtype[Any]:
    out_type = node.attrs.get(attr)
    return np.dtype(out_type.as_numpy_dtype) if out_type is not None else np.dtype(np.int32)


# Shape, Rank and Size read only the shape of their input (host or device, never copied);
# their results are host memory, as in TF.
@kernel("Shape", keep_inputs=True)
def shape(node: Any, xp: Any) -> Compute:
    dtype = _out_type(node)
    # One read-only array per shape seen, handed out again for that shape: its consumers
    # (Reshape, BroadcastGradientArgs, slices) then meet the same object and reuse what they
    # worked out from it (common.LastHostInputs).
    seen: dict[tuple[int, ...], tuple[Any]] = {}

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        dims = shape_of(ins[0])
        out = seen.get(dims)
        if out is None:
            if len(seen) >= _SHAPES_KEPT:
                seen.clear()
            out = seen[dims] = (frozen(np.array(dims, dtype=dtype)),)
        return out

    return compute


# Distinct shapes a Shape node keeps arrays for (a node seeing more, a dynamic size, starts over).
_SHAPES_KEPT = 64


@kernel("Rank", keep_inputs=True)
def rank(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.array(len(shape_of(ins[0])), dtype=np.int32),)

    return compute


@kernel("Size", keep_inputs=True)
def size(node: Any, xp: Any) -> Compute:
    dtype = _out_type(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        # math.prod of the shape's ints: np.prod on a tuple costs ~2 us (a Keras loss and
        # metric each count their batch this way every step).
        return (np.array(math.prod(shape_of(ins[0])), dtype=dtype),)

    return compute


def _check_reshape(size: int, dims: list[int]) -> None:
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise invalid(f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]}")
    if any(d < -1 for d in dims):
        raise invalid(f"Size {min(dims)} must be non-negative, not {min(dims)}")
    known = math.prod(d for d in dims if d != -1)
    if unknown:
        if known == 0 or size % known:
            raise invalid(
                f"Input to reshape is a tensor with {size} values, but the requested shape "
                f"requires a multiple of {known}"
            )
    elif known != size:
        raise invalid(
            f"Input to reshape is a tensor with {size} values, but the requested shape has {known}"
        )


@kernel("Reshape", host=[1])
def reshape(node: Any, xp: Any) -> Compute:
    last = LastHostInputs()  # (dims, their product when all are known, else -1)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        kept = last.get(ins[1])
        if kept is not None and kept[1] == x.size:
            return (x.reshape(kept[0]),)
        if np.ndim(ins[1]) > 1:
            raise invalid(f"sizes input must be 1-D, not {shape_str(np.shape(ins[1]))}")
        dims = host_ints(ins[1])
        if -1 not in dims and min(dims, default=0) >= 0 and math.prod(dims) == x.size:
            last.keep((ins[1],), (dims, x.size))
            return (x.reshape(dims),)  # the common case, without the checks' ~5 us
        _check_reshape(x.size, dims)
        return (x.reshape(dims),)

    return compute


# A Fill's output up to this size is kept, read-only, and handed out again while its inputs
# are the very same unchanging arrays (a Shape kernel's, a constant): a loop's gradient fills
# zeros of one shape in every iteration (Keras's LSTM: six per step, for its clip_by_value
# gradients), and a fetched value reaches the client as a copy.
_FILL_KEPT_BYTES = 1 << 20


@kernel("Fill", host=[0, 1])
def fill(node: Any, xp: Any) -> Compute:
    last = LastHostInputs()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        kept = last.get(ins[0], ins[1])
        if kept is not None:
            return kept  # type: ignore[no-any-return]
        out = _fill(ins)
        small = xp is np and out.nbytes <= _FILL_KEPT_BYTES
        if small and unchanging(ins[0]) and unchanging(ins[1]):
            last.keep((ins[0], ins[1]), (frozen(out),))
        return (out,)

    def _fill(ins: list[Any]) -> Any:
        if np.ndim(ins[0]) != 1:
            raise invalid(f"dims must be a vector, got shape {shape_str(np.shape(ins[0]))}")
        dims = host_ints(ins[0])
        if any(d < 0 for d in dims):
            raise invalid(f"dims must be non-negative, got {shape_str(dims)}")
        value = scalar_value(ins[1])
        memory_budget.check_shape(dims, value.dtype, "Fill's output")
        return xp.full(dims, value[()], dtype=value.dtype)

    return compute


@kernel("ZerosLike")
def zeros_like(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        if isinstance(ins[0], tensor_lists.TensorListValue):  # a variant list (loop gradients)
            return (tensor_lists.zeros_like_list(ins[0]),)
        x = xp.asarray(ins[0])
        if x.dtype == object:  # strings, which live only on the CPU
            return (np.full(x.shape, b"", dtype=object),)
        return (xp.zeros(x.shape, x.dtype),)  # zeros_like's layout matching costs ~1 us

    return compute


@kernel("OnesLike")
def ones_like(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (xp.ones_like(xp.asarray(ins[0])),)

    return compute


# ---- permuting and joining ---------------------------------------------------------------
def _check_permutation(perm: list[int], rank: int) -> None:
    if len(perm) != rank:
        raise invalid(
            f"transpose expects a vector of size {rank}. But input(1) is a vector of size "
            f"{len(perm)}"
        )
    seen = set()
    for p in perm:
        q = p + rank if p < 0 else p
        if not 0 <= q < rank:
            raise invalid(f"{p} is out of range [0 .. {rank})")
        if q in seen:
            raise invalid(f"{p} is duplicated in the input.")
        seen.add(q)


@kernel("Transpose", host=[1])
def transpose(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        perm = host_ints(ins[1])
        _check_permutation(perm, x.ndim)
        return (xp.transpose(x, perm),)

    return compute


# Validated element by element on the host, with a host result on either device.
@kernel("InvertPermutation", all_host=True)
def invert_permutation(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = np.asarray(ins[0])
        if x.ndim != 1:
            raise invalid(f"invert_permutation expects a 1D vector, got shape {shape_str(x.shape)}")
        n = x.size
        out = np.full(n, -1, dtype=x.dtype)
        for i, p in enumerate(x.tolist()):
            if not 0 <= p < n:
                raise invalid(f"{p} is not between 0 and {n}")
            if out[p] != -1:
                raise invalid(f"{p} is duplicated in the input.")
            out[p] = i
        return (out,)

    return compute


@kernel("ConcatV2", host=[-1])
def concat(node: Any, xp: Any) -> Compute:
    n = int(node.attrs["N"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        values = [xp.asarray(v) for v in ins[:n]]
        rank = values[0].ndim
        if rank == 0:
            raise invalid("Can't concatenate scalars (use tf.stack instead)")
        axis = scalar_int(ins[n], "axis")
        if not -rank <= axis < rank:
            raise invalid(
                f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), "
                f"but got {axis}"
            )
        axis = axis + rank if axis < 0 else axis
        first = values[0].shape
        for i, v in enumerate(values[1:], 1):
            if v.ndim != rank:
                raise invalid(
                    f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                    f"{shape_str(first)} vs. shape[{i}] = {shape_str(v.shape)}"
                )
            if any(a != b for j, (a, b) in enumerate(zip(first, v.shape)) if j != axis):
                raise invalid(
                    f"ConcatOp : Dimensions of inputs should match: shape[0] = "
                    f"{shape_str(first)} vs. shape[{i}] = {shape_str(v.shape)}"
                )
        return (xp.concatenate(values, axis=axis),)

    return compute


@kernel("Pack")
def pack(node: Any, xp: Any) -> Compute:
    axis = int(node.attrs["axis"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        values = [xp.asarray(v) for v in ins]
        first = values[0].shape
        for i, v in enumerate(values[1:], 1):
            if v.shape != first:
                raise invalid(
                    f"Shapes of all inputs must match: values[0].shape = {shape_str(first)} != "
                    f"values[{i}].shape = {shape_str(v.shape)}"
                )
        rank = len(first) + 1
        if not -rank <= axis < rank:
            raise invalid(f"axis = {axis} not in [{-rank}, {rank})")
        if xp is np and axis in (0, -rank) and values[0].dtype != object:
            # The same as stack on axis 0 for arrays of one shape and dtype, at a tenth of
            # its cost (shape vectors packed from scalars in every gradient).
            return (np.array(values),)
        return (xp.stack(values, axis=axis),)

    return compute


@kernel("Unpack")
def unpack(node: Any, xp: Any) -> Compute:
    num = int(node.attrs["num"])
    axis_attr = int(node.attrs["axis"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        rank = x.ndim
        if not -rank <= axis_attr < rank:
            raise invalid(f"axis = {axis_attr} not in [{-rank}, {rank})")
        axis = axis_attr + rank if axis_attr < 0 else axis_attr
        if x.shape[axis] != num:
            raise invalid(
                f"Input shape axis {axis} must equal {num}, got shape {shape_str(x.shape)}"
            )
        return tuple(xp.take(x, i, axis=axis) for i in range(num))

    return compute


@kernel("Split", host=[0])
def split(node: Any, xp: Any) -> Compute:
    num = int(node.attrs["num_split"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[1])
        axis = axis_in(ins[0], x.ndim, "split_dim")
        if x.shape[axis] % num:
            raise invalid(
                f"Number of ways to split should evenly divide the split dimension, but got "
                f"split_dim {axis} (size = {x.shape[axis]}) and num_split {num}"
            )
        step = x.shape[axis] // num
        return _slices(x, axis, [i * step for i in range(num + 1)])

    return compute


@kernel("SplitV", host=[1, 2])
def split_v(node: Any, xp: Any) -> Compute:
    num = int(node.attrs["num_split"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        sizes = host_ints(ins[1])
        axis = axis_in(ins[2], x.ndim, "split_dim")
        if len(sizes) != num:
            raise invalid(f"size_splits must have {num} elements, got {len(sizes)}")
        sizes = _resolve_split_sizes(sizes, x.shape[axis])
        return _slices(x, axis, list(itertools.accumulate(sizes, initial=0)))

    return compute


def _slices(x: Any, axis: int, cuts: list[int]) -> tuple[Any, ...]:
    """The views of x between successive cuts along axis (plain slicing: xp.split costs
    ~20 us in numpy, and an LSTM splits its gates at every step)."""
    lead = (slice(None),) * axis
    return tuple(x[(*lead, slice(i, j))] for i, j in itertools.pairwise(cuts))


def _resolve_split_sizes(sizes: list[int], dim: int) -> list[int]:
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        raise invalid(
            "Only one dimensions can have a value of -1. Second one found at dimension "
            f"{unknown[1]}"
        )
    if any(s < -1 for s in sizes):
        raise invalid(f"size_splits must be non-negative (or -1), got {sizes}")
    known = sum(s for s in sizes if s != -1)
    if unknown:
        if known > dim:
            raise invalid(
                f"Determined shape must either match input shape along split_dim exactly if "
                f"fully specified, or be less than the size of the input along split_dim if "
                f"not fully specified.  Got: {known}"
            )
        sizes = list(sizes)
        sizes[unknown[0]] = dim - known
    elif known != dim:
        raise invalid(
            f"Determined shape must either match input shape along split_dim exactly if fully "
            f"specified, or be less than the size of the input along split_dim if not fully "
            f"specified.  Got: {known}"
        )
    return sizes


# ---- slicing -----------------------------------------------------------------------------
def _slice_bounds(shape: Sequence[int], begin: list[int], size: list[int]) -> tuple[slice, ...]:
    rank = len(shape)
    if len(begin) != rank or len(size) != rank:
        raise invalid(
            f"Expected begin and size arguments to be 1-D tensors of size {rank}, but got shapes "
            f"[{len(begin)}] and [{len(size)}] instead."
        )
    out = []
    for i, (dim, b, s) in enumerate(zip(shape, begin, size)):
        if s == -1:
            s = dim - b
        if not 0 <= b <= dim:
            raise invalid(f"Expected begin[{i}] in [0, {dim}], but got {b}")
        if not 0 <= s <= dim - b:
            raise invalid(f"Expected size[{i}] in [0, {dim - b}], but got {s}")
        out.append(slice(b, b + s))
    return tuple(out)


@kernel("Slice", host=[1, 2])
def slice_(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        return (x[_slice_bounds(x.shape, host_ints(ins[1]), host_ints(ins[2]))],)

    return compute


class _Masks:
    __slots__ = ("begin", "ellipsis", "end", "new_axis", "shrink")

    def __init__(self, attrs: dict[str, Any]) -> None:
        self.begin = int(attrs.get("begin_mask", 0))
        self.end = int(attrs.get("end_mask", 0))
        self.ellipsis = int(attrs.get("ellipsis_mask", 0))
        self.new_axis = int(attrs.get("new_axis_mask", 0))
        self.shrink = int(attrs.get("shrink_axis_mask", 0))


def _strided_index(
    shape: Sequence[int], begin: Any, end: Any, strides: Any, masks: _Masks
) -> tuple[Any, ...]:
    """TF's sparse slice spec as a basic index (numpy's and cupy's clamping matches TF's)."""
    b, e, s = host_ints(begin), host_ints(end), host_ints(strides)
    if not len(b) == len(e) == len(s):
        raise invalid(
            f"Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"[{len(b)}], [{len(e)}], and [{len(s)}] instead."
        )
    index: list[Any] = []
    seen_ellipsis = False
    for i in range(len(b)):
        bit = 1 << i
        if masks.ellipsis & bit:
            if seen_ellipsis:
                raise invalid("Multiple ellipses in slice spec not allowed")
            seen_ellipsis = True
            index.append(Ellipsis)
        elif masks.new_axis & bit:
            index.append(None)
        elif s[i] == 0:
            raise invalid(f"strides[{i}] must be non-zero")
        elif masks.shrink & bit:
            index.append(b[i])
        else:
            start = None if masks.begin & bit else b[i]
            stop = None if masks.end & bit else e[i]
            index.append(slice(start, stop, s[i]))
    _check_strided_index(shape, index)
    return tuple(index)


def _check_strided_index(shape: Sequence[int], index: list[Any]) -> None:
    """Rank and shrink-index checks, with TF's messages (numpy would raise IndexError)."""
    used = sum(1 for k in index if k is not None and k is not Ellipsis)
    if used > len(shape):
        raise invalid(
            f"Index out of range using input dim {len(shape)}; input has only {len(shape)} dims"
        )
    dim = 0
    for k in index:
        if k is Ellipsis:
            dim += len(shape) - used
        elif k is None:
            continue
        else:
            if isinstance(k, int) and not -shape[dim] <= k < shape[dim]:
                raise invalid(f"slice index {k} of dimension {dim} out of bounds.")
            dim += 1


# For the resource variables' ResourceStridedSliceAssign (kernels/resource_variables.py).
Masks = _Masks
strided_index = _strided_index


@kernel("StridedSlice", host=[1, 2, 3])
def strided_slice(node: Any, xp: Any) -> Compute:
    masks = _Masks(node.attrs)

    last = LastHostInputs()  # (input shape, index)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        kept = last.get(ins[1], ins[2], ins[3])
        if kept is not None and kept[0] == x.shape:
            return (xp.asarray(x[kept[1]]),)
        index = _strided_index(x.shape, ins[1], ins[2], ins[3], masks)
        last.keep((ins[1], ins[2], ins[3]), (x.shape, index))
        return (xp.asarray(x[index]),)

    return compute


@kernel("StridedSliceGrad", host=[0, 1, 2, 3])
def strided_slice_grad(node: Any, xp: Any) -> Compute:
    masks = _Masks(node.attrs)

    last = LastHostInputs()  # (shape, index, the slice's shape)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        dy = xp.asarray(ins[4])
        kept = last.get(ins[0], ins[1], ins[2], ins[3])
        if kept is not None and kept[2] == dy.shape:
            out = xp.zeros(kept[0], dtype=dy.dtype)
            out[kept[1]] = dy
            return (out,)
        out = xp.zeros(host_ints(ins[0]), dtype=dy.dtype)
        index = _strided_index(out.shape, ins[1], ins[2], ins[3], masks)
        target_shape = out[index].shape
        last.keep((ins[0], ins[1], ins[2], ins[3]), (out.shape, index, target_shape))
        if math.prod(target_shape) != dy.size:
            raise invalid(
                f"shape of dy was {shape_str(dy.shape)} instead of {shape_str(target_shape)}"
            )
        out[index] = dy.reshape(target_shape)
        return (out,)

    return compute


# ---- gathers and scatters ----------------------------------------------------------------
def _bad_index_message(indices: np.ndarray, limit: int) -> str:
    bad = np.argwhere((indices < 0) | (indices >= limit))[0]
    pos = ",".join(str(int(p)) for p in bad)
    return f"indices[{pos}] = {int(indices[tuple(bad)])} is not in [0, {limit})"


@kernel("GatherV2", host=[2])
def gather(node: Any, xp: Any) -> Compute:
    batch_dims_attr = int(node.attrs.get("batch_dims", 0))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        params = xp.asarray(ins[0])
        indices = xp.asarray(ins[1])
        if params.ndim == 0:
            raise invalid("params must be at least 1 dimensional")
        axis = axis_in(ins[2], params.ndim)
        limit = params.shape[axis]
        # One reduction (one device sync on a GPU) checks the bounds; take would wrap.
        if indices.size and bool(xp.any((indices < 0) | (indices >= limit))):
            raise invalid(_bad_index_message(host_array(indices), limit))
        batch_dims = batch_dims_attr + indices.ndim if batch_dims_attr < 0 else batch_dims_attr
        if batch_dims:
            return (_batch_gather(xp, params, indices, axis, batch_dims),)
        return (xp.take(params, indices, axis=axis),)

    return compute


def _batch_gather(xp: Any, params: Any, indices: Any, axis: int, batch_dims: int) -> Any:
    """GatherV2 with batch_dims: within each of the leading batch entries (which params and
    indices share), gather along `axis` at that entry's indices."""
    if not 0 < batch_dims < max(indices.ndim, 1) or batch_dims > axis:
        raise invalid(
            f"batch_dims ({batch_dims}) must be less than rank(indices) ({indices.ndim}) and "
            f"at most axis ({axis})"
        )
    for d in range(batch_dims):
        if params.shape[d] != indices.shape[d]:
            raise invalid(
                f"params.shape[{d}]: {params.shape[d]} should be equal to "
                f"indices.shape[{d}]: {indices.shape[d]}"
            )
    p_shape, i_shape = tuple(params.shape), tuple(indices.shape)
    batch = int(np.prod(p_shape[:batch_dims], dtype=np.int64))
    outer = int(np.prod(p_shape[batch_dims:axis], dtype=np.int64))
    inner = int(np.prod(p_shape[axis + 1 :], dtype=np.int64))
    flat = params.reshape(batch, outer, p_shape[axis], inner).transpose(0, 2, 1, 3)
    rows = indices.reshape(batch, -1)
    picked = flat[xp.arange(batch)[:, None], rows]  # [batch, n, outer, inner]
    out_shape = p_shape[:axis] + i_shape[batch_dims:] + p_shape[axis + 1 :]
    return picked.transpose(0, 2, 1, 3).reshape(out_shape)


def _nd_index(
    params_shape: Sequence[int], indices: np.ndarray, what: str
) -> tuple[np.ndarray, ...]:
    """Host indices [..., depth] checked against params_shape, as one index array per dim."""
    depth = indices.shape[-1] if indices.ndim else 0
    if indices.ndim < 1:
        raise invalid(f"indices must be at least a vector, got shape {shape_str(indices.shape)}")
    if depth > len(params_shape):
        raise invalid(
            f"index innermost dimension length must be <= params rank; saw: {depth} vs. "
            f"{len(params_shape)}"
        )
    flat = indices.reshape(-1, depth)
    limits = np.asarray(params_shape[:depth], dtype=np.int64)
    bad = np.nonzero(np.any((flat < 0) | (flat >= limits), axis=1))[0]
    if bad.size:
        i = int(bad[0])
        pos = np.unravel_index(i, indices.shape[:-1])
        raise invalid(
            f"indices[{','.join(str(int(p)) for p in pos)}] = {flat[i].tolist()} does not index "
            f"into {what} {shape_str(params_shape)}"
        )
    return tuple(flat[:, j] for j in range(depth))


# GatherNd and ScatterNd check their indices on the host (host memory on a GPU too).
@kernel("GatherNd", host=[1])
def gather_nd(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        params = xp.asarray(ins[0])
        indices = np.asarray(ins[1])
        index = _nd_index(params.shape, indices, "param shape")
        depth = len(index)
        if depth:
            out = params[tuple(xp.asarray(i) for i in index)]
        else:
            out = xp.broadcast_to(params, (int(np.prod(indices.shape[:-1])), *params.shape))
        return (xp.asarray(out).reshape(indices.shape[:-1] + params.shape[depth:]),)

    return compute


@kernel("ScatterNd", host=[0, 2])
def scatter_nd(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        indices = np.asarray(ins[0])
        updates = xp.asarray(ins[1])
        shape_v = host_ints(ins[2])
        if any(d < 0 for d in shape_v):
            raise invalid(
                f"Indices and updates specified for empty output shape {shape_str(shape_v)}"
            )
        index = _nd_index(shape_v, indices, "output shape")
        depth = len(index)
        want = tuple(indices.shape[:-1]) + tuple(shape_v[depth:])
        if tuple(updates.shape) != want:
            raise invalid(
                f"updates.shape {shape_str(updates.shape)} must be indices.shape[:-1] + "
                f"shape[indices.shape[-1]:] = {shape_str(want)}"
            )
        out = xp.zeros(shape_v, dtype=updates.dtype)
        flat_updates = updates.reshape((-1, *shape_v[depth:]))
        if depth:
            # Repeated indices add up (ufunc.at; cupy implements it as a scatter-add).
            xp.add.at(out, tuple(xp.asarray(i) for i in index), flat_updates)
        else:
            out += flat_updates.sum(axis=0)
        return (out,)

    return compute


# ---- tiling, padding, reversing, dims ----------------------------------------------------
@kernel("Tile", host=[1])
def tile(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        multiples = host_ints(ins[1])
        if len(multiples) != x.ndim:
            raise invalid(
                f"Expected multiples argument to be a vector of length {x.ndim} but got length "
                f"{len(multiples)}"
            )
        if any(m < 0 for m in multiples):
            raise invalid(f"Expected multiples to be non-negative, got {multiples}")
        memory_budget.check_shape(
            [d * m for d, m in zip(x.shape, multiples)], x.dtype, "Tile's output"
        )
        return (xp.tile(x, multiples) if x.ndim else x.copy(),)

    return compute


@kernel("ExpandDims", host=[1])
def expand_dims(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        if np.size(ins[1]) != 1:
            raise invalid(f"'dim' must be a tensor with a single value, got {np.shape(ins[1])}")
        dim = host_ints(ins[1])[0]
        rank = x.ndim + 1
        if not -rank <= dim < rank:
            raise invalid(f"Tried to expand dim index {dim} for tensor with {x.ndim} dimensions.")
        # A reshape with the new axis of size 1: the view np.expand_dims makes, without its
        # axis normalization (~1.5 us; a loss gradient's ExpandDims runs every step).
        dim %= rank
        return (x.reshape((*x.shape[:dim], 1, *x.shape[dim:])),)

    return compute


@kernel("Squeeze")
def squeeze(node: Any, xp: Any) -> Compute:
    axes = [int(a) for a in node.attrs.get("squeeze_dims", [])]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        if not axes:
            return (xp.squeeze(x),)
        norm = []
        for a in axes:
            if not -x.ndim <= a < x.ndim:
                raise invalid(
                    f"Tried to squeeze dim index {a} for tensor with {x.ndim} dimensions."
                )
            a = a + x.ndim if a < 0 else a
            if x.shape[a] != 1:
                raise invalid(
                    f"Can not squeeze dim[{a}], expected a dimension of 1, got {x.shape[a]}"
                )
            norm.append(a)
        return (xp.squeeze(x, axis=tuple(sorted(set(norm)))),)

    return compute


def _paddings(value: Any, rank: int) -> list[tuple[int, int]]:
    arr = np.asarray(value)
    if arr.shape != (rank, 2):
        raise invalid(
            f"The first dimension of paddings must be the rank of inputs{shape_str(arr.shape)}, "
            f"expected [{rank},2]"
        )
    pads = [(int(a), int(b)) for a, b in arr.tolist()]
    if any(a < 0 or b < 0 for a, b in pads):
        raise invalid(f"Paddings must be non-negative: {pads}")
    return pads


@kernel("Pad", host=[1])
def pad(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        pads = _paddings(ins[1], x.ndim)
        if x.dtype == object:  # strings, which live only on the CPU
            return (np.pad(x, pads, mode="constant", constant_values=b""),)
        # Zeros with x written in: the same array as pad(mode="constant"), at a fraction of
        # its cost (a gradient of Slice pads every step).
        shape = tuple(d + a + b for d, (a, b) in zip(x.shape, pads))
        out = xp.zeros(shape, dtype=x.dtype)
        out[tuple(slice(a, a + d) for d, (a, _) in zip(x.shape, pads))] = x
        return (out,)

    return compute


@kernel("PadV2", host=[1, 2])
def pad_v2(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        pads = _paddings(ins[1], x.ndim)
        value = scalar_value(ins[2])
        return (xp.pad(x, pads, mode="constant", constant_values=value.item()),)

    return compute


def _mirror_mode(node: Any) -> tuple[str, int]:
    mode = node.attrs["mode"]
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise invalid(f"mode must be either REFLECT or SYMMETRIC, got {mode}")
    # REFLECT leaves out the edge, so its paddings must be strictly smaller than the dim.
    return ("reflect", 1) if mode == "REFLECT" else ("symmetric", 0)


def _check_mirror(shape: Sequence[int], pads: list[tuple[int, int]], offset: int) -> None:
    for i, (dim, (a, b)) in enumerate(zip(shape, pads)):
        limit = dim - offset
        if a > limit or b > limit:
            raise invalid(
                f"paddings must be no greater than the dimension size: {a}, {b} greater than "
                f"{limit} (dimension {i})"
                if offset == 0
                else f"paddings must be less than the dimension size: {a}, {b} not less than "
                f"{dim} (dimension {i})"
            )


@kernel("MirrorPad", host=[1])
def mirror_pad(node: Any, xp: Any) -> Compute:
    mode, offset = _mirror_mode(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        pads = _paddings(ins[1], x.ndim)
        _check_mirror(x.shape, pads, offset)
        return (xp.pad(x, pads, mode=mode),)

    return compute


def _mirror_sources(n: int, before: int, after: int, offset: int) -> np.ndarray:
    """For each position of a mirror-padded axis, the input index it was copied from."""
    left = np.arange(before, 0, -1) - 1 + offset
    right = n - 1 - offset - np.arange(after)
    return np.concatenate([left, np.arange(n), right]).astype(np.intp)


@kernel("MirrorPadGrad", host=[1])
def mirror_pad_grad(node: Any, xp: Any) -> Compute:
    _, offset = _mirror_mode(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        g = xp.asarray(ins[0])
        pads = _paddings(ins[1], g.ndim)
        for axis, (a, b) in enumerate(pads):
            n = g.shape[axis] - a - b
            if n < 0:
                raise invalid(f"paddings {a}, {b} exceed the gradient's dimension {axis}")
            src = xp.asarray(_mirror_sources(n, a, b, offset))
            moved = xp.moveaxis(g, axis, 0)
            acc = xp.zeros((n, *moved.shape[1:]), dtype=g.dtype)
            xp.add.at(acc, src, moved)  # each source index gathers every copy of itself
            g = xp.moveaxis(acc, 0, axis)
        return (g,)

    return compute


@kernel("ReverseV2", host=[1])
def reverse(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        axes: list[int] = []
        for a in host_ints(ins[1]):
            if not -x.ndim <= a < x.ndim:
                raise invalid(f"'axis'[0] = {a} is out of valid range [0, {x.ndim - 1}]")
            a = a + x.ndim if a < 0 else a
            if a in axes:
                raise invalid(f"axis {a} specified more than once.")
            axes.append(a)
        return (xp.flip(x, axis=tuple(axes)) if axes else x,)

    return compute


# ---- masks, one-hot, unique -------------------------------------------------------------
@kernel("Where")
def where(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (xp.argwhere(xp.asarray(ins[0])).astype(np.int64),)

    return compute


@kernel("OneHot", host=[1, 2, 3])
def one_hot(node: Any, xp: Any) -> Compute:
    axis_attr = int(node.attrs.get("axis", -1))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        indices = xp.asarray(ins[0])
        depth = scalar_int(ins[1], "depth")
        if depth < 0:
            raise invalid(f"depth must be non-negative, got: {depth}")
        on = scalar_value(ins[2])
        off = scalar_value(ins[3])
        axis = indices.ndim if axis_attr == -1 else axis_attr
        if not 0 <= axis <= indices.ndim:
            raise invalid(
                f"Expected axis to be -1 or between [0, {indices.ndim + 1}).  But received: "
                f"{axis_attr}"
            )
        hot = indices[..., None] == xp.arange(depth, dtype=indices.dtype)
        out = xp.where(hot, xp.asarray(on), xp.asarray(off)).astype(on.dtype, copy=False)
        return (xp.moveaxis(out, -1, axis),)

    return compute


# CPU only (as TF's Unique): the output size depends on the values.
@kernel("Unique", devices=CPU_ONLY)
def unique(node: Any, xp: Any) -> Compute:
    idx_dtype = _out_type(node, "out_idx")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = np.asarray(ins[0])
        if x.ndim != 1:
            raise invalid(f"unique expects a 1D vector, got shape {shape_str(x.shape)}")
        if x.dtype == object:
            first: dict[Any, int] = {}
            idx = np.array([first.setdefault(v, len(first)) for v in x.tolist()], dtype=idx_dtype)
            y = np.empty(len(first), dtype=object)
            y[:] = list(first)
            return (y, idx)
        # TF keeps the order of first occurrence, numpy sorts: remap sorted ids by first index.
        values, first_pos, inverse = np.unique(x, return_index=True, return_inverse=True)
        order = np.argsort(first_pos, kind="stable")
        rank_of = np.empty_like(order)
        rank_of[order] = np.arange(order.size)
        return (values[order], rank_of[inverse.reshape(-1)].astype(idx_dtype))

    return compute
