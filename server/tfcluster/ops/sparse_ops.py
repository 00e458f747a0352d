"""tf.sparse basics on tf.SparseTensor, as TF 1.15 builds them: sparse_placeholder, to_dense,
sparse_to_dense, reductions, sparse x dense matmul, add, reorder, reshape, retain, slice,
concat, split, transpose, fill_empty_rows, softmax, maximum/minimum, and string_split."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tfcluster.framework.inferred_values import inferred_value
from tfcluster.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.op_util import Outputs
from tfcluster.ops.ragged_tensor import RaggedTensor

_I64 = dtypes.int64


def _vec(n: Any = None) -> TensorShape:
    return TensorShape([n])


def _mat(rank: Any = None) -> TensorShape:
    return TensorShape([None, rank])


def _rank_of(shape_t: Tensor) -> Any:
    s = shape_t.shape
    return s[0].value if s.ndims == 1 else None


def _static_shape(shape_t: Tensor) -> TensorShape:
    """A dense shape tensor's value as TF's shape refiner knows it (MakeShapeFromShapeTensor
    evaluates a small constant subgraph: the dense shape of a SparseConcat of constants)."""
    value = inferred_value(shape_t)
    if value is not None and value.ndim == 1:
        return TensorShape([None if d < 0 else int(d) for d in value])
    return tensor_util.constant_value_as_shape(shape_t)


# ---- op definitions ---------------------------------------------------------------------------
def _sparse_to_dense_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[2].dtype.base_dtype, _static_shape(inputs[1]))]


def _matmul_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    a_shape = _static_shape(inputs[2])
    b = inputs[3].shape
    rows = inner = None
    if a_shape.ndims == 2:
        rows, inner = a_shape.as_list()
        if attrs.get("adjoint_a"):
            rows, inner = inner, rows
    cols = b_inner = None
    if b.ndims == 2:
        b_inner, cols = b.as_list()
        if attrs.get("adjoint_b"):
            b_inner, cols = cols, b_inner
    if inner is not None and b_inner is not None and inner != b_inner:
        raise ValueError(
            f"Dimensions must be equal, but are {inner} and {b_inner} for "
            "'SparseTensorDenseMatMul' (op: 'SparseTensorDenseMatMul')"
        )
    return [(inputs[1].dtype.base_dtype, TensorShape([rows, cols]))]


def _reduce_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[1].dtype.base_dtype, TensorShape(None))]


def _reduce_sparse_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(_I64, _mat()), (inputs[1].dtype.base_dtype, _vec()), (_I64, _vec())]


def _dense_add_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[3].dtype.base_dtype, inputs[3].shape)]


def _reorder_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(_I64, inputs[0].shape), (inputs[1].dtype.base_dtype, inputs[1].shape)]


def _reshape_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    rank = _rank_of(inputs[2])
    return [(_I64, _mat(rank)), (_I64, _vec(rank))]


def _slice_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    rank = _rank_of(inputs[2])
    return [(_I64, _mat(rank)), (inputs[1].dtype.base_dtype, _vec()), (_I64, _vec(rank))]


def _concat_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    n = int(attrs["N"])
    rank = _rank_of(inputs[2 * n])
    # The rows of all inputs (each its indices' or its values' number, where known).
    counts = [_rows(i, v) for i, v in zip(inputs[:n], inputs[n : 2 * n])]
    rows = None if None in counts else sum(c for c in counts if c is not None)
    return [
        (_I64, TensorShape([rows, rank])),
        (inputs[n].dtype.base_dtype, _vec(rows)),
        (_I64, _vec(rank)),
    ]


def _rows(indices: Tensor, values: Tensor) -> int | None:
    """A sparse input's number of values, where its indices' or values' shape tells."""
    for t in (indices, values):
        rows = t.shape.as_list()[0] if t.shape.ndims else None
        if rows is not None:
            return int(rows)
    return None


def _split_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    n = int(attrs["num_split"])
    rank = _rank_of(inputs[3])
    dt = inputs[2].dtype.base_dtype
    return [(_I64, _mat(rank))] * n + [(dt, _vec())] * n + [(_I64, _vec(rank))] * n


def _add_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    rank = _rank_of(inputs[2])
    return [(_I64, _mat(rank)), (inputs[1].dtype.base_dtype, _vec()), (_I64, _vec(rank))]


def _add_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dt = inputs[0].dtype.base_dtype
    return [(dt, _vec(inputs[1].shape[0].value)), (dt, _vec(inputs[2].shape[0].value))]


def _fill_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    rank = _rank_of(inputs[2])
    shape = _static_shape(inputs[2])
    rows = shape[0].value if shape.ndims else None
    return [
        (_I64, _mat(rank)),
        (inputs[1].dtype.base_dtype, _vec()),
        (dtypes.bool_, _vec(rows)),
        (_I64, _vec(inputs[0].shape[0].value if inputs[0].shape.ndims else None)),
    ]


