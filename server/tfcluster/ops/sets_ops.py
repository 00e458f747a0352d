"""Set operations over the last dimension (tf.sets in TF 1.15): intersection, difference,
union of dense or sparse sets, and set sizes. Each row (all dimensions but the last) holds
one set; results are SparseTensors whose rows are sorted. Not differentiable, as in TF."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op

# TF's set element types (uint16 where this build has that dtype).
_VALID_DTYPES = tuple(
    getattr(dtypes, name)
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "string")
    if hasattr(dtypes, name)
)


def _set_op_infer(rank_of: int) -> op_def_registry.InferFn:
    """(indices [n, rank], values [n], shape [rank]): the rank is that of input `rank_of`
    (the dense first set), or unknown for sparse-to-sparse."""

    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        rank = inputs[rank_of].shape.ndims if rank_of >= 0 else None
        if len(inputs) == 2:  # dense, dense: the rows' shapes must agree
            a, b = inputs[0].shape, inputs[1].shape
            if a.ndims is not None and b.ndims is not None:
                a[:-1].assert_is_compatible_with(b[:-1])
        return [
            (dtypes.int64, TensorShape([None, rank])),
            (attrs["T"], TensorShape([None])),
            (dtypes.int64, TensorShape([rank])),
        ]

    return infer


def _set_size_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.int32, TensorShape(None))]


op_def_registry.register("DenseToDenseSetOperation", _set_op_infer(0))
op_def_registry.register("DenseToSparseSetOperation", _set_op_infer(0))
op_def_registry.register("SparseToSparseSetOperation", _set_op_infer(-1))
op_def_registry.register("SetSize", _set_size_infer)


def _tf_str(dtype: dtypes.DType) -> str:
    """A dtype as TF 1.15 prints it in these errors."""
    return f"<dtype: '{dtype.base_dtype.name}'>"


def _as_set(value: Any, name: str) -> Tensor | SparseTensor:
    if isinstance(value, SparseTensor):
        return value
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    return convert_to_tensor(value, name=name)


def set_size(a: Any, validate_indices: bool = True) -> Tensor:
    """The number of unique elements in each row of the SparseTensor `a` (int32)."""
    a = _as_set(a, "a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.values.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"Invalid dtype {_tf_str(a.values.dtype)}.")
    attrs = {"T": a.values.dtype.base_dtype, "validate_indices": validate_indices}
    op = make_op("SetSize", [a.indices, a.values, a.dense_shape], attrs, name="SetSize")
    return op.outputs[0]


def _convert_pair(a: Any, b: Any) -> tuple[Any, Any, bool]:
    a = _as_set(a, "a")
    if a.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"'a' invalid dtype {_tf_str(a.dtype)}.")
    b = _as_set(b, "b")
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {_tf_str(a.dtype)} vs {_tf_str(b.dtype)}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a: Any, b: Any, operation: str, validate_indices: bool) -> SparseTensor:
    attrs = {
        "set_operation": operation,
        "validate_indices": validate_indices,
        "T": a.dtype.base_dtype,
    }
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError(
                "Sparse,Dense is not supported, but Dense,Sparse is. "
                "Please flip the order of your inputs."
            )
        inputs = [a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape]
        op = make_op("SparseToSparseSetOperation", inputs, attrs)
    elif isinstance(b, SparseTensor):
        inputs = [a, b.indices, b.values, b.dense_shape]
        op = make_op("DenseToSparseSetOperation", inputs, attrs)
    else:
        op = make_op("DenseToDenseSetOperation", [a, b], attrs)
    indices, values, shape = op.outputs
    return SparseTensor(indices, values, shape)


def set_intersection(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    a, b, _ = _convert_pair(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


def set_difference(
    a: Any, b: Any, aminusb: bool = True, validate_indices: bool = True
) -> SparseTensor:
    a, b, flipped = _convert_pair(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


def set_union(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    a, b, _ = _convert_pair(a, b)
    return _set_operation(a, b, "union", validate_indices)


__all__ = ["set_difference", "set_intersection", "set_size", "set_union"]
