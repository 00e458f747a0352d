"""The operator algebra's rules, as TF 1.15 registers them (the circulant rules for the 1-D
LinearOperatorCirculant only, and giving complex64 operators whatever the input_output_dtype,
as in TF): what adjoint(), inverse(),
cholesky() return for each operator class, and what the product or solve of two operators is.
Anything without a special rule falls back on LinearOperatorAdjoint / Inversion / a dense
Cholesky / LinearOperatorComposition."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.linalg.composed import (
    LinearOperatorAdjoint,
    LinearOperatorBlockDiag,
    LinearOperatorComposition,
    LinearOperatorInversion,
    LinearOperatorKronecker,
)
from tfcluster.lib.linalg.identity import (
    LinearOperatorIdentity,
    LinearOperatorScaledIdentity,
    LinearOperatorZeros,
)
from tfcluster.lib.linalg.linear_operator import (
    LinearOperator,
    register_binary,
    register_unary,
)
from tfcluster.lib.linalg.matrices import LinearOperatorDiag, LinearOperatorLowerTriangular
from tfcluster.lib.linalg.special import (
    LinearOperatorCirculant,
    LinearOperatorHouseholder,
    _BaseCirculant,
)
from tfcluster.ops import linalg_ops, math_ops


def _and(a: bool | None, b: bool | None) -> bool | None:
    return True if a and b else None


def _hints(op: LinearOperator) -> dict[str, Any]:
    return {
        "is_non_singular": op.is_non_singular,
        "is_self_adjoint": op.is_self_adjoint,
        "is_positive_definite": op.is_positive_definite,
        "is_square": op.is_square,
    }


# ---- adjoint ---------------------------------------------------------------------------------
@register_unary("adjoint", LinearOperator)
def _adjoint(op: LinearOperator) -> LinearOperator:
    return LinearOperatorAdjoint(op, **_hints(op))


@register_unary("adjoint", LinearOperatorAdjoint)
def _adjoint_adjoint(op: LinearOperatorAdjoint) -> LinearOperator:
    return op.operator


@register_unary("adjoint", LinearOperatorIdentity)
@register_unary("adjoint", LinearOperatorHouseholder)
def _adjoint_self(op: LinearOperator) -> LinearOperator:
    return op


@register_unary("adjoint", LinearOperatorScaledIdentity)
def _adjoint_scaled(op: LinearOperatorScaledIdentity) -> LinearOperator:
    return LinearOperatorScaledIdentity(op._num_rows, math_ops.conj(op.multiplier), **_hints(op))


@register_unary("adjoint", LinearOperatorDiag)
def _adjoint_diag(op: LinearOperatorDiag) -> LinearOperator:
    return LinearOperatorDiag(math_ops.conj(op.diag), **_hints(op))


@register_unary("adjoint", LinearOperatorBlockDiag)
def _adjoint_block(op: LinearOperatorBlockDiag) -> LinearOperator:
    return LinearOperatorBlockDiag([o.adjoint() for o in op.operators], **_hints(op))


@register_unary("adjoint", LinearOperatorKronecker)
def _adjoint_kron(op: LinearOperatorKronecker) -> LinearOperator:
    return LinearOperatorKronecker([o.adjoint() for o in op.operators], **_hints(op))


@register_unary("adjoint", LinearOperatorCirculant)
def _adjoint_circulant(op: _BaseCirculant) -> LinearOperator:
    return type(op)(math_ops.conj(op.spectrum), **_hints(op))


# ---- inverse ---------------------------------------------------------------------------------
@register_unary("inverse", LinearOperator)
def _inverse(op: LinearOperator) -> LinearOperator:
    return LinearOperatorInversion(op, **_hints(op))


@register_unary("inverse", LinearOperatorInversion)
def _inverse_inverse(op: LinearOperatorInversion) -> LinearOperator:
    return op.operator


@register_unary("inverse", LinearOperatorIdentity)
@register_unary("inverse", LinearOperatorHouseholder)
def _inverse_self(op: LinearOperator) -> LinearOperator:
    return op


@register_unary("inverse", LinearOperatorDiag)
def _inverse_diag(op: LinearOperatorDiag) -> LinearOperator:
    return LinearOperatorDiag(1.0 / op.diag, **_hints(op))


@register_unary("inverse", LinearOperatorScaledIdentity)
def _inverse_scaled(op: LinearOperatorScaledIdentity) -> LinearOperator:
    return LinearOperatorScaledIdentity(op._num_rows, 1.0 / op.multiplier, **_hints(op))


@register_unary("inverse", LinearOperatorBlockDiag)
def _inverse_block(op: LinearOperatorBlockDiag) -> LinearOperator:
    return LinearOperatorBlockDiag([o.inverse() for o in op.operators], **_hints(op))


@register_unary("inverse", LinearOperatorKronecker)
def _inverse_kron(op: LinearOperatorKronecker) -> LinearOperator:
    return LinearOperatorKronecker([o.inverse() for o in op.operators], **_hints(op))


@register_unary("inverse", LinearOperatorCirculant)
def _inverse_circulant(op: _BaseCirculant) -> LinearOperator:
    return type(op)(1.0 / op.spectrum, **_hints(op))


# ---- cholesky --------------------------------------------------------------------------------
def _cholesky_hints() -> dict[str, Any]:
    return {"is_non_singular": True, "is_self_adjoint": None, "is_square": True}


@register_unary("cholesky", LinearOperator)
def _cholesky(op: LinearOperator) -> LinearOperator:
    return LinearOperatorLowerTriangular(linalg_ops.cholesky(op.to_dense()), **_cholesky_hints())


@register_unary("cholesky", LinearOperatorDiag)
def _cholesky_diag(op: LinearOperatorDiag) -> LinearOperator:
    return LinearOperatorDiag(
        math_ops.sqrt(op.diag),
        is_non_singular=True,
        is_self_adjoint=True,
        is_positive_definite=True,
        is_square=True,
    )


@register_unary("cholesky", LinearOperatorIdentity)
def _cholesky_identity(op: LinearOperatorIdentity) -> LinearOperator:
    return LinearOperatorIdentity(
        op._num_rows,
        batch_shape=op._batch_shape_arg,
        dtype=op.dtype,
    )


@register_unary("cholesky", LinearOperatorScaledIdentity)
def _cholesky_scaled(op: LinearOperatorScaledIdentity) -> LinearOperator:
    return LinearOperatorScaledIdentity(
        op._num_rows,
        math_ops.sqrt(op.multiplier),
        is_non_singular=True,
        is_self_adjoint=True,
        is_positive_definite=True,
        is_square=True,
    )


@register_unary("cholesky", LinearOperatorBlockDiag)
def _cholesky_block(op: LinearOperatorBlockDiag) -> LinearOperator:
    return LinearOperatorBlockDiag(
        [o.cholesky() for o in op.operators],
        is_non_singular=True,
        is_self_adjoint=None,
        is_square=True,
    )


@register_unary("cholesky", LinearOperatorKronecker)
def _cholesky_kron(op: LinearOperatorKronecker) -> LinearOperator:
    return LinearOperatorKronecker(
        [o.cholesky() for o in op.operators],
        is_non_singular=True,
        is_self_adjoint=None,
        is_square=True,
    )


# ---- matmul ----------------------------------------------------------------------------------
@register_binary("matmul", LinearOperator, LinearOperator)
def _matmul(a: LinearOperator, b: LinearOperator) -> LinearOperator:
    square = True if a.is_square and b.is_square else None
    if a.is_square is False or b.is_square is False:
        square = None
    non_singular = _and(a.is_non_singular, b.is_non_singular) if square else None
    return LinearOperatorComposition(
        operators=[a, b],
        is_non_singular=non_singular,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=square,
    )


@register_binary("matmul", LinearOperatorIdentity, LinearOperator)
def _matmul_identity_left(identity: LinearOperator, op: LinearOperator) -> LinearOperator:
    return op


@register_binary("matmul", LinearOperator, LinearOperatorIdentity)
def _matmul_identity_right(op: LinearOperator, identity: LinearOperator) -> LinearOperator:
    return op


@register_binary("matmul", LinearOperator, LinearOperatorZeros)
def _matmul_zeros_right(op: LinearOperator, zeros: LinearOperator) -> LinearOperator:
    if not zeros.is_square or not op.is_square:
        raise ValueError(
            "Matmul with non-square `LinearOperator`s or non-square "
            "`LinearOperatorZeros` not supported at this time."
        )
    return zeros


@register_binary("matmul", LinearOperatorZeros, LinearOperator)
def _matmul_zeros_left(zeros: LinearOperator, op: LinearOperator) -> LinearOperator:
    if not zeros.is_square or not op.is_square:
        raise ValueError(
            "Matmul with non-square `LinearOperator`s or non-square "
            "`LinearOperatorZeros` not supported at this time."
        )
    return zeros


def _diag_hints(a: LinearOperator, b: LinearOperator) -> dict[str, Any]:
    return {
        "is_non_singular": _and(a.is_non_singular, b.is_non_singular),
        "is_self_adjoint": _and(a.is_self_adjoint, b.is_self_adjoint),
        "is_positive_definite": _and(a.is_positive_definite, b.is_positive_definite),
        "is_square": True,
    }


@register_binary("matmul", LinearOperatorDiag, LinearOperatorDiag)
def _matmul_diag(a: LinearOperatorDiag, b: LinearOperatorDiag) -> LinearOperator:
    return LinearOperatorDiag(a.diag * b.diag, **_diag_hints(a, b))


@register_binary("matmul", LinearOperatorDiag, LinearOperatorScaledIdentity)
def _matmul_diag_scaled(a: LinearOperatorDiag, b: LinearOperatorScaledIdentity) -> LinearOperator:
    return LinearOperatorDiag(a.diag * b.multiplier, **_diag_hints(a, b))


@register_binary("matmul", LinearOperatorScaledIdentity, LinearOperatorDiag)
def _matmul_scaled_diag(a: LinearOperatorScaledIdentity, b: LinearOperatorDiag) -> LinearOperator:
    return LinearOperatorDiag(b.diag * a.multiplier, **_diag_hints(a, b))


@register_binary("matmul", LinearOperatorDiag, LinearOperatorLowerTriangular)
def _matmul_diag_tril(a: LinearOperatorDiag, b: LinearOperatorLowerTriangular) -> LinearOperator:
    return LinearOperatorLowerTriangular(
        a.diag[..., None] * b.to_dense(),
        is_non_singular=_and(a.is_non_singular, b.is_non_singular),
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
    )


@register_binary("matmul", LinearOperatorLowerTriangular, LinearOperatorDiag)
def _matmul_tril_diag(a: LinearOperatorLowerTriangular, b: LinearOperatorDiag) -> LinearOperator:
    return LinearOperatorLowerTriangular(
        a.to_dense() * b.diag,
        is_non_singular=_and(a.is_non_singular, b.is_non_singular),
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
    )


@register_binary("matmul", LinearOperatorCirculant, LinearOperatorCirculant)
def _matmul_circulant(a: _BaseCirculant, b: _BaseCirculant) -> LinearOperator:
    if type(a) is not type(b):
        return _matmul(a, b)
    return type(a)(
        a.spectrum * b.spectrum,
        is_non_singular=_and(a.is_non_singular, b.is_non_singular),
        is_self_adjoint=_and(a.is_self_adjoint, b.is_self_adjoint),
        is_positive_definite=_and(a.is_positive_definite, b.is_positive_definite),
        is_square=True,
    )


# ---- solve -----------------------------------------------------------------------------------
@register_binary("solve", LinearOperator, LinearOperator)
def _solve(a: LinearOperator, b: LinearOperator) -> LinearOperator:
    square = True if a.is_square and b.is_square else None
    non_singular = _and(a.is_non_singular, b.is_non_singular) if square else None
    return LinearOperatorComposition(
        operators=[a.inverse(), b],
        is_non_singular=non_singular,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=square,
    )


@register_binary("solve", LinearOperatorInversion, LinearOperator)
def _solve_inverse(a: LinearOperatorInversion, b: LinearOperator) -> LinearOperator:
    return a.operator.matmul(b)  # type: ignore[no-any-return]


@register_binary("solve", LinearOperatorIdentity, LinearOperator)
def _solve_identity(identity: LinearOperator, op: LinearOperator) -> LinearOperator:
    return op


@register_binary("solve", LinearOperatorDiag, LinearOperatorDiag)
def _solve_diag(a: LinearOperatorDiag, b: LinearOperatorDiag) -> LinearOperator:
    return LinearOperatorDiag(b.diag / a.diag, **_diag_hints(a, b))


@register_binary("solve", LinearOperatorDiag, LinearOperatorScaledIdentity)
def _solve_diag_scaled(a: LinearOperatorDiag, b: LinearOperatorScaledIdentity) -> LinearOperator:
    return LinearOperatorDiag(b.multiplier / a.diag, **_diag_hints(a, b))


@register_binary("solve", LinearOperatorScaledIdentity, LinearOperatorDiag)
def _solve_scaled_diag(a: LinearOperatorScaledIdentity, b: LinearOperatorDiag) -> LinearOperator:
    return LinearOperatorDiag(b.diag / a.multiplier, **_diag_hints(a, b))


@register_binary("solve", LinearOperatorDiag, LinearOperatorLowerTriangular)
def _solve_diag_tril(a: LinearOperatorDiag, b: LinearOperatorLowerTriangular) -> LinearOperator:
    return LinearOperatorLowerTriangular(
        b.to_dense() / a.diag[..., None],
        is_non_singular=_and(a.is_non_singular, b.is_non_singular),
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
    )


@register_binary("solve", LinearOperatorCirculant, LinearOperatorCirculant)
def _solve_circulant(a: _BaseCirculant, b: _BaseCirculant) -> LinearOperator:
    if type(a) is not type(b):
        return _solve(a, b)
    return type(a)(
        b.spectrum / a.spectrum,
        is_non_singular=_and(a.is_non_singular, b.is_non_singular),
        is_self_adjoint=_and(a.is_self_adjoint, b.is_self_adjoint),
        is_positive_definite=None,
        is_square=True,
    )
