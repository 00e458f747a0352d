"""Operators known by a size alone: LinearOperatorIdentity, LinearOperatorScaledIdentity and
LinearOperatorZeros (TF 1.15's)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape, dimension_value
from tfcluster.lib.linalg.linear_operator import LinearOperator, shape_tensor
from tfcluster.ops import array_ops, control_flow_ops, linalg_ops, math_ops


def _size_tensor(value: Any, what: str) -> tuple[Tensor, Any]:
    t = shape_tensor(value, name=what)
    if not t.dtype.is_integer:
        raise TypeError(f"Argument {what} must be integer type.  Found: {t}")
    static = tensor_util.constant_value(t)
    return t, static


def _check_rows(static: Any, what: str = "num_rows") -> None:
    if static is None:
        return
    if np.ndim(static) != 0:
        raise ValueError(f"Argument {what} must be a 0-D Tensor.  Found: {static}")
    if static < 0:
        raise ValueError(f"Argument {what} must be non-negative.  Found: {static}")


def _check_batch(static: Any) -> None:
    if static is None:
        return
    if np.ndim(static) != 1:
        raise ValueError(f"Argument batch_shape must be a 1-D Tensor.  Found: {static}")
    if np.any(np.asarray(static) < 0):
        raise ValueError(f"Argument batch_shape must be non-negative.  Found:{static}")


class _SizedOperator(LinearOperator):
    """What the identity-like operators share: a row count and an optional batch shape."""

    _num_rows: Tensor
    _num_rows_static: Any
    _num_columns: Tensor
    _num_columns_static: Any
    _batch_shape_arg: Tensor | None
    _batch_shape_static: Any

    def _set_batch_shape(self, batch_shape: Any) -> None:
        self._batch_shape_arg = None
        self._batch_shape_static = None
        if batch_shape is not None:
            self._batch_shape_arg, self._batch_shape_static = _size_tensor(
                batch_shape, "batch_shape_arg"
            )
            _check_batch(self._batch_shape_static)

    def _shape(self) -> TensorShape:
        matrix = TensorShape([_int_or_none(self._num_rows_static), self._columns_static()])
        if self._batch_shape_arg is None:
            return matrix
        batch = (
            TensorShape([int(d) for d in self._batch_shape_static])
            if self._batch_shape_static is not None
            else TensorShape(None)
        )
        return batch.concatenate(matrix)

    def _columns_static(self) -> int | None:
        return _int_or_none(self._num_rows_static)

    def _columns_tensor(self) -> Tensor:
        return self._num_rows

    def _shape_tensor(self) -> Tensor:
        matrix = array_ops.stack((self._num_rows, self._columns_tensor()), axis=0)
        if self._batch_shape_arg is None:
            return matrix
        return array_ops.concat((self._batch_shape_arg, matrix), 0)

    def _min_dim(self) -> int | None:
        a, b = dimension_value(self.domain_dimension), dimension_value(self.range_dimension)
        return None if a is None or b is None else min(a, b)

    def _min_dim_tensor(self) -> Tensor:
        return math_ops.reduce_min(self.shape_tensor()[-2:])

    def _ones_diag(self) -> Tensor:
        if self.shape.is_fully_defined():
            shape: Any = self.batch_shape.concatenate([self._min_dim()]).as_list()
        else:
            shape = array_ops.concat([self.batch_shape_tensor(), [self._min_dim_tensor()]], 0)
        return array_ops.ones(shape, dtype=self.dtype)

    def _broadcast_batch(self, x: Tensor) -> Tensor:
        """x broadcast against this operator's batch shape (when it has one)."""
        if self._batch_shape_arg is None:
            return x
        special = self.batch_shape.concatenate([1, 1])
        if special.is_fully_defined() and x.shape.ndims is not None:
            from tfcluster.ops.op_util import broadcast_shape

            if broadcast_shape(x.shape, special) == x.shape:
                return x
            return x + array_ops.zeros(special.as_list(), dtype=self.dtype)
        shape = array_ops.concat((self.batch_shape_tensor(), [1, 1]), 0)
        return x + array_ops.zeros(shape, dtype=self.dtype)

    def _assert_non_singular(self) -> Any:
        return control_flow_ops.no_op("assert_non_singular")

    def _assert_positive_definite(self) -> Any:
        return control_flow_ops.no_op("assert_positive_definite")

    def _assert_self_adjoint(self) -> Any:
        return control_flow_ops.no_op("assert_self_adjoint")


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def _must(flag: bool | None, what: str, kind: str = "An identity operator") -> None:
    if not flag:
        raise ValueError(f"{kind} is always {what}.")


