"""Gradients of TridiagonalMatMul and TridiagonalSolve, as TF 1.15 registers them.

For y = A r with A tridiagonal: each diagonal's gradient is the row sums of grad times the
matching (conjugated, shifted) rows of r, and r's gradient is A^H grad. For x = A^-1 b: b's
gradient solves A^T g = grad (TF's transpose, without conjugation) and A's gradient is minus
the three diagonals of g x^T."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, linalg_ops, math_ops, tridiagonal_ops


def _shift_rows(x: Tensor, up: bool) -> Tensor:
    """x moved one row up (row i takes row i+1) or down along its next-to-last axis, with a
    zero row coming in."""
    rank = array_ops.rank(x)
    outer = array_ops.zeros([rank - 2, 2], dtypes.int32)
    if up:
        return array_ops.pad(x[..., 1:, :], array_ops.concat([outer, [[0, 1], [0, 0]]], 0))
    return array_ops.pad(x[..., :-1, :], array_ops.concat([outer, [[1, 0], [0, 0]]], 0))


@RegisterGradient("TridiagonalMatMul")
def _tridiagonal_matmul_grad(op: Operation, grad: Tensor) -> Any:
    sup, main, sub = (linalg_ops.matrix_transpose(t, conjugate=True) for t in op.inputs[:3])
    rhs = math_ops.conj(op.inputs[3])
    sup_grad = math_ops.reduce_sum(_shift_rows(rhs, up=True) * grad, axis=-1)
    main_grad = math_ops.reduce_sum(rhs * grad, axis=-1)
    sub_grad = math_ops.reduce_sum(_shift_rows(rhs, up=False) * grad, axis=-1)
    rhs_grad = _shift_rows(sup * grad, up=False) + main * grad + _shift_rows(sub * grad, up=True)
    return (
        array_ops.expand_dims(sup_grad, -2),
        array_ops.expand_dims(main_grad, -2),
        array_ops.expand_dims(sub_grad, -2),
        rhs_grad,
    )


def _transposed(diags: Tensor) -> Tensor:
    """Diagonals of A^T: the super- and subdiagonals trade places (shifted by one)."""
    main = diags[..., 1, :]
    rank = array_ops.rank(diags)
    outer = array_ops.zeros([rank - 2, 2], dtypes.int32)
    sup = array_ops.pad(diags[..., 2, 1:], array_ops.concat([outer, [[0, 1]]], 0))
    sub = array_ops.pad(diags[..., 0, :-1], array_ops.concat([outer, [[1, 0]]], 0))
    return array_ops.stack([sup, main, sub], axis=-2)


def _three_diagonals_of_product(g: Tensor, x: Tensor) -> Tensor:
    """The super, main and subdiagonals of g x^T, in O(M K) without forming the product."""
    main = math_ops.reduce_sum(g * x, axis=-1)
    sup = math_ops.reduce_sum(g * _shift_rows(x, up=True), axis=-1)
    sub = math_ops.reduce_sum(g * _shift_rows(x, up=False), axis=-1)
    return array_ops.stack([sup, main, sub], axis=-2)


@RegisterGradient("TridiagonalSolve")
def _tridiagonal_solve_grad(op: Operation, grad: Tensor) -> Any:
    diags, x = op.inputs[0], op.outputs[0]
    pivoting = op._get_attr("partial_pivoting")
    rhs_grad = tridiagonal_ops.tridiagonal_solve_op(_transposed(diags), grad, pivoting)
    return -_three_diagonals_of_product(rhs_grad, x), rhs_grad
