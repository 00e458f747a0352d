"""Structured operators: LinearOperatorLowRankUpdate, LinearOperatorHouseholder,
LinearOperatorToeplitz and the circulants LinearOperatorCirculant/2D/3D (TF 1.15's)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape, dimension_value
from tfcluster.lib.linalg.identity import LinearOperatorIdentity
from tfcluster.lib.linalg.linear_operator import LinearOperator, broadcast_batch
from tfcluster.lib.linalg.matrices import LinearOperatorDiag, as_tensor
from tfcluster.ops import array_ops, complex_ops, linalg_ops, math_ops, spectral_ops
from tfcluster.ops.op_util import broadcast_shape


class LinearOperatorLowRankUpdate(LinearOperator):
    """base_operator + U D V^H (V = U when not given; D = I when diag_update is not given)."""

    def __init__(
        self,
        base_operator: LinearOperator,
        u: Any,
        diag_update: Any = None,
        v: Any = None,
        is_diag_update_positive: bool | None = None,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorLowRankUpdate",
    ) -> None:
        dtype = base_operator.dtype
        if (
            v is None
            and is_self_adjoint is None
            and base_operator.is_self_adjoint
            and (diag_update is None or is_diag_update_positive)
        ):
            is_self_adjoint = True
        if (
            base_operator.is_positive_definite
            and v is None
            and (diag_update is None or is_diag_update_positive)
        ):
            if is_positive_definite is False:
                raise ValueError("Default is_positive_definite was True, but you set it False.")
            is_positive_definite = True
        with name_scope(name):
            self._u = as_tensor(u, "u")
            self._v = self._u if v is None else as_tensor(v, "v")
            self._use_v = v is not None
            self._diag_update = (
                None if diag_update is None else as_tensor(diag_update, "diag_update")
            )
            self._base_operator = base_operator
            self._is_diag_update_positive = is_diag_update_positive
            for t, what in ((self._u, "u"), (self._v, "v")):
                if t.dtype.base_dtype != dtype:
                    raise TypeError(f"Expected {what} to have dtype {dtype}.  Found {t.dtype}")
            r = self._u.shape[-1]
            if self._diag_update is not None:
                self._diag_operator: LinearOperator = LinearOperatorDiag(
                    self._diag_update, is_positive_definite=is_diag_update_positive
                )
            else:
                r_static = dimension_value(r)
                rows: Any = r_static if r_static is not None else array_ops.shape(self._u)[-1]
                self._diag_operator = LinearOperatorIdentity(rows, dtype=dtype)
            parents = [*base_operator.graph_parents, self._u]
            super().__init__(
                dtype=dtype,
                graph_parents=parents,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                name=name,
            )
            self._capacitance: Tensor | None = None

    @property
    def u(self) -> Tensor:
        return self._u

    @property
    def v(self) -> Tensor:
        return self._v

    @property
    def diag_update(self) -> Tensor | None:
        return self._diag_update

    @property
    def base_operator(self) -> LinearOperator:
        return self._base_operator

    @property
    def diag_operator(self) -> LinearOperator:
        return self._diag_operator

    @property
    def is_diag_update_positive(self) -> bool | None:
        return self._is_diag_update_positive

    def _shape(self) -> TensorShape:
        batch = broadcast_shape(self._base_operator.batch_shape, self._u.shape[:-2])
        return batch.concatenate(self._base_operator.shape[-2:])

    def _shape_tensor(self) -> Tensor:
        zeros = array_ops.zeros(self._base_operator.batch_shape_tensor()) + array_ops.zeros(
            array_ops.shape(self._u)[:-2]
        )
        return array_ops.concat(
            [array_ops.shape(zeros), self._base_operator.shape_tensor()[-2:]], 0
        )

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        base = self._base_operator.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_x = math_ops.matmul(v, x, adjoint_a=True, adjoint_b=adjoint_arg)
        d_vh_x = self._diag_operator.matmul(vh_x, adjoint=adjoint)
        return base + math_ops.matmul(u, d_vh_x)  # type: ignore[no-any-return]

    def _capacitance_matrix(self) -> Tensor:
        """C = D^-1 + V^H L^-1 U, the r x r matrix of the determinant lemma and Woodbury."""
        if self._capacitance is None:
            linv_u = self._base_operator.solve(self._u)
            vh_linv_u = math_ops.matmul(self._v, linv_u, adjoint_a=True)
            self._capacitance = self._diag_operator.inverse().add_to_tensor(vh_linv_u)
        return self._capacitance

    def _determinant(self) -> Tensor:
        if self._can_use_cholesky():
            return math_ops.exp(self.log_abs_determinant())
        det = self._base_operator.determinant()
        det *= self._diag_operator.determinant()
        return det * linalg_ops.matrix_determinant(self._capacitance_matrix())

    def _log_abs_determinant(self) -> Tensor:
        log_abs_det = self._base_operator.log_abs_determinant()
        log_abs_det += self._diag_operator.log_abs_determinant()
        if self._can_use_cholesky():
            chol = linalg_ops.cholesky(self._capacitance_matrix())
            log_abs_det += 2.0 * math_ops.reduce_sum(
                math_ops.log(linalg_ops.matrix_diag_part(chol)), axis=[-1]
            )
        else:
            log_abs_det += linalg_ops.log_matrix_determinant(self._capacitance_matrix())[1]
        return log_abs_det

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        if self._base_operator.is_non_singular is False:
            raise ValueError(
                "Solve not implemented unless this is a perturbation of a non-singular "
                "LinearOperator."
            )
        # Woodbury: A^-1 = L^-1 - L^-1 U C^-1 V^H L^-1 (U and V trade places for A^H).
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        linv_rhs = self._base_operator.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_linv_rhs = math_ops.matmul(v, linv_rhs, adjoint_a=True)
        capacitance, b = broadcast_batch(self._capacitance_matrix(), vh_linv_rhs)
        if self._can_use_cholesky():
            cinv = linalg_ops.cholesky_solve(linalg_ops.cholesky(capacitance), b)
        else:
            cinv = linalg_ops.matrix_solve(capacitance, b, adjoint=adjoint)
        linv_u_cinv = self._base_operator.solve(math_ops.matmul(u, cinv), adjoint=adjoint)
        return linv_rhs - linv_u_cinv  # type: ignore[no-any-return]


class LinearOperatorHouseholder(LinearOperator):
    """I - 2 v v^H / (v^H v): the reflection through the hyperplane orthogonal to v."""

    def __init__(
        self,
        reflection_axis: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorHouseholder",
    ) -> None:
        with name_scope(name, values=[reflection_axis]):
            self._axis = as_tensor(reflection_axis, "reflection_axis")
            if self._axis.shape.ndims is not None and self._axis.shape.ndims < 1:
                raise ValueError(
                    f"Argument reflection_axis must have at least 1 dimension.  Found: {self._axis}"
                )
            if is_self_adjoint is False:
                raise ValueError("A Householder operator is always self adjoint.")
            if is_non_singular is False:
                raise ValueError("A Householder operator is always non-singular.")
            if is_square is False:
                raise ValueError("A Householder operator is always square.")
            if is_positive_definite is True:
                raise ValueError("A Householder operator is always not positive definite.")
            super().__init__(
                dtype=self._axis.dtype,
                graph_parents=[self._axis],
                is_non_singular=True,
                is_self_adjoint=True,
                is_positive_definite=is_positive_definite,
                is_square=True,
                name=name,
            )

    @property
    def reflection_axis(self) -> Tensor:
        return self._axis

    def _shape(self) -> TensorShape:
        shape = self._axis.shape
        return shape.concatenate(shape[-1:])

    def _shape_tensor(self) -> Tensor:
        shape = array_ops.shape(self._axis)
        return array_ops.concat([shape, [shape[-1]]], 0)

    def _unit(self) -> Tensor:
        return linalg_ops.normalize(self._axis, axis=-1)[0]  # type: ignore[no-any-return]

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        axis = array_ops.expand_dims(self._unit(), -1)
        along = math_ops.matmul(axis, x, adjoint_a=True)
        return x - 2 * axis * along

    def _determinant(self) -> Tensor:
        return -array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        return array_ops.zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _to_dense(self) -> Tensor:
        unit = self._unit()
        n = array_ops.shape(unit)[-1]
        eye = linalg_ops.eye(n, dtype=self.dtype)
        outer = array_ops.expand_dims(unit, -1) * array_ops.expand_dims(math_ops.conj(unit), -2)
        return eye - 2 * outer

    def _diag_part(self) -> Tensor:
        unit = self._unit()
        return 1.0 - 2 * unit * math_ops.conj(unit)

    def _trace(self) -> Tensor:
        n = math_ops.cast(self.domain_dimension_tensor(), self.dtype)
        return n * array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype) - 2


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column `col` and first row `row` (row[0] is not used)."""

    def __init__(
        self,
        col: Any,
        row: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str = "LinearOperatorToeplitz",
    ) -> None:
        with name_scope(name, values=[row, col]):
            self._row = as_tensor(row, "row")
            self._col = as_tensor(col, "col")
            for t, what in ((self._row, "row"), (self._col, "col")):
                if t.shape.ndims is not None and t.shape.ndims < 1:
                    raise ValueError(f"Argument {what} must have at least 1 dimension.")
            if self._row.dtype.base_dtype != self._col.dtype.base_dtype:
                raise TypeError("row and col must have the same dtype")
            super().__init__(
                dtype=self._row.dtype,
                graph_parents=[self._row, self._col],
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True if is_square is None else is_square,
                name=name,
            )

    @property
    def row(self) -> Tensor:
        return self._row

    @property
    def col(self) -> Tensor:
        return self._col

    def _shape(self) -> TensorShape:
        batch = broadcast_shape(self._row.shape[:-1], self._col.shape[:-1])
        return batch.concatenate([self._row.shape[-1], self._row.shape[-1]])

    def _shape_tensor(self) -> Tensor:
        zeros = array_ops.zeros(array_ops.shape(self._row)[:-1]) + array_ops.zeros(
            array_ops.shape(self._col)[:-1]
        )
        n = array_ops.shape(self._row)[-1]
        return array_ops.concat([array_ops.shape(zeros), [n, n]], 0)

    def _to_dense(self) -> Tensor:
        # A[i, j] = col[i - j] below the diagonal and row[j - i] above it: one gather from
        # [reversed row[1:], col] at n - 1 + i - j.
        row, col = self._row, self._col
        if row.shape.ndims != col.shape.ndims or row.shape[:-1] != col.shape[:-1]:
            row = row + array_ops.zeros_like(col[..., :1])
            col = col + array_ops.zeros_like(row[..., :1])
        line = array_ops.concat([array_ops.reverse(row[..., 1:], [-1]), col], -1)
        n = array_ops.shape(row)[-1]
        i = math_ops.range(n)
        index = (n - 1) + array_ops.expand_dims(i, -1) - array_ops.expand_dims(i, 0)
        return _gather_last(line, index)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return math_ops.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _diag_part(self) -> Tensor:
        col0 = self._col[..., :1]
        ones = array_ops.ones_like(self._row)
        return col0 * ones

    def _trace(self) -> Tensor:
        n = math_ops.cast(array_ops.shape(self._row)[-1], self.dtype)
        return self._col[..., 0] * n