class LinearOperatorIdentity(_SizedOperator):
    """The [..., N, N] identity."""

    def __init__(
        self,
        num_rows: Any,
        batch_shape: Any = None,
        dtype: Any = None,
        is_non_singular: bool = True,
        is_self_adjoint: bool = True,
        is_positive_definite: bool = True,
        is_square: bool = True,
        assert_proper_shapes: bool = False,
        name: str = "LinearOperatorIdentity",
    ) -> None:
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        with name_scope(name):
            _must(is_self_adjoint, "self adjoint")
            _must(is_non_singular, "non-singular")
            _must(is_positive_definite, "positive-definite")
            _must(is_square, "square")
            super().__init__(
                dtype=dtype,
                is_non_singular=True,
                is_self_adjoint=True,
                is_positive_definite=True,
                is_square=True,
                name=name,
            )
            self._num_rows, self._num_rows_static = _size_tensor(num_rows, "num_rows")
            _check_rows(self._num_rows_static)
            self._set_batch_shape(batch_shape)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        return self._broadcast_batch(x)

    def _determinant(self) -> Tensor:
        return array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        return array_ops.zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _trace(self) -> Tensor:
        if self.batch_shape.is_fully_defined():
            ones = array_ops.ones(self.batch_shape.as_list(), dtype=self.dtype)
        else:
            ones = array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)
        n = self._min_dim()
        if n is not None:
            return n * ones
        return math_ops.cast(self._min_dim_tensor(), self.dtype) * ones

    def _diag_part(self) -> Tensor:
        return self._ones_diag()

    def add_to_tensor(self, mat: Any, name: str | None = "add_to_tensor") -> Tensor:
        with self._name_scope(name):
            m = convert_to_tensor(mat, name="mat")
            return linalg_ops.matrix_set_diag(m, 1 + linalg_ops.matrix_diag_part(m))


class LinearOperatorScaledIdentity(_SizedOperator):
    """multiplier * I, the multiplier of shape [...] (one per batch member)."""

    def __init__(
        self,
        num_rows: Any,
        multiplier: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool = True,
        assert_proper_shapes: bool = False,
        name: str = "LinearOperatorScaledIdentity",
    ) -> None:
        if not is_square:
            raise ValueError("A ScaledIdentity operator is always square.")
        with name_scope(name, values=[multiplier, num_rows]):
            self._multiplier = (
                multiplier
                if isinstance(multiplier, Tensor)
                else convert_to_tensor(multiplier, name="multiplier")
            )
            if not self._multiplier.dtype.is_complex and is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            if not self._multiplier.dtype.is_complex:
                is_self_adjoint = True
            self._num_rows, self._num_rows_static = _size_tensor(num_rows, "num_rows")
            _check_rows(self._num_rows_static)
            self._batch_shape_arg = None
            self._batch_shape_static = None
            super().__init__(
                dtype=self._multiplier.dtype.base_dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
                name=name,
            )
            self._multiplier_matrix = array_ops.expand_dims(
                array_ops.expand_dims(self._multiplier, -1), -1
            )
            self._multiplier_matrix_conj = math_ops.conj(self._multiplier_matrix)
            self._abs_multiplier = math_ops.abs(self._multiplier)

    @property
    def multiplier(self) -> Tensor:
        return self._multiplier

    def _shape(self) -> TensorShape:
        matrix = TensorShape([_int_or_none(self._num_rows_static)] * 2)
        return self._multiplier.shape.concatenate(matrix)

    def _shape_tensor(self) -> Tensor:
        matrix = array_ops.stack((self._num_rows, self._num_rows), axis=0)
        return array_ops.concat((array_ops.shape(self._multiplier), matrix), 0)

    def _assert_non_singular(self) -> Any:
        from tfcluster.ops import check_ops

        return check_ops.assert_positive(
            math_ops.abs(self._multiplier), message="LinearOperator was singular"
        )

    def _assert_positive_definite(self) -> Any:
        from tfcluster.ops import check_ops, complex_ops

        return check_ops.assert_positive(
            complex_ops.real(self._multiplier), message="LinearOperator was not positive definite."
        )

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        scale = self._multiplier_matrix_conj if adjoint else self._multiplier_matrix
        return x * scale

    def _determinant(self) -> Tensor:
        return self._multiplier ** math_ops.cast(self._num_rows, self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        return math_ops.cast(self._num_rows, self.dtype.real_dtype) * math_ops.log(
            self._abs_multiplier
        )

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        scale = self._multiplier_matrix_conj if adjoint else self._multiplier_matrix
        return rhs / scale

    def _trace(self) -> Tensor:
        if self.batch_shape.is_fully_defined():
            ones = array_ops.ones(self.batch_shape.as_list(), dtype=self.dtype)
        else:
            ones = array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)
        n = self._min_dim()
        if n is not None:
            return self._multiplier * n * ones
        return self._multiplier * math_ops.cast(self._min_dim_tensor(), self.dtype) * ones

    def _diag_part(self) -> Tensor:
        return self._ones_diag() * array_ops.expand_dims(self._multiplier, -1)

    def add_to_tensor(self, mat: Any, name: str | None = "add_to_tensor") -> Tensor:
        with self._name_scope(name):
            m = convert_to_tensor(mat, name="mat")
            multiplier = array_ops.expand_dims(self._multiplier, -1)
            return linalg_ops.matrix_set_diag(m, multiplier + linalg_ops.matrix_diag_part(m))


