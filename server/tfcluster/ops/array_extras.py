"""The rest of TF 1.15's top-level array functions: repeat, meshgrid, unravel_index, identity_n,
parallel_stack, batch_gather, ensure_shape, guarantee_const, bitcast, and the static helpers
(get_static_value, is_tensor, convert_to_tensor_or_sparse_tensor). Composite functions build
the very ops TF's python layer builds, so tensor names match."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, is_tensor_like, name_scope
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops import array_ops, counting_ops, math_ops
from tfcluster.ops.broadcast_ops import broadcast_to
from tfcluster.ops.infer_util import check_index_dtype, shape_list
from tfcluster.ops.op_util import Outputs, make_op, unary_same


# ---- op definitions -----------------------------------------------------------------------
def _identity_n_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(t.dtype.base_dtype, t.shape) for t in inputs]


def _unravel_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    indices, dims = inputs
    if dims.shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {dims.shape.ndims}")
    if indices.shape.ndims not in (None, 0, 1):
        raise ValueError(f"Shape must be at most rank 1 but is rank {indices.shape.ndims}")
    n = None if dims.shape.ndims is None else dims.shape.as_list()[0]
    if indices.shape.ndims == 0:
        return [(indices.dtype.base_dtype, TensorShape([n]))]
    m = None if indices.shape.ndims is None else indices.shape.as_list()[0]
    return [(indices.dtype.base_dtype, TensorShape([n, m]))]


def _parallel_concat_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, as_shape(attrs["shape"]))]


def _ensure_shape_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    want = as_shape(attrs["shape"])
    have = inputs[0].shape
    if not have.is_compatible_with(want):
        raise ValueError(f"Shapes {have} and {want} are incompatible")
    return [(inputs[0].dtype.base_dtype, have.merge_with(want))]


def _bitcast_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    src, dst = x.dtype.base_dtype, dtypes.as_dtype(attrs["type"])
    dims = shape_list(x.shape)
    if dims is None:
        return [(dst, TensorShape(None))]
    if src.size > dst.size:
        return [(dst, TensorShape([*dims, src.size // dst.size]))]
    if src.size < dst.size:
        ratio = dst.size // src.size
        if not dims:
            raise ValueError("Cannot bitcast from a scalar to a wider type")
        if dims[-1] is not None and dims[-1] != ratio:
            raise ValueError(f"Cannot bitcast due to shape. {dims[-1]} does not match {ratio}")
        return [(dst, TensorShape(dims[:-1]))]
    return [(dst, x.shape)]


op_def_registry.register("IdentityN", _identity_n_infer)
op_def_registry.register("UnravelIndex", _unravel_infer)
op_def_registry.register("ParallelConcat", _parallel_concat_infer)
op_def_registry.register("EnsureShape", _ensure_shape_infer)
op_def_registry.register("GuaranteeConst", unary_same)
op_def_registry.register("Bitcast", _bitcast_infer)

# The dtypes TF's Bitcast kernel takes (no bool, string or resource).
_BITCAST_TYPES = (
    dtypes.bfloat16,
    dtypes.float16,
    dtypes.float32,
    dtypes.float64,
    dtypes.int64,
    dtypes.int32,
    dtypes.uint8,
    dtypes.uint16,
    dtypes.uint32,
    dtypes.uint64,
    dtypes.int8,
    dtypes.int16,
    dtypes.complex64,
    dtypes.complex128,
    *sorted(
        (d for d in dtypes.QUANTIZED_DTYPES if not d.is_ref_dtype),
        key=lambda d: d.as_datatype_enum,
    ),
)


# ---- single ops -------------------------------------------------------------------------
def identity_n(input: Sequence[Any], name: str | None = None) -> list[Tensor]:
    """Each input passed through unchanged, as one op (IdentityN)."""
    if not isinstance(input, (list, tuple)):
        raise TypeError(f"Expected list for 'input' argument to 'IdentityN' Op, not {input!r}.")
    with name_scope(name, "IdentityN", list(input)) as scope:
        ts = [convert_to_tensor(v, name="input") for v in input]
        attrs = {"T": [t.dtype.base_dtype for t in ts]}
        return list(make_op("IdentityN", ts, attrs, name=scope).outputs)


def unravel_index(indices: Any, dims: Any, name: str | None = None) -> Tensor:
    """The coordinates in an array of shape `dims` of flat `indices` (one column per index)."""
    with name_scope(name, "UnravelIndex", [indices, dims]) as scope:
        i = convert_to_tensor(indices, name="indices", preferred_dtype=dtypes.int32)
        check_index_dtype(i, "indices")
        d = convert_to_tensor(dims, name="dims", dtype=i.dtype.base_dtype)
        attrs = {"Tidx": i.dtype.base_dtype}
        return make_op("UnravelIndex", [i, d], attrs, name=scope).outputs[0]


def ensure_shape(x: Any, shape: Any, name: str | None = None) -> Tensor:
    """x unchanged, after checking at run time that its shape is compatible with `shape`."""
    if not isinstance(shape, TensorShape):
        shape = TensorShape(shape)
    with name_scope(name, "EnsureShape", [x]) as scope:
        t = convert_to_tensor(x, name="input")
        attrs = {"shape": shape, "T": t.dtype.base_dtype}
        return make_op("EnsureShape", [t], attrs, name=scope).outputs[0]


def guarantee_const(input: Any, name: str | None = None) -> Tensor:
    """input unchanged: a promise that its value never changes during the session."""
    with name_scope(name, "GuaranteeConst", [input]) as scope:
        t = convert_to_tensor(input, name="input")
        return make_op("GuaranteeConst", [t], {"T": t.dtype.base_dtype}, name=scope).outputs[0]


def bitcast(input: Any, type: Any, name: str | None = None) -> Tensor:
    """The bytes of `input` read as `type`: a narrower type adds a last dimension of
    size(input type) / size(type), a wider one removes a last dimension of the inverse ratio."""
    with name_scope(name, "Bitcast", [input]) as scope:
        t = convert_to_tensor(input, name="input")
        want = dtypes.as_dtype(type).base_dtype
        for dt, arg in ((t.dtype.base_dtype, "input"), (want, "type")):
            if dt not in _BITCAST_TYPES:
                names = ", ".join(d.name for d in _BITCAST_TYPES)
                raise TypeError(
                    f"Value passed to parameter '{arg}' has DataType {dt.name} not in list of "
                    f"allowed values: {names}"
                )
        attrs = {"T": t.dtype.base_dtype, "type": want}
        return make_op("Bitcast", [t], attrs, name=scope).outputs[0]


def parallel_stack(values: Sequence[Any], name: str = "parallel_stack") -> Tensor:
    """stack(values) along a new first axis, all inputs copied in parallel (ParallelConcat):
    every input's shape must be known when the graph is built."""
    with name_scope(name):
        value_t = convert_to_tensor(values[0])
        value_shape = value_t.shape
        if not value_shape.is_fully_defined():
            raise ValueError(
                f"parallel_stack needs inputs of fully defined shape, got {value_shape}"
            )
        output_shape = TensorShape([len(values)]).concatenate(value_shape)
        expanded = [array_ops.expand_dims(v, 0) for v in values]
        attrs = {"N": len(expanded), "T": expanded[0].dtype.base_dtype, "shape": output_shape}
        return make_op("ParallelConcat", expanded, attrs, name="ParallelConcat").outputs[0]


