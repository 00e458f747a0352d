"""The LinearOperator base class of TF 1.15 (tf.linalg.LinearOperator) and its algebra:
adjoint, inverse, cholesky, and operator-by-operator matmul and solve, each looked up by the
operators' classes (the most specific registration wins) as TF's linear_operator_algebra does.

Ops are named as TF names them: every method opens the scope "<operator name>/<method>"."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import Dimension, TensorShape, dimension_value
from tfcluster.ops import array_ops, check_ops, linalg_ops, math_ops

_Rule = Callable[..., Any]
_UNARY: dict[str, dict[type, _Rule]] = {"adjoint": {}, "inverse": {}, "cholesky": {}}
_BINARY: dict[str, dict[tuple[type, type], _Rule]] = {"matmul": {}, "solve": {}}


def register_unary(kind: str, cls: type) -> Callable[[_Rule], _Rule]:
    def deco(fn: _Rule) -> _Rule:
        _UNARY[kind][cls] = fn
        return fn

    return deco


def register_binary(kind: str, left: type, right: type) -> Callable[[_Rule], _Rule]:
    def deco(fn: _Rule) -> _Rule:
        _BINARY[kind][(left, right)] = fn
        return fn

    return deco


def _load_rules() -> None:
    """The rules live with the operator classes they name (which import this module)."""
    import tfcluster.lib.linalg.algebra  # noqa: F401


def _unary(kind: str, operator: LinearOperator) -> Any:
    _load_rules()
    for cls in type(operator).__mro__:
        if cls in _UNARY[kind]:
            return _UNARY[kind][cls](operator)
    raise NotImplementedError(f"No {kind} registered for {type(operator).__name__}")


def _binary(kind: str, left: LinearOperator, right: LinearOperator) -> Any:
    _load_rules()
    for cls_a in type(left).__mro__:
        for cls_b in type(right).__mro__:
            rule = _BINARY[kind].get((cls_a, cls_b))
            if rule is not None:
                return rule(left, right)
    raise NotImplementedError(
        f"No {kind} registered for {type(left).__name__}, {type(right).__name__}"
    )


def _assert_compatible(a: Any, b: Any) -> None:
    x, y = dimension_value(a), dimension_value(b)
    if x is not None and y is not None and x != y:
        raise ValueError(f"Dimensions {x} and {y} are not compatible")


def shape_tensor(shape: Any, name: str | None = None) -> Tensor:
    """A shape as an int32 tensor (an empty one stays int32)."""
    if isinstance(shape, Tensor):
        return shape
    return convert_to_tensor(np.asarray(shape, dtype=np.int32), dtypes.int32, name=name)


def broadcast_batch(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """a and b with their batch dimensions (all but the last two) broadcast against each other."""
    if a.shape.ndims is not None and b.shape.ndims is not None:
        batch_a, batch_b = a.shape[:-2], b.shape[:-2]
        if batch_a.is_fully_defined() and batch_b.is_fully_defined() and batch_a == batch_b:
            return a, b
    zeros_a = array_ops.zeros(array_ops.concat([array_ops.shape(b)[:-2], [1, 1]], 0), dtype=a.dtype)
    zeros_b = array_ops.zeros(array_ops.concat([array_ops.shape(a)[:-2], [1, 1]], 0), dtype=b.dtype)
    return a + zeros_a, b + zeros_b


class LinearOperator:
    """An [..., M, N] matrix known by its structure. Subclasses give _shape, _shape_tensor and
    _matmul; everything else has a (possibly dense, O(N^3)) default they may replace."""

    def __init__(
        self,
        dtype: Any,
        graph_parents: list[Any] | None = None,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str | None = None,
    ) -> None:
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        parents = list(graph_parents or [])
        for i, t in enumerate(parents):
            if not isinstance(t, Tensor):
                raise ValueError(f"Graph parent item {i} is not a Tensor; {t}.")
        self._is_square_hint = is_square
        self._dtype = dtypes.as_dtype(dtype).base_dtype if dtype else dtype
        self._graph_parents = parents
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._name = name or type(self).__name__

    @contextlib.contextmanager
    def _name_scope(self, name: str | None = None) -> Iterator[str]:
        full = self.name if name is None else f"{self.name}/{name}"
        with name_scope(full) as scope:
            yield scope

    # ---- hints and shapes ------------------------------------------------------------------
    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def graph_parents(self) -> list[Any]:
        return self._graph_parents

    @property
    def is_non_singular(self) -> bool | None:
        return self._is_non_singular

    @property
    def is_self_adjoint(self) -> bool | None:
        return self._is_self_adjoint

    @property
    def is_positive_definite(self) -> bool | None:
        return self._is_positive_definite

    @property
    def is_square(self) -> bool | None:
        auto = self.domain_dimension == self.range_dimension
        if self._is_square_hint is False and auto:
            raise ValueError("User set is_square hint to False, but the operator was square.")
        if self._is_square_hint is None:
            return bool(auto) if auto is not None else None
        return self._is_square_hint

    def _shape(self) -> TensorShape:
        raise NotImplementedError("_shape is not implemented.")

    def _shape_tensor(self) -> Tensor:
        raise NotImplementedError("_shape_tensor is not implemented.")

    @property
    def shape(self) -> TensorShape:
        return self._shape()

    def shape_tensor(self, name: str | None = "shape_tensor") -> Tensor:
        with self._name_scope(name):
            if self.shape.is_fully_defined():
                return shape_tensor(self.shape.as_list())
            return self._shape_tensor()

    @property
    def batch_shape(self) -> TensorShape:
        return self.shape[:-2]  # type: ignore[no-any-return]

    def batch_shape_tensor(self, name: str | None = "batch_shape_tensor") -> Tensor:
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return shape_tensor(self.batch_shape.as_list(), name="batch_shape")
            return self.shape_tensor()[:-2]

    @property
    def tensor_rank(self) -> int | None:
        return self.shape.ndims

    def tensor_rank_tensor(self, name: str | None = "tensor_rank_tensor") -> Tensor:
        with self._name_scope(name):
            if self.tensor_rank is not None:
                return convert_to_tensor(self.tensor_rank)
            return array_ops.size(self.shape_tensor())

    @property
    def domain_dimension(self) -> Dimension:
        if self.shape.ndims is None:
            return Dimension(None)
        return self.shape.dims[-1]  # type: ignore[index]

    def domain_dimension_tensor(self, name: str | None = "domain_dimension_tensor") -> Tensor:
        with self._name_scope(name):
            value = dimension_value(self.domain_dimension)
            if value is not None:
                return convert_to_tensor(value)
            return self.shape_tensor()[-1]

    @property
    def range_dimension(self) -> Dimension:
        if self.shape.dims:
            return self.shape.dims[-2]
        return Dimension(None)

    def range_dimension_tensor(self, name: str | None = "range_dimension_tensor") -> Tensor:
        with self._name_scope(name):
            value = dimension_value(self.range_dimension)
            if value is not None:
                return convert_to_tensor(value)
            return self.shape_tensor()[-2]

    # ---- assertions ------------------------------------------------------------------------
    def _assert_non_singular(self) -> Any:
        if self._can_use_cholesky():
            return self.assert_positive_definite()
        singular_values = linalg_ops.svd(self.to_dense(), compute_uv=False)
        cond = math_ops.reduce_max(singular_values, axis=-1) / math_ops.reduce_min(
            singular_values, axis=-1
        )
        eps = np.finfo(self.dtype.real_dtype.as_numpy_dtype).eps
        size = max(100.0, *(float(dimension_value(d) or 0) for d in self.shape[-2:]))
        return check_ops.assert_less(
            cond, 1.0 / (size * eps), message="Singular matrix up to precision epsilon."
        )

    def assert_non_singular(self, name: str | None = "assert_non_singular") -> Any:
        with self._name_scope(name):
            return self._assert_non_singular()

    def _assert_positive_definite(self) -> Any:
        if self.is_self_adjoint:
            return check_ops.assert_positive(
                linalg_ops.matrix_diag_part(linalg_ops.cholesky(self.to_dense())),
                message="Matrix was not positive definite.",
            )
        raise NotImplementedError("assert_positive_definite is not implemented.")

    def assert_positive_definite(self, name: str | None = "assert_positive_definite") -> Any:
        with self._name_scope(name):
            return self._assert_positive_definite()

    def _assert_self_adjoint(self) -> Any:
        dense = self.to_dense()
        return check_ops.assert_equal(
            dense, linalg_ops.adjoint(dense), message="Matrix was not equal to its adjoint."
        )

    def assert_self_adjoint(self, name: str | None = "assert_self_adjoint") -> Any:
        with self._name_scope(name):
            return self._assert_self_adjoint()

    def _check_input_dtype(self, arg: Tensor) -> None:
        if arg.dtype.base_dtype != self.dtype:
            raise TypeError(
                f"Expected argument to have dtype {self.dtype}.  Found: {arg.dtype} in tensor {arg}"
            )

    # ---- products and solves ---------------------------------------------------------------
    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        raise NotImplementedError("_matmul is not implemented.")

    def _incompatible(self, left: LinearOperator, right: LinearOperator, what: str) -> None:
        a, b = dimension_value(right.range_dimension), dimension_value(left.domain_dimension)
        if a is not None and b is not None and a != b:
            raise ValueError(
                f"Operators are incompatible. Expected `{what}` to have dimension {b} but got {a}."
            )

    def matmul(
        self, x: Any, adjoint: bool = False, adjoint_arg: bool = False, name: str | None = "matmul"
    ) -> Any:
        """self @ x (adjoint: self^H @ x; adjoint_arg: self @ x^H); x may be an operator."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            self._incompatible(left, right, "x")
            with self._name_scope(name):
                return _binary("matmul", left, right)
        with self._name_scope(name):
            t = convert_to_tensor(x, name="x")
            self._check_input_dtype(t)
            own = self.shape[-2 if adjoint else -1]
            _assert_compatible(own, t.shape[-1 if adjoint_arg else -2])
            return self._matmul(t, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def __matmul__(self, other: Any) -> Any:
        return self.matmul(other)

    def _matvec(self, x: Tensor, adjoint: bool = False) -> Tensor:
        column = array_ops.expand_dims(x, -1)
        return array_ops.squeeze(self.matmul(column, adjoint=adjoint), -1)

    def matvec(self, x: Any, adjoint: bool = False, name: str | None = "matvec") -> Tensor:
        with self._name_scope(name):
            t = convert_to_tensor(x, name="x")
            self._check_input_dtype(t)
            _assert_compatible(self.shape[-2 if adjoint else -1], t.shape[-1])
            return self._matvec(t, adjoint=adjoint)

    def _determinant(self) -> Tensor:
        if self._can_use_cholesky():
            return math_ops.exp(self.log_abs_determinant())
        return linalg_ops.matrix_determinant(self.to_dense())

    def determinant(self, name: str | None = "det") -> Tensor:
        if self.is_square is False:
            raise NotImplementedError(
                "Determinant not implemented for an operator that is expected to not be square."
            )
        with self._name_scope(name):
            return self._determinant()

    def _log_abs_determinant(self) -> Tensor:
        if self._can_use_cholesky():
            diag = linalg_ops.matrix_diag_part(linalg_ops.cholesky(self.to_dense()))
            return 2 * math_ops.reduce_sum(math_ops.log(diag), axis=[-1])
        return linalg_ops.log_matrix_determinant(self.to_dense())[1]

    def log_abs_determinant(self, name: str | None = "log_abs_det") -> Tensor:
        if self.is_square is False:
            raise NotImplementedError(
                "Determinant not implemented for an operator that is expected to not be square."
            )
        with self._name_scope(name):
            return self._log_abs_determinant()

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        if self.is_square is False:
            raise NotImplementedError("Solve is not yet implemented for non-square operators.")
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        if self._can_use_cholesky():
            with name_scope("CholeskySolveWithBroadcast"):
                chol, b = broadcast_batch(linalg_ops.cholesky(self.to_dense()), rhs)
                return linalg_ops.cholesky_solve(chol, b)
        with name_scope("MatrixSolveWithBroadcast"):
            matrix, b = broadcast_batch(self.to_dense(), rhs)
            return linalg_ops.matrix_solve(matrix, b, adjoint=adjoint)

    def solve(
        self, rhs: Any, adjoint: bool = False, adjoint_arg: bool = False, name: str | None = "solve"
    ) -> Any:
        """x with self @ x = rhs (adjoint: self^H @ x = rhs; adjoint_arg: = rhs^H)."""
        if self.is_non_singular is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to be singular."
            )
        if self.is_square is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to not be square."
            )
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            self._incompatible(left, right, "rhs")
            with self._name_scope(name):
                return _binary("solve", left, right)
        with self._name_scope(name):
            t = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(t)
            own = self.shape[-1 if adjoint else -2]
            _assert_compatible(own, t.shape[-1 if adjoint_arg else -2])
            return self._solve(t, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs: Tensor, adjoint: bool = False) -> Tensor:
        column = array_ops.expand_dims(rhs, -1)
        return array_ops.squeeze(self.solve(column, adjoint=adjoint), -1)

    def solvevec(self, rhs: Any, adjoint: bool = False, name: str | None = "solve") -> Tensor:
        with self._name_scope(name):
            t = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(t)
            _assert_compatible(self.shape[-1 if adjoint else -2], t.shape[-1])
            return self._solvevec(t, adjoint=adjoint)

    # ---- derived operators -----------------------------------------------------------------
    def adjoint(self, name: str | None = "adjoint") -> LinearOperator:
        if self.is_self_adjoint is True:
            return self
        with self._name_scope(name):
            return _unary("adjoint", self)  # type: ignore[no-any-return]

    H = property(adjoint)

    def inverse(self, name: str | None = "inverse") -> LinearOperator:
        if self.is_square is False:
            raise ValueError(
                "Cannot take the Inverse: This operator represents a non square matrix."
            )
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular matrix.")
        with self._name_scope(name):
            return _unary("inverse", self)  # type: ignore[no-any-return]

    def cholesky(self, name: str | None = "cholesky") -> LinearOperator:
        if not self._can_use_cholesky():
            raise ValueError(
                "Cannot take the Cholesky decomposition: Not a positive definite self adjoint "
                "matrix."
            )
        with self._name_scope(name):
            return _unary("cholesky", self)  # type: ignore[no-any-return]

    # ---- dense views -----------------------------------------------------------------------
    def _to_dense(self) -> Tensor:
        batch: Any = (
            self.batch_shape.as_list()
            if self.batch_shape.is_fully_defined()
            else self.batch_shape_tensor()
        )
        n = dimension_value(self.domain_dimension)
        size: Any = n if n is not None else self.domain_dimension_tensor()
        eye = linalg_ops.eye(size, batch_shape=batch, dtype=self.dtype)
        return self.matmul(eye)  # type: ignore[no-any-return]

    def to_dense(self, name: str | None = "to_dense") -> Tensor:
        with self._name_scope(name):
            return self._to_dense()

    def _diag_part(self) -> Tensor:
        return linalg_ops.matrix_diag_part(self.to_dense())

    def diag_part(self, name: str | None = "diag_part") -> Tensor:
        with self._name_scope(name):
            return self._diag_part()

    def _trace(self) -> Tensor:
        return math_ops.reduce_sum(self.diag_part(), axis=-1)

    def trace(self, name: str | None = "trace") -> Tensor:
        with self._name_scope(name):
            return self._trace()

    def _add_to_tensor(self, x: Tensor) -> Tensor:
        return self.to_dense() + x

    def add_to_tensor(self, x: Any, name: str | None = "add_to_tensor") -> Tensor:
        with self._name_scope(name):
            t = convert_to_tensor(x, name="x")
            self._check_input_dtype(t)
            return self._add_to_tensor(t)

    def _can_use_cholesky(self) -> bool:
        return bool(self.is_self_adjoint and self.is_positive_definite)