def _gather_last(line: Tensor, index: Tensor) -> Tensor:
    """line[..., index] for a batch of lines and a shared [n, n] index."""
    moved = array_ops.transpose(
        line,
        array_ops.concat([[array_ops.rank(line) - 1], math_ops.range(array_ops.rank(line) - 1)], 0),
    )
    gathered = array_ops.gather(moved, index)  # [n, n, ...]
    rank = array_ops.rank(gathered)
    return array_ops.transpose(gathered, array_ops.concat([math_ops.range(2, rank), [0, 1]], 0))


class _BaseCirculant(LinearOperator):
    """A block circulant of the given depth (1, 2 or 3 nested levels), diagonalised by the FFT:
    A = F^-1 diag(spectrum) F."""

    _DEPTH = 1

    def __init__(
        self,
        spectrum: Any,
        input_output_dtype: Any = dtypes.complex64,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool = True,
        name: str = "LinearOperatorCirculant",
    ) -> None:
        allowed = (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)
        with name_scope(name, values=[spectrum]):
            raw = as_tensor(spectrum, "spectrum")
            if raw.dtype.base_dtype not in allowed:
                names = ", ".join(d.name for d in allowed)
                raise TypeError(
                    f"Argument spectrum must have dtype in {names}.  Found: {raw.dtype}"
                )
            complex_dtype = (
                dtypes.complex128
                if raw.dtype.base_dtype in (dtypes.float64, dtypes.complex128)
                else dtypes.complex64
            )
            self._spectrum = (
                raw if raw.dtype.is_complex else complex_ops.complex(raw, array_ops.zeros_like(raw))
            )
            if raw.dtype.base_dtype != complex_dtype and not raw.dtype.is_complex:
                self._spectrum = math_ops.cast(self._spectrum, complex_dtype)
            if not is_square:
                raise ValueError("A circulant operator is always square.")
            super().__init__(
                dtype=dtypes.as_dtype(input_output_dtype),
                graph_parents=[self._spectrum],
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
                name=name,
            )

    @property
    def spectrum(self) -> Tensor:
        return self._spectrum

    @property
    def block_depth(self) -> int:
        return self._DEPTH

    def block_shape_tensor(self) -> Tensor:
        return array_ops.shape(self._spectrum)[-self._DEPTH :]

    @property
    def block_shape(self) -> TensorShape:
        return self._spectrum.shape[-self._DEPTH :]  # type: ignore[no-any-return]

    def _shape(self) -> TensorShape:
        block = self.block_shape
        n: Any = 1
        for d in block.as_list() if block.ndims is not None else [None]:
            n = None if n is None or d is None else n * d
        return self._spectrum.shape[: -self._DEPTH].concatenate([n, n])  # type: ignore[no-any-return]

    def _shape_tensor(self) -> Tensor:
        n = math_ops.reduce_prod(self.block_shape_tensor())
        return array_ops.concat([array_ops.shape(self._spectrum)[: -self._DEPTH], [n, n]], 0)

    def _fft(self, x: Tensor, inverse: bool) -> Tensor:
        fn = {
            (1, False): spectral_ops.fft,
            (2, False): spectral_ops.fft2d,
            (3, False): spectral_ops.fft3d,
            (1, True): spectral_ops.ifft,
            (2, True): spectral_ops.ifft2d,
            (3, True): spectral_ops.ifft3d,
        }[(self._DEPTH, inverse)]
        return fn(x)

    def _apply_spectrum(self, x: Tensor, spectrum: Tensor) -> Tensor:
        """ifft(spectrum * fft(x)) over x's columns, x [..., N, R] -> [..., N, R]."""
        complex_dtype = self._spectrum.dtype.base_dtype
        columns = linalg_ops.matrix_transpose(x)  # [..., R, N]
        columns = math_ops.cast(columns, complex_dtype)
        shape = array_ops.shape(columns)
        blocks = array_ops.reshape(
            columns, array_ops.concat([shape[:-1], self.block_shape_tensor()], 0)
        )
        spec = array_ops.expand_dims(spectrum, -self._DEPTH - 1)  # broadcast over the R columns
        result = self._fft(self._fft(blocks, inverse=False) * spec, inverse=True)
        flat = array_ops.reshape(
            result, array_ops.concat([array_ops.shape(result)[: -self._DEPTH], [-1]], 0)
        )
        out = linalg_ops.matrix_transpose(flat)
        if self.dtype.is_complex:
            return math_ops.cast(out, self.dtype)
        return math_ops.cast(complex_ops.real(out), self.dtype)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        spectrum = math_ops.conj(self._spectrum) if adjoint else self._spectrum
        return self._apply_spectrum(x, spectrum)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        spectrum = math_ops.conj(self._spectrum) if adjoint else self._spectrum
        return self._apply_spectrum(rhs, math_ops.reciprocal(spectrum))

    def _flat_spectrum(self) -> Tensor:
        shape = array_ops.shape(self._spectrum)
        return array_ops.reshape(self._spectrum, array_ops.concat([shape[: -self._DEPTH], [-1]], 0))

    def _determinant(self) -> Tensor:
        det = math_ops.reduce_prod(self._flat_spectrum(), axis=[-1])
        return det if self.dtype.is_complex else math_ops.cast(complex_ops.real(det), self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        log_det = math_ops.reduce_sum(math_ops.log(math_ops.abs(self._flat_spectrum())), axis=[-1])
        return math_ops.cast(log_det, self.dtype)

    def _trace(self) -> Tensor:
        total = math_ops.reduce_sum(self._flat_spectrum(), axis=[-1])
        if self.dtype.is_complex:
            return math_ops.cast(total, self.dtype)
        return math_ops.cast(complex_ops.real(total), self.dtype)

    def _diag_part(self) -> Tensor:
        flat = self._flat_spectrum()
        mean = math_ops.reduce_mean(flat, axis=[-1], keepdims=True)
        value = mean * math_ops.cast(array_ops.ones_like(complex_ops.real(flat)), flat.dtype)
        if self.dtype.is_complex:
            return math_ops.cast(value, self.dtype)
        return math_ops.cast(complex_ops.real(value), self.dtype)

    def convolution_kernel(self, name: str | None = "convolution_kernel") -> Tensor:
        """The kernel the operator convolves with: the inverse FFT of the spectrum."""
        with self._name_scope(name):
            kernel = self._fft(self._spectrum, inverse=True)
            if self.dtype.is_complex:
                return kernel
            return math_ops.cast(complex_ops.real(kernel), self.dtype)


class LinearOperatorCirculant(_BaseCirculant):
    """A circulant matrix given by its spectrum [..., N]."""

    _DEPTH = 1


class LinearOperatorCirculant2D(_BaseCirculant):
    """A block circulant with circulant blocks, spectrum [..., N0, N1]."""

    _DEPTH = 2

    def __init__(
        self,
        spectrum: Any,
        input_output_dtype: Any = dtypes.complex64,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool = True,
        name: str = "LinearOperatorCirculant2D",
    ) -> None:
        super().__init__(
            spectrum,
            input_output_dtype,
            is_non_singular,
            is_self_adjoint,
            is_positive_definite,
            is_square,
            name,
        )


class LinearOperatorCirculant3D(_BaseCirculant):
    """A three-level nested block circulant, spectrum [..., N0, N1, N2]."""

    _DEPTH = 3

    def __init__(
        self,
        spectrum: Any,
        input_output_dtype: Any = dtypes.complex64,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool = True,
        name: str = "LinearOperatorCirculant3D",
    ) -> None:
        super().__init__(
            spectrum,
            input_output_dtype,
            is_non_singular,
            is_self_adjoint,
            is_positive_definite,
            is_square,
            name,
        )
