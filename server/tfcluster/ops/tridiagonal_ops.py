"""Tridiagonal matrices (tf.linalg.tridiagonal_matmul, tf.linalg.tridiagonal_solve) as TF 1.15
builds them: the TridiagonalMatMul and TridiagonalSolve ops, and the wrappers that take the
diagonals in 'compact' ([..., 3, M]: super, main, sub), 'sequence' or dense 'matrix' form."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import dimension_value
from tfcluster.ops import array_ops, linalg_ops, math_ops
from tfcluster.ops.op_util import Outputs, check_dtype, make_op

_TYPES = (dtypes.float64, dtypes.float32, dtypes.complex64, dtypes.complex128)


def _rhs_shape_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    rhs = inputs[-1]
    return [(rhs.dtype.base_dtype, rhs.shape)]


op_def_registry.register("TridiagonalMatMul", _rhs_shape_infer)
op_def_registry.register("TridiagonalSolve", _rhs_shape_infer)


def tridiagonal_mat_mul(
    superdiag: Any, maindiag: Any, subdiag: Any, rhs: Any, name: str | None = None
) -> Tensor:
    """The raw op: each diagonal as [..., 1, M], rhs [..., M, N]."""
    with name_scope(name, "TridiagonalMatMul", [superdiag, maindiag, subdiag, rhs]) as scope:
        sup = convert_to_tensor(superdiag, name="superdiag")
        check_dtype(sup, _TYPES, "TridiagonalMatMul", "superdiag")
        rest = [
            convert_to_tensor(v, dtype=sup.dtype.base_dtype, name=n)
            for v, n in ((maindiag, "maindiag"), (subdiag, "subdiag"), (rhs, "rhs"))
        ]
        attrs = {"T": sup.dtype.base_dtype}
        return make_op("TridiagonalMatMul", [sup, *rest], attrs, name=scope).outputs[0]


def tridiagonal_solve_op(
    diagonals: Any, rhs: Any, partial_pivoting: bool = True, name: str | None = None
) -> Tensor:
    """The raw op: diagonals [..., 3, M], rhs [..., M, K]."""
    with name_scope(name, "TridiagonalSolve", [diagonals, rhs]) as scope:
        diags = convert_to_tensor(diagonals, name="diagonals")
        check_dtype(diags, _TYPES, "TridiagonalSolve", "diagonals")
        b = convert_to_tensor(rhs, dtype=diags.dtype.base_dtype, name="rhs")
        attrs = {"T": diags.dtype.base_dtype, "partial_pivoting": bool(partial_pivoting)}
        return make_op("TridiagonalSolve", [diags, b], attrs, name=scope).outputs[0]


def _from_dense(matrix: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(super, main, sub) diagonals of dense [..., M, M] matrices, each [..., M] with zeros in
    the unused places."""
    m1, m2 = (dimension_value(matrix.shape[i]) for i in (-1, -2))
    if not m1 or not m2:
        raise ValueError('The size of the matrix needs to be known for diagonals_format="matrix"')
    if m1 != m2:
        raise ValueError(f"Expected last two dimensions of diagonals to be same, got {m1} and {m2}")
    rank = matrix.shape.ndims or 2
    main = linalg_ops.matrix_diag_part(matrix)
    if m1 == 1:
        zeros = array_ops.zeros_like(main)
        return zeros, main, zeros
    outer = [[0, 0]] * (rank - 2)
    sup = array_ops.pad(linalg_ops.matrix_diag_part(matrix[..., :-1, 1:]), [*outer, [0, 1]])
    sub = array_ops.pad(linalg_ops.matrix_diag_part(matrix[..., 1:, :-1]), [*outer, [1, 0]])
    return sup, main, sub


def _stack_sequence(diagonals: Any) -> Tensor:
    if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
        raise ValueError("Expected diagonals to be a sequence of length 3.")
    sup, main, sub = (convert_to_tensor(d) for d in diagonals)
    if not (
        sub.shape[:-1].is_compatible_with(main.shape[:-1])
        and sup.shape[:-1].is_compatible_with(main.shape[:-1])
    ):
        raise ValueError(
            "Tensors representing the three diagonals must have the same shape,except for the "
            f"last dimension, got {sub.shape}, {main.shape}, {sup.shape}"
        )
    m = dimension_value(main.shape[-1])

    def full_length(t: Tensor, what: str, pad: list[int]) -> Tensor:
        n = dimension_value(t.shape[-1])
        if not n or n == m:
            return t
        shorter = None if m is None else m - 1
        if n == shorter:
            return array_ops.pad(t, [[0, 0]] * (len(t.shape) - 1) + [pad])
        raise ValueError(f"Expected {what} to be have length {m} or {shorter}, got {n}.")

    sub = full_length(sub, "subdiagonal", [1, 0])
    sup = full_length(sup, "superdiagonal", [0, 1])
    return array_ops.stack((sup, main, sub), axis=-2)