def _fill_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dt = inputs[1].dtype.base_dtype
    return [(dt, inputs[0].shape), (dt, TensorShape([]))]


def _values_like_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[1].dtype.base_dtype, inputs[1].shape)]


def _extremum_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    rank = _rank_of(inputs[2])
    return [(_I64, _mat(rank)), (inputs[1].dtype.base_dtype, _vec())]


def _slice_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [
        (
            inputs[0].dtype.base_dtype,
            _vec(inputs[1].shape[0].value if inputs[1].shape.ndims else None),
        )
    ]


def _string_split_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    if inputs[0].shape.ndims not in (None, 1):
        raise ValueError(
            f"Shape must be rank 1 but is rank {inputs[0].shape.ndims} for 'StringSplit' (op: "
            "'StringSplit')"
        )
    return [(_I64, _mat(2)), (dtypes.string, _vec()), (_I64, _vec(2))]


for _name, _infer in {
    "SparseToDense": _sparse_to_dense_infer,
    "SparseTensorDenseMatMul": _matmul_infer,
    "SparseReduceSum": _reduce_infer,
    "SparseReduceMax": _reduce_infer,
    "SparseReduceSumSparse": _reduce_sparse_infer,
    "SparseReduceMaxSparse": _reduce_sparse_infer,
    "SparseTensorDenseAdd": _dense_add_infer,
    "SparseReorder": _reorder_infer,
    "SparseReshape": _reshape_infer,
    "SparseSlice": _slice_infer,
    "SparseSliceGrad": _slice_grad_infer,
    "SparseConcat": _concat_infer,
    "SparseSplit": _split_infer,
    "SparseAdd": _add_infer,
    "SparseAddGrad": _add_grad_infer,
    "SparseFillEmptyRows": _fill_infer,
    "SparseFillEmptyRowsGrad": _fill_grad_infer,
    "SparseSoftmax": _values_like_infer,
    "SparseSparseMaximum": _extremum_infer,
    "SparseSparseMinimum": _extremum_infer,
    "StringSplit": _string_split_infer,
    "StringSplitV2": _string_split_infer,
}.items():
    op_def_registry.register(_name, _infer)


def _op(
    op_type: str, inputs: Sequence[Tensor], attrs: dict[str, Any], name: str | None
) -> Operation:
    with name_scope(name, op_type, list(inputs)) as scope:
        return get_default_graph().create_op(op_type, list(inputs), attrs, name=scope)


# ---- conversions ------------------------------------------------------------------------------
def _convert(sp_input: Any) -> SparseTensor:
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


def _int64_tensor(value: Any, name: str) -> Tensor:
    if isinstance(value, (int, np.integer)):
        return convert_to_tensor(value, name=name, dtype=_I64)
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be an integer value")
    return value if value.dtype.base_dtype == _I64 else math_ops.cast(value, _I64)


def sparse_placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> SparseTensor:
    """A SparseTensor of placeholders: feed it a SparseTensorValue (or a 3-tuple)."""
    shape_name = f"{name}/shape" if name is not None else None
    rank: Any = None
    shape_t: Any = None
    if shape is not None:
        if isinstance(shape, Tensor):
            rank = shape.shape[0].value if shape.shape.ndims else None
            shape_t = shape
        else:
            dims = shape.as_list() if isinstance(shape, TensorShape) else list(shape)
            rank = len(dims)
            if None not in dims:
                shape_t = convert_to_tensor(dims, dtype=_I64, name=shape_name)
    if shape_t is None:
        shape_t = array_ops.placeholder(_I64, shape=[rank], name=shape_name)
    return SparseTensor(
        values=array_ops.placeholder(dtype, shape=[None], name=f"{name}/values" if name else None),
        indices=array_ops.placeholder(
            _I64, shape=[None, rank], name=f"{name}/indices" if name else None
        ),
        dense_shape=shape_t,
    )


def from_dense(tensor: Any, name: str | None = None) -> SparseTensor:
    """The non-zero entries of a dense tensor as a SparseTensor."""
    with name_scope(name, "dense_to_sparse"):
        t = convert_to_tensor(tensor)
        zero = convert_to_tensor(np.zeros((), dtype=t.dtype.base_dtype.as_numpy_dtype))
        indices = array_ops.where(math_ops.not_equal(t, zero))
        values = array_ops.gather_nd(t, indices)
        return SparseTensor(indices, values, array_ops.shape(t, out_type=_I64))