# ---- composites -------------------------------------------------------------------------
def meshgrid(*args: Any, **kwargs: Any) -> list[Tensor]:
    """N-D coordinate arrays from N 1-D tensors; indexing "xy" (Cartesian, the default) swaps
    the first two output dimensions, "ij" (matrix) keeps them."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        key = next(iter(kwargs))
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with name_scope(name, "meshgrid", list(args)):
        ndim = len(args)
        s0 = (1,) * ndim
        output = [
            array_ops.reshape(array_ops.stack(x), (*s0[:i], -1, *s0[i + 1 :]))
            for i, x in enumerate(args)
        ]
        shapes = [array_ops.size(x) for x in args]
        output_dtype = convert_to_tensor(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = array_ops.reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = array_ops.reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult_fact = array_ops.ones(shapes, output_dtype)
        return [x * mult_fact for x in output]


def _with_nonzero_rank(data: Tensor) -> Tensor:
    if data.shape.ndims is not None:
        return array_ops.stack([data]) if data.shape.ndims == 0 else data
    data_shape = array_ops.shape(data)
    data_ndims = array_ops.rank(data)
    return array_ops.reshape(data, array_ops.concat([[1], data_shape], axis=0)[-data_ndims:])


def _tile_one_dimension(data: Tensor, axis: int, multiple: Any) -> Tensor:
    if data.shape.ndims is not None:
        multiples: Any = [1] * data.shape.ndims
        multiples[axis] = multiple
    else:
        ones_value = array_ops.ones(array_ops.rank(data), dtypes.int32)
        multiples = array_ops.concat(
            [ones_value[:axis], [multiple], ones_value[axis + 1 :]], axis=0
        )
    return array_ops.tile(data, multiples)


def _positive_axis(axis: int, ndims: int | None) -> int:
    if ndims is not None:
        if not -ndims <= axis < ndims:
            raise ValueError(f"axis={axis} out of bounds: expected {-ndims}<=axis<{ndims}")
        return axis + ndims if axis < 0 else axis
    if axis < 0:
        raise ValueError("axis may only be negative if ndims is statically known.")
    return axis


def repeat(input: Any, repeats: Any, axis: int | None = None, name: str | None = None) -> Tensor:
    """Each element (or slice along `axis`) of input repeated `repeats` times; with axis None
    the input is flattened first."""
    if axis is None:
        input = array_ops.reshape(input, [-1])
        axis = 0
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"axis must be an int; got {type(axis).__name__}")
    axis = int(axis)
    with name_scope(name, "Repeat", [input, repeats]):
        data = convert_to_tensor(input, name="data")
        reps = convert_to_tensor(repeats, name="repeats", preferred_dtype=dtypes.int32)
        if reps.dtype.base_dtype != dtypes.int32:
            reps = math_ops.cast(reps, dtypes.int32)  # as TF's convert_to_int_tensor
        if reps.shape.ndims is not None and reps.shape.ndims > 1:
            raise ValueError(f"Shape {reps.shape} must have rank at most 1")
        data = _with_nonzero_rank(data)
        data_shape = array_ops.shape(data)
        axis = _positive_axis(axis, data.shape.ndims)
        if reps.shape.ndims == 1 and data.shape.ndims is not None:
            have, want = data.shape.as_list()[axis], reps.shape.as_list()[0]
            if have is not None and want is not None and have != want:
                raise ValueError(f"Dimensions {have} and {want} are not compatible")
        if reps.shape.ndims == 0:
            expanded = array_ops.expand_dims(data, axis + 1)
            tiled = _tile_one_dimension(expanded, axis + 1, reps)
            result_shape = array_ops.concat(
                [data_shape[:axis], [-1], data_shape[axis + 1 :]], axis=0
            )
            return array_ops.reshape(tiled, result_shape)
        if reps.shape.ndims != axis + 1:
            repeats_shape = array_ops.shape(reps)
            repeats_ndims = array_ops.rank(reps)
            bshape = array_ops.concat(
                [data_shape[: axis + 1 - repeats_ndims], repeats_shape], axis=0
            )
            reps = broadcast_to(reps, bshape)
            reps.set_shape([None] * (axis + 1))
        max_repeat = math_ops.maximum(0, math_ops.reduce_max(reps))
        mask = array_ops.sequence_mask(reps, max_repeat)
        expanded = array_ops.expand_dims(data, axis + 1)
        tiled = _tile_one_dimension(expanded, axis + 1, max_repeat)
        masked = array_ops.boolean_mask(tiled, mask)
        if axis == 0:
            result = masked
        else:
            result_shape = array_ops.concat(
                [data_shape[:axis], [-1], data_shape[axis + 1 :]], axis=0
            )
            result = array_ops.reshape(masked, result_shape)
        if data.shape.ndims is not None:
            first = reps.shape.as_list()[0] if reps.shape.ndims else None
            dims = data.shape.as_list()
            result.set_shape([*dims[:axis], 0 if first == 0 else None, *dims[axis + 1 :]])
        return result


def batch_gather(params: Any, indices: Any, name: str | None = None) -> Tensor:
    """params gathered along the first dimension after the leading ones params and indices
    share (tf.gather with batch_dims=rank(indices) - 1)."""
    with name_scope(name, "BatchGather", [params, indices]):
        i = convert_to_tensor(indices, name="indices")
        p = convert_to_tensor(params, name="params")
        if i.shape.ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        batch_dims = i.shape.ndims - 1
        return array_ops.gather(p, i, axis=batch_dims, batch_dims=batch_dims)


# ---- static helpers ---------------------------------------------------------------------
def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """The value of `tensor` when it is known while building the graph, else None. As TF's
    constant_value: what is not tensor-like (numpy or Python values) comes back as it is,
    other tensor-likes (variables, SparseTensors) give None."""
    if not is_tensor(tensor):
        return tensor
    if not isinstance(tensor, Tensor):
        return None
    value = tensor_util.constant_value(tensor)
    if value is not None:
        # Callers may not change the Const's own array.
        return np.array(value)
    return None


def is_tensor(x: Any) -> bool:
    """True for graph tensors and tensor-like objects (variables, SparseTensor, IndexedSlices)."""
    return isinstance(x, (Tensor, SparseTensor, IndexedSlices)) or is_tensor_like(x)


def convert_to_tensor_or_sparse_tensor(
    value: Any, dtype: Any = None, name: str | None = None
) -> Any:
    """A SparseTensor (from a SparseTensorValue too) as it is, anything else a Tensor."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype and not dtype.is_compatible_with(value.dtype):
            raise RuntimeError(
                f"Sparse dtype: requested = {dtype.name}, actual = {value.dtype.name}"
            )
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def sparse_mask(a: IndexedSlices, mask_indices: Any, name: str | None = None) -> IndexedSlices:
    """The slices of `a` whose indices are not in mask_indices."""
    with name_scope(name, "sparse_mask", [a, mask_indices]) as scope:
        out_indices, to_gather = counting_ops.setdiff1d(a.indices, mask_indices)
        out_values = array_ops.gather(a.values, to_gather, name=scope)
        return IndexedSlices(out_values, out_indices, a.dense_shape)


__all__ = [
    "batch_gather",
    "bitcast",
    "convert_to_tensor_or_sparse_tensor",
    "ensure_shape",
    "get_static_value",
    "guarantee_const",
    "identity_n",
    "is_tensor",
    "meshgrid",
    "parallel_stack",
    "repeat",
    "sparse_mask",
    "unravel_index",
]