def tridiagonal_solve(
    diagonals: Any,
    rhs: Any,
    diagonals_format: str = "compact",
    transpose_rhs: bool = False,
    conjugate_rhs: bool = False,
    name: str | None = None,
    partial_pivoting: bool = True,
) -> Tensor:
    """x with A x = rhs for tridiagonal A (rhs [..., M] or [..., M, K])."""
    if diagonals_format == "compact":
        diags = convert_to_tensor(diagonals)
    elif diagonals_format == "sequence":
        diags = _stack_sequence(diagonals)
    elif diagonals_format == "matrix":
        diags = array_ops.stack(_from_dense(convert_to_tensor(diagonals)), axis=-2)
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    return _solve_compact(
        diags, convert_to_tensor(rhs), transpose_rhs, conjugate_rhs, partial_pivoting, name
    )


def _solve_compact(
    diags: Tensor,
    rhs: Tensor,
    transpose_rhs: bool,
    conjugate_rhs: bool,
    partial_pivoting: bool,
    name: str | None,
) -> Tensor:
    if diags.shape.ndims is None or rhs.shape.ndims is None:
        raise ValueError("Cannot take the length of shape with unknown rank.")
    diags_rank, rhs_rank = diags.shape.ndims, rhs.shape.ndims
    if diags_rank < 2:
        raise ValueError(f"Expected diagonals to have rank at least 2, got {diags_rank}")
    if rhs_rank not in (diags_rank, diags_rank - 1):
        raise ValueError(
            f"Expected the rank of rhs to be {diags_rank - 1} or {diags_rank}, got {rhs_rank}"
        )
    count = dimension_value(diags.shape[-2])
    if count and count != 3:
        raise ValueError(f"Expected 3 diagonals got {count}")
    if not diags.shape[:-2].is_compatible_with(rhs.shape[: diags_rank - 2]):
        raise ValueError(
            f"Batch shapes {diags.shape[:-2]} and {rhs.shape[: diags_rank - 2]} are incompatible"
        )

    def check_sides(b: Tensor) -> None:
        m, k = dimension_value(diags.shape[-1]), dimension_value(b.shape[-2])
        if m and k and m != k:
            raise ValueError(
                "Expected number of left-hand sided and right-hand sides to be equal, "
                f"got {m} and {k}"
            )

    if rhs_rank == diags_rank - 1:
        if conjugate_rhs:
            rhs = math_ops.conj(rhs)
        column = array_ops.expand_dims(rhs, -1)
        check_sides(column)
        return array_ops.squeeze(tridiagonal_solve_op(diags, column, partial_pivoting, name), -1)
    if transpose_rhs:
        rhs = linalg_ops.matrix_transpose(rhs, conjugate=conjugate_rhs)
    elif conjugate_rhs:
        rhs = math_ops.conj(rhs)
    check_sides(rhs)
    result = tridiagonal_solve_op(diags, rhs, partial_pivoting, name)
    return linalg_ops.matrix_transpose(result) if transpose_rhs else result


def tridiagonal_matmul(
    diagonals: Any, rhs: Any, diagonals_format: str = "compact", name: str | None = None
) -> Tensor:
    """A rhs for tridiagonal A given by its diagonals (rhs [..., M, N])."""
    if diagonals_format == "compact":
        diags = convert_to_tensor(diagonals)
        sup, main, sub = diags[..., 0, :], diags[..., 1, :], diags[..., 2, :]
    elif diagonals_format == "sequence":
        sup, main, sub = (convert_to_tensor(d) for d in diagonals)
    elif diagonals_format == "matrix":
        sup, main, sub = _from_dense(convert_to_tensor(diagonals))
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    up, mid, down = (array_ops.expand_dims(d, -2) for d in (sup, main, sub))
    return tridiagonal_mat_mul(up, mid, down, rhs, name)