def sparse_to_dense(
    sparse_indices: Any,
    output_shape: Any,
    sparse_values: Any,
    default_value: Any = 0,
    validate_indices: bool = True,
    name: str | None = None,
) -> Tensor:
    """A dense tensor of output_shape: sparse_values at sparse_indices, default elsewhere."""
    with name_scope(name, "SparseToDense", [sparse_indices, output_shape, sparse_values]) as scope:
        indices = convert_to_tensor(sparse_indices, name="sparse_indices")
        if indices.dtype.base_dtype not in (dtypes.int32, _I64):
            raise TypeError(
                f"Value passed to parameter 'sparse_indices' has DataType "
                f"{indices.dtype.base_dtype.name} not in list of allowed values: int32, int64"
            )
        shape = convert_to_tensor(output_shape, dtype=indices.dtype.base_dtype, name="output_shape")
        values = convert_to_tensor(sparse_values, name="sparse_values")
        default = convert_to_tensor(
            default_value, dtype=values.dtype.base_dtype, name="default_value"
        )
        attrs = {
            "validate_indices": bool(validate_indices),
            "T": values.dtype.base_dtype,
            "Tindices": indices.dtype.base_dtype,
        }
        op = get_default_graph().create_op(
            "SparseToDense", [indices, shape, values, default], attrs, name=scope
        )
        return op.outputs[0]


def sparse_tensor_to_dense(
    sp_input: Any, default_value: Any = None, validate_indices: bool = True, name: str | None = None
) -> Tensor:
    """The dense tensor a SparseTensor stands for (default_value where nothing is stored)."""
    sp = _convert(sp_input)
    if default_value is None:
        default_value = array_ops.zeros([], dtype=sp.dtype)
    return sparse_to_dense(
        sp.indices, sp.dense_shape, sp.values, default_value, validate_indices, name
    )


def sparse_tensor_dense_matmul(
    sp_a: Any, b: Any, adjoint_a: bool = False, adjoint_b: bool = False, name: str | None = None
) -> Tensor:
    """SparseTensor (rank 2) times a dense matrix."""
    sp = _convert(sp_a)
    with name_scope(name, "SparseTensorDenseMatMul", [sp.indices, sp.values, b]):
        b_t = convert_to_tensor(b, name="b")
        attrs = {
            "T": sp.values.dtype.base_dtype,
            "Tindices": sp.indices.dtype.base_dtype,
            "adjoint_a": bool(adjoint_a),
            "adjoint_b": bool(adjoint_b),
        }
        inputs = [sp.indices, sp.values, sp.dense_shape, b_t]
        op = get_default_graph().create_op(
            "SparseTensorDenseMatMul", inputs, attrs, name="SparseTensorDenseMatMul"
        )
        return op.outputs[0]


def _reduction_axes(sp: SparseTensor, axis: Any, reduction_axes: Any) -> Tensor:
    if reduction_axes is not None:
        axis = reduction_axes
    if axis is not None:
        return convert_to_tensor(axis, dtype=dtypes.int32)
    rank = _rank_of(sp.dense_shape)
    if rank is not None:
        return convert_to_tensor(np.arange(rank, dtype=np.int32))
    return math_ops.range(0, array_ops.size(sp.dense_shape))


def _keepdims(keepdims: Any, keep_dims: Any) -> bool:
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
    value = keepdims if keepdims is not None else keep_dims
    return bool(value) if value is not None else False


def _reduce(
    op_type: str, sp_input: Any, axis: Any, keepdims: Any, reduction_axes: Any, keep_dims: Any
) -> Operation:
    sp = _convert(sp_input)
    keep = _keepdims(keepdims, keep_dims)
    axes = _reduction_axes(sp, axis, reduction_axes)
    attrs = {"keep_dims": keep, "T": sp.values.dtype.base_dtype}
    op = _op(op_type, [sp.indices, sp.values, sp.dense_shape, axes], attrs, None)
    return op


def _reduced_static_shape(sp: SparseTensor, axes: Any, keep: bool) -> TensorShape:
    shape = sp.shape
    value = tensor_util.constant_value(axes) if isinstance(axes, Tensor) else None
    if shape.ndims is None or value is None:
        return TensorShape(None)
    rank = shape.ndims
    reduced = {int(a) % rank for a in np.asarray(value).reshape(-1)}
    dims = shape.as_list()
    if keep:
        return TensorShape([1 if i in reduced else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in reduced])


def sparse_reduce_sum(
    sp_input: Any,
    axis: Any = None,
    keepdims: Any = None,
    reduction_axes: Any = None,
    keep_dims: Any = None,
) -> Tensor:
    """The sum of a SparseTensor's entries along the axes (all of them by default), dense."""
    op = _reduce("SparseReduceSum", sp_input, axis, keepdims, reduction_axes, keep_dims)
    out = op.outputs[0]
    out.set_shape(
        _reduced_static_shape(_convert(sp_input), op.inputs[3], op._get_attr("keep_dims"))
    )
    return out


def sparse_reduce_max(
    sp_input: Any,
    axis: Any = None,
    keepdims: Any = None,
    reduction_axes: Any = None,
    keep_dims: Any = None,
) -> Tensor:
    """The max over a SparseTensor's stored entries along the axes, dense (0 where none)."""
    op = _reduce("SparseReduceMax", sp_input, axis, keepdims, reduction_axes, keep_dims)
    out = op.outputs[0]
    out.set_shape(
        _reduced_static_shape(_convert(sp_input), op.inputs[3], op._get_attr("keep_dims"))
    )
    return out