class LinearOperatorZeros(_SizedOperator):
    """The [..., M, N] zero matrix."""

    def __init__(
        self,
        num_rows: Any,
        num_columns: Any = None,
        batch_shape: Any = None,
        dtype: Any = None,
        is_non_singular: bool = False,
        is_self_adjoint: bool = True,
        is_positive_definite: bool = False,
        is_square: bool = True,
        assert_proper_shapes: bool = False,
        name: str = "LinearOperatorZeros",
    ) -> None:
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        with name_scope(name):
            if is_non_singular:
                raise ValueError("A Zeros operator is always singular.")
            if is_positive_definite:
                raise ValueError("A Zeros operator is always not positive-definite.")
            super().__init__(
                dtype=dtype,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                name=name,
            )
            self._num_rows, self._num_rows_static = _size_tensor(num_rows, "num_rows")
            _check_rows(self._num_rows_static)
            if num_columns is None:
                num_columns = num_rows
            self._num_columns, self._num_columns_static = _size_tensor(num_columns, "num_columns")
            _check_rows(self._num_columns_static, "num_columns")
            if (
                self._num_rows_static is not None
                and self._num_columns_static is not None
                and is_square
                and self._num_rows_static != self._num_columns_static
            ):
                raise ValueError(
                    "LinearOperatorZeros initialized as is_square=True, but got "
                    f"num_rows({self._num_rows_static}) != "
                    f"num_columns({self._num_columns_static})"
                )
            self._set_batch_shape(batch_shape)

    def _columns_static(self) -> int | None:
        return _int_or_none(self._num_columns_static)

    def _columns_tensor(self) -> Tensor:
        return self._num_columns

    def _assert_non_singular(self) -> Any:
        raise NotImplementedError("Zero operators are always non-invertible.")

    def _assert_positive_definite(self) -> Any:
        raise NotImplementedError("Zero operators are always non-positive definite.")

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        if self._batch_shape_arg is not None:
            x = self._broadcast_batch(x)
        rows = self._num_columns if adjoint else self._num_rows
        shape = array_ops.concat([array_ops.shape(x)[:-2], [rows], array_ops.shape(x)[-1:]], 0)
        return array_ops.zeros(shape, dtype=x.dtype)

    def _determinant(self) -> Tensor:
        return array_ops.zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        return math_ops.log(self._determinant())

    def _trace(self) -> Tensor:
        return array_ops.zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _diag_part(self) -> Tensor:
        if self.shape.is_fully_defined():
            shape: Any = self.batch_shape.concatenate([self._min_dim()]).as_list()
        else:
            shape = array_ops.concat([self.batch_shape_tensor(), [self._min_dim_tensor()]], 0)
        return array_ops.zeros(shape, dtype=self.dtype)

    def add_to_tensor(self, mat: Any, name: str | None = "add_to_tensor") -> Tensor:
        with self._name_scope(name):
            return convert_to_tensor(mat, name="mat")
