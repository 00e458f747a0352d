"""tf.linalg's functions that take a LinearOperator as well as a tensor, as TF 1.15 dispatches
them (adjoint, cholesky, diag_part, det, inv, logdet, matmul, solve, trace): an operator goes
to its own method, anything else to the op."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from tfcluster.framework.graph import name_scope
from tfcluster.lib.linalg.linear_operator import LinearOperator
from tfcluster.ops import complex_ops, linalg_ops, math_ops


def _dispatching(op_fn: Callable[..., Any], on_operator: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(op_fn)
    def fn(*args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, LinearOperator) for a in (*args, *kwargs.values())):
            return on_operator(*args, **kwargs)
        return op_fn(*args, **kwargs)

    return fn


def _adjoint(matrix: LinearOperator, name: str | None = None) -> Any:
    return matrix.adjoint(name)


def _cholesky(input: LinearOperator, name: str | None = None) -> Any:
    return input.cholesky(name)


def _diag_part(input: LinearOperator, name: str = "diag_part", k: Any = 0, **_: Any) -> Any:
    return input.diag_part(name)


def _det(input: LinearOperator, name: str | None = None) -> Any:
    return input.determinant(name)


def _inv(input: LinearOperator, adjoint: bool = False, name: str | None = None) -> Any:
    inverse = input.inverse(name)
    return inverse.adjoint() if adjoint else inverse


def _logdet(matrix: LinearOperator, name: str | None = None) -> Any:
    # TF 1.15's logdet reaches an operator through its Cholesky factor and that factor's
    # diagonal (both dispatch): 2 sum(log(diag(chol))), named logdet/mul as TF names it.
    if not (matrix.is_positive_definite and matrix.is_self_adjoint):
        raise ValueError("Expected matrix to be self-adjoint positive definite.")
    with name_scope(name, "logdet"):
        diag = matrix.cholesky().diag_part()
        return 2.0 * math_ops.reduce_sum(math_ops.log(complex_ops.real(diag)), axis=[-1])


def _matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    name: str | None = None,
) -> Any:
    if transpose_a or transpose_b:
        raise ValueError("Transposing not supported at this time.")
    if a_is_sparse or b_is_sparse:
        raise ValueError("Sparse methods not supported at this time.")
    if not isinstance(a, LinearOperator):
        # a b = (b^H a^H)^H
        product = b.matmul(a, adjoint=not adjoint_b, adjoint_arg=not adjoint_a, name=name)
        return linalg_ops.adjoint(product)
    return a.matmul(b, adjoint=adjoint_a, adjoint_arg=adjoint_b, name=name)


def _solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None) -> Any:
    if not isinstance(matrix, LinearOperator):
        raise ValueError(
            "Passing in `matrix` as a Tensor and `rhs` as a LinearOperator is not supported."
        )
    return matrix.solve(rhs, adjoint=adjoint, name=name)


def _trace(x: LinearOperator, name: str | None = None) -> Any:
    return x.trace(name)


adjoint = _dispatching(linalg_ops.adjoint, _adjoint)
cholesky = _dispatching(linalg_ops.cholesky, _cholesky)
diag_part = _dispatching(linalg_ops.matrix_diag_part, _diag_part)
det = _dispatching(linalg_ops.matrix_determinant, _det)
inv = _dispatching(linalg_ops.matrix_inverse, _inv)
logdet = _dispatching(linalg_ops.logdet, _logdet)
matmul = _dispatching(math_ops.matmul, _matmul)
solve = _dispatching(linalg_ops.matrix_solve, _solve)
trace = _dispatching(linalg_ops.trace, _trace)
