"""Matrix ops the initializers build on: Qr (orthogonal), DiagPart (its signs), MatrixDiag and
MatrixSetDiag (eye, for the identity initializer), with TF 1.15's op types and node names.

Not exported as tf.* names here: the tf.linalg surface (issue 15, point 7) is its own work.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops
from tfcluster.ops.op_util import Outputs, make_op

_MATRIX_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64)


def _at_least(t: Tensor, rank: int, op_type: str) -> TensorShape:
    shape = t.shape
    if shape.ndims is not None and shape.ndims < rank:
        raise ValueError(
            f"Shape must be at least rank {rank} but is rank {shape.ndims} for '{op_type}'"
        )
    return shape


def _qr_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    a = inputs[0]
    shape = _at_least(a, 2, "Qr")
    dt = a.dtype.base_dtype
    if shape.ndims is None:
        return [(dt, TensorShape(None)), (dt, TensorShape(None))]
    *batch, m, n = shape.as_list()
    k = None if m is None or n is None else min(m, n)
    if attrs.get("full_matrices", False):
        return [(dt, TensorShape([*batch, m, m])), (dt, TensorShape([*batch, m, n]))]
    return [(dt, TensorShape([*batch, m, k])), (dt, TensorShape([*batch, k, n]))]


def _diag_part_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    shape = x.shape
    if shape.ndims is None:
        return [(x.dtype.base_dtype, TensorShape(None))]
    dims = shape.as_list()
    if not dims or len(dims) % 2:
        raise ValueError(f"Input must have even and non-zero rank, input rank is {len(dims)}")
    half = len(dims) // 2
    out = []
    for a, b in zip(dims[:half], dims[half:]):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b} for 'DiagPart'")
        out.append(a if a is not None else b)
    return [(x.dtype.base_dtype, TensorShape(out))]


def _matrix_diag_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    d = inputs[0]
    shape = _at_least(d, 1, "MatrixDiag")
    if shape.ndims is None:
        return [(d.dtype.base_dtype, TensorShape(None))]
    dims = shape.as_list()
    return [(d.dtype.base_dtype, TensorShape([*dims, dims[-1]]))]


def _matrix_set_diag_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, d = inputs
    shape = _at_least(x, 2, "MatrixSetDiag")
    if shape.ndims is not None and d.shape.ndims is not None:
        *batch, m, n = shape.as_list()
        want = TensorShape([*batch, None if m is None or n is None else min(m, n)])
        if not want.is_compatible_with(d.shape):
            raise ValueError(
                f"Shapes {d.shape} and {want} are incompatible for the diagonal of "
                f"'MatrixSetDiag' on {shape}"
            )
    return [(x.dtype.base_dtype, shape)]


op_def_registry.register("Qr", _qr_infer)
op_def_registry.register("DiagPart", _diag_part_infer)
op_def_registry.register("MatrixDiag", _matrix_diag_infer)
op_def_registry.register("MatrixSetDiag", _matrix_set_diag_infer)


def qr(input: Any, full_matrices: bool = False, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(q, r) of the QR decomposition of each innermost matrix (gen_linalg_ops.qr)."""
    a = convert_to_tensor(input, name="input")
    if a.dtype.base_dtype not in _MATRIX_DTYPES:
        raise TypeError(f"Qr does not support dtype {a.dtype.base_dtype.name}")
    op = make_op("Qr", [a], {"T": a.dtype.base_dtype, "full_matrices": full_matrices}, name or "Qr")
    return op.outputs[0], op.outputs[1]


def diag_part(input: Any, name: str | None = None) -> Tensor:
    """tf.diag_part: the diagonal of a rank-2k tensor (DiagPart)."""
    x = convert_to_tensor(input, name="input")
    return make_op("DiagPart", [x], {"T": x.dtype.base_dtype}, name or "DiagPart").outputs[0]


def matrix_diag(diagonal: Any, name: str = "diag") -> Tensor:
    """Batched square matrices with `diagonal` on their diagonal (MatrixDiag)."""
    d = convert_to_tensor(diagonal, name="diagonal")
    return make_op("MatrixDiag", [d], {"T": d.dtype.base_dtype}, name).outputs[0]


def matrix_set_diag(input: Any, diagonal: Any, name: str = "set_diag") -> Tensor:
    x = convert_to_tensor(input, name="input")
    d = convert_to_tensor(diagonal, dtype=x.dtype.base_dtype, name="diagonal")
    return make_op("MatrixSetDiag", [x, d], {"T": x.dtype.base_dtype}, name).outputs[0]


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Tensor:
    """Transposes the two innermost dimensions."""
    with name_scope(name, values=[a]):
        t = convert_to_tensor(a, name="a")
        ndims = t.shape.ndims
        if ndims is None:
            raise ValueError("matrix_transpose needs a tensor of known rank here")
        if ndims < 2:
            raise ValueError(
                f"Argument 'a' should be a (batch) matrix, with rank >= 2.  Found: {t.shape}"
            )
        perm = [*range(ndims - 2), ndims - 1, ndims - 2]
        return array_ops.transpose(t, perm=perm, conjugate=conjugate)


def eye(
    num_rows: int,
    num_columns: int | None = None,
    batch_shape: Sequence[int] | None = None,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> Tensor:
    """Identity matrices, built as TF's linalg_ops_impl.eye does for static sizes."""
    with name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch = list(batch_shape or [])
        columns = num_rows if num_columns is None else num_columns
        if not isinstance(num_rows, (int, np.integer)) or not isinstance(
            columns, (int, np.integer)
        ):
            raise TypeError("num_rows and num_columns must be positive integer values.")
        is_square = int(num_rows) == int(columns)
        diag_ones = array_ops.ones([*batch, min(int(num_rows), int(columns))], dtype=dtype)
        if is_square:
            return matrix_diag(diag_ones)
        zero_matrix = array_ops.zeros([*batch, int(num_rows), int(columns)], dtype=dtype)
        return matrix_set_diag(zero_matrix, diag_ones)
