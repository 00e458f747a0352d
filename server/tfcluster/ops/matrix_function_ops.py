"""Matrix functions of TF 1.15: tf.linalg.sqrtm (tf.matrix_square_root, the MatrixSquareRoot op)
and tf.linalg.logm (MatrixLogarithm, complex matrices only)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops.infer_util import shape_list, with_rank_at_least
from tfcluster.ops.op_util import Outputs, check_dtype, make_op

_SQRTM_TYPES = (
    dtypes.float64,
    dtypes.float32,
    dtypes.float16,
    dtypes.complex64,
    dtypes.complex128,
)
_LOGM_TYPES = (dtypes.complex64, dtypes.complex128)


def _square_infer(op_type: str) -> op_def_registry.InferFn:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        x = inputs[0]
        with_rank_at_least(x.shape, 2, op_type)
        dims = shape_list(x.shape)
        if dims is not None and None not in dims[-2:] and dims[-1] != dims[-2]:
            raise ValueError(
                f"Dimensions must be equal, but are {dims[-2]} and {dims[-1]} for "
                f"'{op_type}' (op: '{op_type}') with input shapes: {x.shape}."
            )
        return [(x.dtype.base_dtype, x.shape)]

    return infer


op_def_registry.register("MatrixSquareRoot", _square_infer("MatrixSquareRoot"))
op_def_registry.register("MatrixLogarithm", _square_infer("MatrixLogarithm"))


def _unary(op_type: str, input: Any, allowed: Sequence[dtypes.DType], name: str | None) -> Tensor:
    with name_scope(name, op_type, [input]) as scope:
        x = convert_to_tensor(input, name="input")
        check_dtype(x, allowed, op_type, "input")
        return make_op(op_type, [x], {"T": x.dtype.base_dtype}, name=scope).outputs[0]


def matrix_square_root(input: Any, name: str | None = None) -> Tensor:
    """The principal square root of each square matrix (NaN where a real one has none)."""
    return _unary("MatrixSquareRoot", input, _SQRTM_TYPES, name)


def matrix_logarithm(input: Any, name: str | None = None) -> Tensor:
    """The principal logarithm of each square complex matrix."""
    return _unary("MatrixLogarithm", input, _LOGM_TYPES, name)


sqrtm = matrix_square_root
logm = matrix_logarithm