def sparse_reduce_sum_sparse(
    sp_input: Any,
    axis: Any = None,
    keepdims: Any = None,
    reduction_axes: Any = None,
    keep_dims: Any = None,
) -> SparseTensor:
    """sparse_reduce_sum with a SparseTensor result."""
    op = _reduce("SparseReduceSumSparse", sp_input, axis, keepdims, reduction_axes, keep_dims)
    return SparseTensor(*op.outputs)


def sparse_reduce_max_sparse(
    sp_input: Any,
    axis: Any = None,
    keepdims: Any = None,
    reduction_axes: Any = None,
    keep_dims: Any = None,
) -> SparseTensor:
    """sparse_reduce_max with a SparseTensor result."""
    op = _reduce("SparseReduceMaxSparse", sp_input, axis, keepdims, reduction_axes, keep_dims)
    return SparseTensor(*op.outputs)


def sparse_add(a: Any, b: Any, threshold: Any = None, thresh: Any = None) -> Any:
    """a + b where at least one is sparse: a SparseTensor when both are, else dense."""
    if threshold is not None and thresh is not None:
        raise ValueError("Cannot specify both 'threshold' and 'thresh'")
    threshold = threshold if threshold is not None else (thresh if thresh is not None else 0)
    sparse_classes = (SparseTensor, SparseTensorValue)
    if not any(isinstance(x, sparse_classes) for x in (a, b)):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if all(isinstance(x, sparse_classes) for x in (a, b)):
        sa, sb = _convert(a), _convert(b)
        real = sa.values.dtype.base_dtype.real_dtype
        thresh_t = convert_to_tensor(threshold, dtype=real, name="threshold")
        attrs = {"T": sa.values.dtype.base_dtype, "Treal": real}
        inputs = [
            sa.indices,
            sa.values,
            sa.dense_shape,
            sb.indices,
            sb.values,
            sb.dense_shape,
            thresh_t,
        ]
        op = _op("SparseAdd", inputs, attrs, None)
        out_ind, out_val, out_shape = op.outputs
        sa.shape.assert_is_compatible_with(sb.shape)
        static = sa.shape.merge_with(sb.shape)
        shape_arg: Any = static.as_list() if static.is_fully_defined() else out_shape
        return SparseTensor(out_ind, out_val, shape_arg)
    if isinstance(b, sparse_classes):
        a, b = b, a
    sa = _convert(a)
    b_t = convert_to_tensor(b)
    attrs = {"T": sa.values.dtype.base_dtype, "Tindices": sa.indices.dtype.base_dtype}
    return _op(
        "SparseTensorDenseAdd", [sa.indices, sa.values, sa.dense_shape, b_t], attrs, None
    ).outputs[0]


def sparse_reorder(sp_input: Any, name: str | None = None) -> SparseTensor:
    """The same SparseTensor with its entries in row-major order."""
    sp = _convert(sp_input)
    attrs = {"T": sp.values.dtype.base_dtype}
    op = _op("SparseReorder", [sp.indices, sp.values, sp.dense_shape], attrs, name)
    dense_shape: Any = (
        sp.shape.as_list() if sp.shape.is_fully_defined() else array_ops.identity(sp.dense_shape)
    )
    return SparseTensor(op.outputs[0], op.outputs[1], dense_shape)


