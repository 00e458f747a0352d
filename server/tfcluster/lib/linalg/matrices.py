"""Operators holding a matrix or its diagonal: LinearOperatorFullMatrix, LinearOperatorDiag,
LinearOperatorLowerTriangular (TF 1.15's)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.linalg.linear_operator import LinearOperator, broadcast_batch
from tfcluster.ops import array_ops, check_ops, complex_ops, linalg_ops, math_ops

_MATRIX_TYPES = (
    dtypes.float16,
    dtypes.float32,
    dtypes.float64,
    dtypes.complex64,
    dtypes.complex128,
)


def as_tensor(value: Any, name: str) -> Tensor:
    """A tensor as it is (a variable or tensor is not copied), anything else converted."""
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value, name=name)


class LinearOperatorFullMatrix(LinearOperator):
    """A [..., M, N] matrix held as it is."""

    def __init__(
        self,
        matrix: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorFullMatrix",
    ) -> None:
        with name_scope(name, values=[matrix]):
            self._matrix = as_tensor(matrix, "matrix")
            if self._matrix.dtype.base_dtype not in _MATRIX_TYPES:
                allowed = ", ".join(d.name for d in _MATRIX_TYPES)
                raise TypeError(
                    f"Argument matrix must have dtype in {allowed}.  Found: {self._matrix.dtype}"
                )
            if self._matrix.shape.ndims is not None and self._matrix.shape.ndims < 2:
                raise ValueError(
                    f"Argument matrix must have at least 2 dimensions.  Found: {self._matrix}"
                )
            super().__init__(
                dtype=self._matrix.dtype,
                graph_parents=[self._matrix],
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                name=name,
            )

    def _shape(self) -> TensorShape:
        return self._matrix.shape

    def _shape_tensor(self) -> Tensor:
        return array_ops.shape(self._matrix)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return math_ops.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _to_dense(self) -> Tensor:
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """diag(d) for d of shape [..., N]."""

    def __init__(
        self,
        diag: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorDiag",
    ) -> None:
        with name_scope(name, values=[diag]):
            self._diag = as_tensor(diag, "diag")
            if self._diag.shape.ndims is not None and self._diag.shape.ndims < 1:
                raise ValueError(
                    f"Argument diag must have at least 1 dimension.  Found: {self._diag}"
                )
            if not self._diag.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real diagonal operator is always self adjoint.")
                is_self_adjoint = True
            if is_square is False:
                raise ValueError("Only square diagonal operators currently supported.")
            super().__init__(
                dtype=self._diag.dtype,
                graph_parents=[self._diag],
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
                name=name,
            )

    @property
    def diag(self) -> Tensor:
        return self._diag

    def _shape(self) -> TensorShape:
        shape = self._diag.shape
        return shape.concatenate(shape[-1:])

    def _shape_tensor(self) -> Tensor:
        shape = array_ops.shape(self._diag)
        return array_ops.concat((shape, [shape[-1]]), 0)

    def _assert_non_singular(self) -> Any:
        return check_ops.assert_positive(
            math_ops.abs(self._diag),
            message="Singular operator:  Diagonal contained zero values.",
        )

    def _assert_positive_definite(self) -> Any:
        what = "Diagonal operator had diagonal entries with non-positive real part, thus was"
        if not self.dtype.is_complex:
            what = "Real diagonal operator had non-positive diagonal entries, thus was"
        return check_ops.assert_positive(
            complex_ops.real(self._diag), message=f"{what} not positive definite."
        )

    def _term(self, adjoint: bool) -> Tensor:
        return math_ops.conj(self._diag) if adjoint else self._diag

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        return array_ops.expand_dims(self._term(adjoint), -1) * x

    def _matvec(self, x: Tensor, adjoint: bool = False) -> Tensor:
        return self._term(adjoint) * x

    def _determinant(self) -> Tensor:
        return math_ops.reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self) -> Tensor:
        log_det = math_ops.reduce_sum(math_ops.log(math_ops.abs(self._diag)), axis=[-1])
        return math_ops.cast(log_det, self.dtype) if self.dtype.is_complex else log_det

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        return rhs * array_ops.expand_dims(1.0 / self._term(adjoint), -1)

    def _to_dense(self) -> Tensor:
        return linalg_ops.matrix_diag(self._diag)

    def _diag_part(self) -> Tensor:
        return self._diag

    def _add_to_tensor(self, x: Tensor) -> Tensor:
        return linalg_ops.matrix_set_diag(x, self._diag + linalg_ops.matrix_diag_part(x))


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of a [..., N, N] matrix (entries above the diagonal are ignored)."""

    def __init__(
        self,
        tril: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorLowerTriangular",
    ) -> None:
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        with name_scope(name, values=[tril]):
            self._tril = as_tensor(tril, "tril")
            if self._tril.shape.ndims is not None and self._tril.shape.ndims < 2:
                raise ValueError(
                    f"Argument tril must have at least 2 dimensions.  Found: {self._tril}"
                )
            super().__init__(
                dtype=self._tril.dtype,
                graph_parents=[self._tril],
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
                name=name,
            )

    def _shape(self) -> TensorShape:
        return self._tril.shape

    def _shape_tensor(self) -> Tensor:
        return array_ops.shape(self._tril)

    def _triangle(self) -> Tensor:
        return linalg_ops.matrix_band_part(self._tril, -1, 0)

    def _diag_of_tril(self) -> Tensor:
        return linalg_ops.matrix_diag_part(self._tril)

    def _assert_non_singular(self) -> Any:
        return check_ops.assert_positive(
            math_ops.abs(self._diag_of_tril()),
            message="Singular operator:  Diagonal contained zero values.",
        )

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return math_ops.matmul(self._triangle(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self) -> Tensor:
        return math_ops.reduce_prod(self._diag_of_tril(), axis=[-1])

    def _log_abs_determinant(self) -> Tensor:
        return math_ops.reduce_sum(math_ops.log(math_ops.abs(self._diag_of_tril())), axis=[-1])

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        with name_scope("MatrixTriangularSolve"):
            matrix, b = broadcast_batch(self._triangle(), rhs)
            return linalg_ops._gen_triangular_solve(matrix, b, lower=True, adjoint=adjoint)

    def _to_dense(self) -> Tensor:
        return self._triangle()