def sparse_reshape(sp_input: Any, shape: Any, name: str | None = None) -> SparseTensor:
    """The SparseTensor with a new dense shape (one dimension may be -1)."""
    sp = _convert(sp_input)
    shape_t = math_ops.cast(shape, _I64)
    with name_scope(name, "SparseReshape", [sp.indices, sp.values, sp.dense_shape]) as scope:
        op = get_default_graph().create_op(
            "SparseReshape", [sp.indices, sp.dense_shape, shape_t], {}, name=scope
        )
        reshaped_ind, reshaped_shape = op.outputs
        wanted = tensor_util.constant_value_as_shape(shape_t)
        if wanted.ndims is not None and sp.shape.is_fully_defined():
            by_user = tensor_util.constant_value(shape_t)
            if by_user is not None and int(np.sum(np.asarray(by_user) == -1)) > 1:
                raise ValueError(f"At most one dimension can be inferred (-1). Found: {by_user}")
            dims = wanted.as_list()
            original = list(dims)
            size = int(np.prod([int(d) for d in sp.shape.as_list() if d is not None]))
            implied = [i for i, d in enumerate(dims) if d is None]
            if len(implied) == 1:
                others = [int(d) for d in dims if d is not None]
                dims[implied[0]] = int(size // int(np.prod(others)))
            if len(implied) <= 1:
                reshaped_size = int(np.prod([int(d) for d in dims if d is not None]))
                if reshaped_size != size:
                    raise ValueError(
                        f"Cannot reshape a tensor with {size} elements to shape {original} "
                        f"({reshaped_size} elements)."
                    )
                reshaped_shape = convert_to_tensor(dims, dtype=_I64)
        return SparseTensor(reshaped_ind, array_ops.identity(sp.values), reshaped_shape)


def sparse_retain(sp_input: Any, to_retain: Any) -> SparseTensor:
    """The entries of sp_input whose flag in to_retain (a bool vector, one per entry) is set."""
    sp = _convert(sp_input)
    retain = convert_to_tensor(to_retain)
    if retain.shape.ndims not in (None, 1):
        raise ValueError(f"Shape {retain.shape} must have rank 1")
    where_true = array_ops.reshape(array_ops.where(retain), [-1])
    return SparseTensor(
        array_ops.gather(sp.indices, where_true),
        array_ops.gather(sp.values, where_true),
        array_ops.identity(sp.dense_shape),
    )


def sparse_slice(sp_input: Any, start: Any, size: Any, name: str | None = None) -> SparseTensor:
    """The part of sp_input in [start, start + size), re-indexed from start."""
    sp = _convert(sp_input)
    start_t = convert_to_tensor(start, _I64)
    size_t = convert_to_tensor(size, _I64)
    with name_scope(name, "SparseSlice", [sp.indices, sp.values, sp.dense_shape]) as scope:
        attrs = {"T": sp.values.dtype.base_dtype}
        inputs = [sp.indices, sp.values, sp.dense_shape, start_t, size_t]
        op = get_default_graph().create_op("SparseSlice", inputs, attrs, name=scope)
        return SparseTensor(*op.outputs)


def sparse_concat(
    axis: Any,
    sp_inputs: Sequence[Any],
    name: str | None = None,
    expand_nonconcat_dim: bool = False,
    concat_dim: Any = None,
    expand_nonconcat_dims: Any = None,
) -> SparseTensor:
    """The SparseTensors joined along axis."""
    if expand_nonconcat_dims is not None:
        expand_nonconcat_dim = expand_nonconcat_dims
    if axis is None:
        axis = concat_dim
    if not isinstance(sp_inputs, (list, tuple)):
        raise TypeError("Inputs must be a list or tuple.")
    sps = [_convert(x) for x in sp_inputs]
    if len(sps) == 1:
        return sps[0]
    shapes = [sp.dense_shape for sp in sps]
    if expand_nonconcat_dim:
        max_shape = math_ops.reduce_max(
            array_ops.concat([array_ops.reshape(s, [1, -1]) for s in shapes], 0), 0
        )
        shapes = [
            array_ops.concat(
                [max_shape[:axis], s[-1:] if axis == -1 else s[axis : axis + 1]]
                + ([] if axis == -1 else [max_shape[axis + 1 :]]),
                0,
            )
            for s in shapes
        ]
    attrs = {"concat_dim": int(axis), "N": len(sps), "T": sps[0].values.dtype.base_dtype}
    inputs = [sp.indices for sp in sps] + [sp.values for sp in sps] + shapes
    op = _op("SparseConcat", inputs, attrs, name)
    out_ind, out_val, out_shape = op.outputs
    statics = [tensor_util.constant_value(s) for s in shapes]
    if statics and all(s is not None for s in statics):
        total = sum(int(np.asarray(s)[axis]) for s in statics)
        first = np.array(statics[0], dtype=np.int64)
        first[axis] = total
        out_shape = convert_to_tensor(first)
    return SparseTensor(out_ind, out_val, out_shape)


class KeywordRequired:
    def __repr__(self) -> str:
        return "KeywordRequired()"


def sparse_split(
    keyword_required: Any = KeywordRequired(),
    sp_input: Any = None,
    num_split: Any = None,
    axis: Any = None,
    name: str | None = None,
    split_dim: Any = None,
) -> list[SparseTensor]:
    """sp_input split into num_split SparseTensors along axis."""
    if not isinstance(keyword_required, KeywordRequired):
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:
        axis = split_dim
    if axis is None:
        raise ValueError("axis is required")
    sp = _convert(sp_input)
    with name_scope(name, "SparseSplit", [sp.indices, sp.values, sp.dense_shape]) as scope:
        axis_t = convert_to_tensor(axis, dtype=_I64, name="split_dim")
        attrs = {"num_split": int(num_split), "T": sp.values.dtype.base_dtype}
        inputs = [axis_t, sp.indices, sp.values, sp.dense_shape]
        op = get_default_graph().create_op("SparseSplit", inputs, attrs, name=scope)
    n = int(num_split)
    outs = op.outputs
    return [SparseTensor(outs[i], outs[n + i], outs[2 * n + i]) for i in range(n)]


def sparse_transpose(sp_input: Any, perm: Any = None, name: str | None = None) -> SparseTensor:
    """The SparseTensor with its dimensions permuted (reversed by default), reordered."""
    sp = _convert(sp_input)
    with name_scope(name, "SparseTranspose", [sp.indices, sp.values, sp.dense_shape]):
        if perm is None:
            rank = array_ops.size(sp.dense_shape)
            perm = (rank - 1) - math_ops.range(0, rank, 1)
        transposed = array_ops.transpose(array_ops.gather(array_ops.transpose(sp.indices), perm))
        perm_value = tensor_util.constant_value(convert_to_tensor(perm))
        if perm_value is not None and sp.shape.is_fully_defined():
            old = sp.shape.as_list()
            new_shape: Any = [old[int(p)] for p in np.asarray(perm_value).reshape(-1)]
        else:
            new_shape = array_ops.gather(sp.dense_shape, perm)
        return sparse_reorder(SparseTensor(transposed, sp.values, new_shape))


def sparse_fill_empty_rows(
    sp_input: Any, default_value: Any, name: str | None = None
) -> tuple[SparseTensor, Tensor]:
    """Every empty row given one entry (default_value at column 0); and which rows were empty."""
    sp = _convert(sp_input)
    with name_scope(name, "SparseFillEmptyRows", [sp.indices, sp.values, sp.dense_shape]):
        default = convert_to_tensor(default_value, dtype=sp.values.dtype.base_dtype)
        attrs = {"T": sp.values.dtype.base_dtype}
        op = _op(
            "SparseFillEmptyRows", [sp.indices, sp.values, sp.dense_shape, default], attrs, None
        )
        out_ind, out_val, empty, _ = op.outputs
        return SparseTensor(out_ind, out_val, sp.dense_shape), empty


def sparse_softmax(sp_input: Any, name: str | None = None) -> SparseTensor:
    """Softmax over the last dimension of a SparseTensor's stored entries."""
    sp = _convert(sp_input)
    with name_scope(name, "SparseSoftmax", [sp.indices, sp.values]) as scope:
        attrs = {"T": sp.values.dtype.base_dtype}
        op = get_default_graph().create_op(
            "SparseSoftmax", [sp.indices, sp.values, sp.dense_shape], attrs, name=scope
        )
        return SparseTensor(sp.indices, op.outputs[0], sp.dense_shape)


def _extremum(
    op_type: str, scope_name: str, sp_a: Any, sp_b: Any, name: str | None
) -> SparseTensor:
    a, b = _convert(sp_a), _convert(sp_b)
    with name_scope(name, scope_name, [a.indices, a.values, b.indices, b.values]) as scope:
        attrs = {"T": a.values.dtype.base_dtype}
        inputs = [a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape]
        op = get_default_graph().create_op(op_type, inputs, attrs, name=scope)
    return SparseTensor(op.outputs[0], op.outputs[1], a.dense_shape)


def sparse_maximum(sp_a: Any, sp_b: Any, name: str | None = None) -> SparseTensor:
    """Element-wise maximum of two SparseTensors (missing entries are zeros)."""
    return _extremum("SparseSparseMaximum", "SparseSparseMaximum", sp_a, sp_b, name)


def sparse_minimum(sp_a: Any, sp_b: Any, name: str | None = None) -> SparseTensor:
    """Element-wise minimum of two SparseTensors (missing entries are zeros)."""
    return _extremum("SparseSparseMinimum", "SparseSparseMinimum", sp_a, sp_b, name)


def sparse_reset_shape(sp_input: Any, new_shape: Any = None) -> SparseTensor:
    """The SparseTensor with a new (not smaller) dense shape, or its tightest one."""
    sp = _convert(sp_input)
    in_ind = array_ops.identity(sp.indices)
    in_val = array_ops.identity(sp.values)
    in_shape = array_ops.identity(sp.dense_shape)
    if new_shape is None:
        low = math_ops.reduce_max(in_ind, axis=0)
        out: Any = math_ops.maximum(
            convert_to_tensor(0, dtype=_I64), math_ops.add(low, array_ops.ones_like(in_shape))
        )
        return SparseTensor(in_ind, in_val, out)
    out_t = math_ops.cast(convert_to_tensor(new_shape), _I64)
    value = tensor_util.constant_value(out_t)
    if value is not None and sp.shape.is_fully_defined():
        current = np.array(sp.shape.as_list())
        if not np.all(current <= value):
            raise ValueError(
                "Requested new_shape should have dimension sizes >= sp_input.shape.  Found "
                f"new_shape ({current}), sp_input.shape ({value})."
            )
        return SparseTensor(in_ind, in_val, value)
    from tfcluster.ops import check_ops, control_flow_ops

    out_t = control_flow_ops.with_dependencies(
        [check_ops.assert_equal(array_ops.shape(in_shape), array_ops.shape(out_t))], out_t
    )
    out_t = control_flow_ops.with_dependencies(
        [check_ops.assert_less_equal(in_shape, out_t)], out_t
    )
    return SparseTensor(in_ind, in_val, out_t)


def sparse_merge(
    sp_ids: Any,
    sp_values: Any,
    vocab_size: Any,
    name: str | None = None,
    already_sorted: bool = False,
) -> SparseTensor:
    """Combines ids and values SparseTensors into one keyed by the ids (one id list or many)."""
    if isinstance(sp_ids, (SparseTensor, SparseTensorValue)):
        sp_ids = [sp_ids]
        vocab_size = [vocab_size]
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    with name_scope(name, "SparseMerge"):
        ids_list = [_convert(x) for x in sp_ids]
        values = _convert(sp_values)
        ids = []
        for sp in ids_list:
            v = sp.values if sp.dtype.base_dtype == _I64 else math_ops.cast(sp.values, _I64)
            ids.append(array_ops.expand_dims(v, axis=1))
        sizes = [math_ops.cast(x, _I64) for x in vocab_size]
        preserved = ids_list[0].indices[:, :-1]
        new_ind = array_ops.concat([preserved, *ids], 1)
        # The sizes go in as a list: concat packs them (`concat_1/values_1`), as in TF.
        new_shape = array_ops.concat([ids_list[0].dense_shape[:-1], sizes], 0)
        result = SparseTensor(new_ind, values.values, new_shape)
        if already_sorted:
            return result
        ordered = sparse_reorder(result)
        return SparseTensor(ordered.indices, ordered.values, new_shape)


def sparse_to_indicator(sp_input: Any, vocab_size: Any, name: str | None = None) -> Tensor:
    """A dense bool tensor: last dimension vocab_size, True at the ids sp_input holds."""
    sp = _convert(sp_input)
    with name_scope(name, "SparseToIndicator", [sp.indices, sp.values]) as scope_name:
        n = array_ops.shape(sp.indices)[0]
        flags = array_ops.fill(array_ops.expand_dims(n, 0), True)
        merged = sparse_merge(
            sp, SparseTensor(sp.indices, flags, sp.dense_shape), vocab_size, scope_name
        )
        return sparse_tensor_to_dense(
            merged, default_value=False, validate_indices=False, name=scope_name
        )


def sparse_expand_dims(sp_input: Any, axis: Any = None, name: str | None = None) -> SparseTensor:
    """A dimension of size 1 inserted at axis (default -1)."""
    sp = _convert(sp_input)
    rank = _rank_of(sp.dense_shape)
    axis = -1 if axis is None else axis
    with name_scope(name, "expand_dims", [sp.indices, sp.values, sp.dense_shape]):
        if isinstance(axis, (int, np.integer)):
            if rank is None:
                raise ValueError("sparse.expand_dims needs the static rank of sp_input")
            a = int(axis)
            a = a if a >= 0 else a + rank + 1
            n = array_ops.shape(sp.indices)[0]
            zeros = array_ops.zeros(array_ops.stack([n, 1]), dtype=_I64)
            indices = array_ops.concat([sp.indices[:, :a], zeros, sp.indices[:, a:]], 1)
            shape = array_ops.concat(
                [
                    sp.dense_shape[:a],
                    convert_to_tensor([1], dtype=_I64, name="new_shape"),
                    sp.dense_shape[a:],
                ],
                0,
            )
            return SparseTensor(indices, sp.values, shape)
        raise TypeError(
            "axis must be an integer value in range [-rank(sp_input) - 1, rank(sp_input)]"
        )


def sparse_eye(
    num_rows: Any, num_columns: Any = None, dtype: Any = dtypes.float32, name: str | None = None
) -> SparseTensor:
    """A sparse identity matrix."""
    with name_scope(name, "eye", [num_rows, num_columns]):
        rows = _int64_tensor(num_rows, "num_rows")
        cols = rows if num_columns is None else _int64_tensor(num_columns, "num_columns")
        diag = math_ops.minimum(rows, cols)
        rng = math_ops.range_cast_to(diag, dtype=_I64)
        return SparseTensor(
            array_ops.stack([rng, rng], axis=1),
            array_ops.ones(array_ops.reshape(diag, [1]), dtype=dtype),
            array_ops.stack([rows, cols]),
        )


def string_split(
    source: Any,
    sep: Any = None,
    skip_empty: bool = True,
    delimiter: Any = None,
    result_type: str = "SparseTensor",
    name: str | None = None,
) -> SparseTensor:
    """tf.string_split: each string of a vector split at any byte of the delimiter (a space by
    default; '' splits into bytes), as a SparseTensor of tokens."""
    if result_type != "SparseTensor":
        raise ValueError(f"result_type {result_type!r} is not supported (SparseTensor only)")
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'")
    delim = sep if sep is not None else delimiter
    if delim is None:
        delim = " "
    with name_scope(name, "StringSplit", [source]):
        delim_t = convert_to_tensor(delim, dtype=dtypes.string)
        source_t = convert_to_tensor(source, dtype=dtypes.string)
        op = _op("StringSplit", [source_t, delim_t], {"skip_empty": bool(skip_empty)}, None)
        return SparseTensor(*op.outputs)


def strings_split_v1(
    input: Any = None,
    sep: Any = None,
    maxsplit: int = -1,
    result_type: str = "SparseTensor",
    source: Any = None,
    name: str | None = None,
) -> SparseTensor:
    """tf.strings.split: split at the whole separator (whitespace runs by default), as a
    SparseTensor or (result_type="RaggedTensor") a RaggedTensor."""
    if result_type not in ("SparseTensor", "RaggedTensor"):
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
    value = source if source is not None else input
    with name_scope(name, "StringSplit", [value]):
        source_t = convert_to_tensor(value, dtype=dtypes.string, name="input")
        sep_t = convert_to_tensor("" if sep is None else sep, dtype=dtypes.string)
        attrs = {"maxsplit": int(maxsplit)}
        if result_type == "SparseTensor":
            return SparseTensor(*_op("StringSplitV2", [source_t, sep_t], attrs, None).outputs)
        # TF 1.15 builds the ragged result in tf.strings.split's v2 form: a nested scope.
        with name_scope(None, "StringSplit", [value]):
            indices, values, shape = _op("StringSplitV2", [source_t, sep_t], attrs, None).outputs
            nrows = shape[0]
            rt = RaggedTensor.from_value_rowids(values, indices[:, 0], nrows, validate=False)
            count = source_t.shape[0].value if source_t.shape.ndims == 1 else None
            rt.row_splits.set_shape([None if count is None else count + 1])
            return rt  # type: ignore[return-value]


__all__ = [
    "sparse_add",
    "sparse_concat",
    "sparse_fill_empty_rows",
    "sparse_maximum",
    "sparse_merge",
    "sparse_minimum",
    "sparse_placeholder",
    "sparse_reduce_max",
    "sparse_reduce_max_sparse",
    "sparse_reduce_sum",
    "sparse_reduce_sum_sparse",
    "sparse_reorder",
    "sparse_reset_shape",
    "sparse_reshape",
    "sparse_retain",
    "sparse_slice",
    "sparse_softmax",
    "sparse_split",
    "sparse_tensor_dense_matmul",
    "sparse_tensor_to_dense",
    "sparse_to_dense",
    "sparse_to_indicator",
    "sparse_transpose",
    "string_split",
]


# ---- SparseTensor's operators: `sp * dense`, `sp / dense` ---------------------------------------
def _sparse_dense_cwise(op_type: str, sp: SparseTensor, y: Tensor, name: str) -> Tensor:
    inputs = [sp.indices, sp.values, sp.dense_shape, y]
    attrs = {"T": sp.values.dtype.base_dtype}
    return get_default_graph().create_op(op_type, inputs, attrs, name=name).outputs[0]


def _sparse_dense_truediv(sp: SparseTensor, y: Tensor, name: str) -> Tensor:
    # TF's _sparse_dense_truediv: its own "truediv" scope, integers cast as dense truediv does.
    with name_scope(name, "truediv", [sp.indices, sp.values, sp.dense_shape, y]) as scope:
        x_dtype, y_dtype = sp.values.dtype.base_dtype, y.dtype.base_dtype
        if x_dtype != y_dtype:
            raise TypeError(f"x and y must have the same dtype, got {x_dtype!r} != {y_dtype!r}")
        target = math_ops.truediv_target(x_dtype)
        if target is not None:
            sp = SparseTensor(sp.indices, math_ops.cast(sp.values, target), sp.dense_shape)
            y = math_ops.cast(y, target)
        return _sparse_dense_cwise("SparseDenseCwiseDiv", sp, y, scope)


def _sparse_operator(op_name: str, build: Any) -> Any:
    """TF's binary_op_wrapper_sparse: `sp <op> y` with y converted to the values' dtype; the
    result keeps sp's indices and dense_shape. SparseTensor has no reflected forms."""

    def operator(sp: SparseTensor, y: Any) -> SparseTensor:
        with name_scope(None, op_name, [sp, y]) as scope:
            y_t = convert_to_tensor(y, dtype=sp.dtype.base_dtype, name="y")
            return SparseTensor(sp.indices, build(sp, y_t, scope), sp.dense_shape)

    operator.__name__ = f"__{op_name}__"
    return operator


_SPARSE_OPERATORS = {
    "__mul__": _sparse_operator(
        "mul", lambda sp, y, name: _sparse_dense_cwise("SparseDenseCwiseMul", sp, y, name)
    ),
    "__div__": _sparse_operator(
        "div", lambda sp, y, name: _sparse_dense_cwise("SparseDenseCwiseDiv", sp, y, name)
    ),
    "__truediv__": _sparse_operator("truediv", _sparse_dense_truediv),
}
for _name, _fn in _SPARSE_OPERATORS.items():
    setattr(SparseTensor, _name, _fn)
