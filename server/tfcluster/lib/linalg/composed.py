"""Operators made of other operators: LinearOperatorComposition, LinearOperatorAdjoint,
LinearOperatorInversion, LinearOperatorBlockDiag, LinearOperatorKronecker (TF 1.15's)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape, dimension_value
from tfcluster.lib.linalg.linear_operator import LinearOperator
from tfcluster.ops import array_ops, linalg_ops, math_ops
from tfcluster.ops.op_util import broadcast_shape


def _operator_list(operators: Any, what: str = "operators") -> list[LinearOperator]:
    if isinstance(operators, (str, bytes)) or not hasattr(operators, "__iter__"):
        raise TypeError(f"Expected argument 'values' to be an iterable.  Found: {operators}")
    found = list(operators)
    if not found:
        raise ValueError(f"Expected a non-empty list of {what}. Found: {found}")
    dtype = found[0].dtype
    if any(o.dtype != dtype for o in found):
        pairs = "   ".join(str((o.name, o.dtype)) for o in found)
        raise TypeError(f"Expected all operators to have the same dtype.  Found {pairs}")
    return found


def _parents(operators: Sequence[LinearOperator]) -> list[Any]:
    return [t for o in operators for t in o.graph_parents]


def _batch_shape(operators: Sequence[LinearOperator]) -> TensorShape:
    shape = operators[0].batch_shape
    for o in operators[1:]:
        shape = broadcast_shape(shape, o.batch_shape)
    return shape


def _batch_shape_tensor(operators: Sequence[LinearOperator]) -> Tensor:
    zeros = array_ops.zeros(operators[0].batch_shape_tensor())
    for o in operators[1:]:
        zeros += array_ops.zeros(o.batch_shape_tensor())
    return array_ops.shape(zeros)


class LinearOperatorComposition(LinearOperator):
    """operators[0] @ operators[1] @ ... (applied right to left)."""

    def __init__(
        self,
        operators: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str | None = None,
    ) -> None:
        self._operators = _operator_list(operators)
        if all(o.is_non_singular for o in self._operators):
            if is_non_singular is False:
                raise ValueError(
                    "The composition of non-singular operators is always non-singular."
                )
            is_non_singular = True
        name = name or "_o_".join(o.name for o in self._operators)
        parents = _parents(self._operators)
        with name_scope(name, values=parents):
            super().__init__(
                dtype=self._operators[0].dtype,
                graph_parents=parents,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                name=name,
            )

    @property
    def operators(self) -> list[LinearOperator]:
        return self._operators

    def _shape(self) -> TensorShape:
        inner = self._operators[0].domain_dimension
        for o in self._operators[1:]:
            a, b = dimension_value(inner), dimension_value(o.range_dimension)
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimensions {a} and {b} are not compatible")
            inner = o.domain_dimension
        matrix = TensorShape(
            [self._operators[0].range_dimension, self._operators[-1].domain_dimension]
        )
        return _batch_shape(self._operators).concatenate(matrix)

    def _shape_tensor(self) -> Tensor:
        matrix = array_ops.stack(
            [
                self._operators[0].range_dimension_tensor(),
                self._operators[-1].domain_dimension_tensor(),
            ]
        )
        return array_ops.concat((_batch_shape_tensor(self._operators), matrix), 0)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        order = self._operators if adjoint else list(reversed(self._operators))
        result = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for o in order[1:]:
            result = o.matmul(result, adjoint=adjoint)
        return result  # type: ignore[no-any-return]

    def _determinant(self) -> Tensor:
        result = self._operators[0].determinant()
        for o in self._operators[1:]:
            result *= o.determinant()
        return result

    def _log_abs_determinant(self) -> Tensor:
        result = self._operators[0].log_abs_determinant()
        for o in self._operators[1:]:
            result += o.log_abs_determinant()
        return result

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        order = list(reversed(self._operators)) if adjoint else self._operators
        solution = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for o in order[1:]:
            solution = o.solve(solution, adjoint=adjoint)
        return solution  # type: ignore[no-any-return]


def _conj_hint(hint: bool | None, given: bool | None, what: str) -> bool | None:
    if hint is False and given:
        raise ValueError(f"An operator is {what} if and only if its adjoint is {what}.")
    return hint if given is None else given


class LinearOperatorAdjoint(LinearOperator):
    """The conjugate transpose of an operator."""

    def __init__(
        self,
        operator: LinearOperator,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str | None = None,
    ) -> None:
        self._operator = operator
        hints = []
        for what, mine, given in (
            ("non-singular", operator.is_non_singular, is_non_singular),
            ("self-adjoint", operator.is_self_adjoint, is_self_adjoint),
            ("positive-definite", operator.is_positive_definite, is_positive_definite),
            ("square", operator.is_square, is_square),
        ):
            if mine is not None and given is not None and mine != given:
                raise ValueError(f"An operator is {what} if and only if its adjoint is {what}.")
            hints.append(mine if given is None else given)
        name = name or operator.name + "_adjoint"
        with name_scope(name, values=operator.graph_parents):
            super().__init__(
                dtype=operator.dtype,
                graph_parents=operator.graph_parents,
                is_non_singular=hints[0],
                is_self_adjoint=hints[1],
                is_positive_definite=hints[2],
                is_square=hints[3],
                name=name,
            )

    @property
    def operator(self) -> LinearOperator:
        return self._operator

    def _assert_non_singular(self) -> Any:
        return self._operator.assert_non_singular()

    def _assert_positive_definite(self) -> Any:
        return self._operator.assert_positive_definite()

    def _assert_self_adjoint(self) -> Any:
        return self._operator.assert_self_adjoint()

    def _shape(self) -> TensorShape:
        shape = self._operator.shape
        return shape[:-2].concatenate([shape[-1], shape[-2]])  # type: ignore[no-any-return]

    def _shape_tensor(self) -> Tensor:
        shape = self._operator.shape_tensor()
        return array_ops.concat([shape[:-2], [shape[-1], shape[-2]]], 0)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._operator.matmul(  # type: ignore[no-any-return]
            x, adjoint=not adjoint, adjoint_arg=adjoint_arg
        )

    def _matvec(self, x: Tensor, adjoint: bool = False) -> Tensor:
        return self._operator.matvec(x, adjoint=not adjoint)

    def _determinant(self) -> Tensor:
        if self.is_self_adjoint:
            return self._operator.determinant()
        return math_ops.conj(self._operator.determinant())

    def _log_abs_determinant(self) -> Tensor:
        return self._operator.log_abs_determinant()

    def _trace(self) -> Tensor:
        if self.is_self_adjoint:
            return self._operator.trace()
        return math_ops.conj(self._operator.trace())

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._operator.solve(  # type: ignore[no-any-return]
            rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg
        )

    def _solvevec(self, rhs: Tensor, adjoint: bool = False) -> Tensor:
        return self._operator.solvevec(rhs, adjoint=not adjoint)

    def _to_dense(self) -> Tensor:
        if self.is_self_adjoint:
            return self._operator.to_dense()
        return linalg_ops.adjoint(self._operator.to_dense())

    def _add_to_tensor(self, x: Tensor) -> Tensor:
        return self.to_dense() + x


class LinearOperatorInversion(LinearOperator):
    """The inverse of a (square, non-singular) operator: matmul solves and solve multiplies."""

    def __init__(
        self,
        operator: LinearOperator,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str | None = None,
    ) -> None:
        self._operator = operator
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(
                f"operator and supplied hints must have is_non_singular equal to True or None. "
                f"Found {operator.is_non_singular}, {is_non_singular}"
            )
        if operator.is_square is False or is_square is False:
            raise ValueError(
                "operator and supplied hints must have is_square equal to True or None. "
                f"Found {operator.is_square}, {is_square}"
            )
        hints = []
        for what, mine, given in (
            ("non-singular", operator.is_non_singular, is_non_singular),
            ("self-adjoint", operator.is_self_adjoint, is_self_adjoint),
            ("positive-definite", operator.is_positive_definite, is_positive_definite),
            ("square", operator.is_square, is_square),
        ):
            if mine is not None and given is not None and mine != given:
                raise ValueError(f"An operator is {what} if and only if its inverse is {what}.")
            hints.append(mine if given is None else given)
        name = name or operator.name + "_inv"
        with name_scope(name, values=operator.graph_parents):
            super().__init__(
                dtype=operator.dtype,
                graph_parents=operator.graph_parents,
                is_non_singular=hints[0],
                is_self_adjoint=hints[1],
                is_positive_definite=hints[2],
                is_square=hints[3],
                name=name,
            )

    @property
    def operator(self) -> LinearOperator:
        return self._operator

    def _assert_non_singular(self) -> Any:
        return self._operator.assert_non_singular()

    def _assert_positive_definite(self) -> Any:
        return self._operator.assert_positive_definite()

    def _assert_self_adjoint(self) -> Any:
        return self._operator.assert_self_adjoint()

    def _shape(self) -> TensorShape:
        return self._operator.shape

    def _shape_tensor(self) -> Tensor:
        return self._operator.shape_tensor()

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._operator.solve(  # type: ignore[no-any-return]
            x, adjoint=adjoint, adjoint_arg=adjoint_arg
        )

    def _determinant(self) -> Tensor:
        return 1.0 / self._operator.determinant()

    def _log_abs_determinant(self) -> Tensor:
        return -1.0 * self._operator.log_abs_determinant()

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._operator.matmul(  # type: ignore[no-any-return]
            rhs, adjoint=adjoint, adjoint_arg=adjoint_arg
        )


class LinearOperatorBlockDiag(LinearOperator):
    """A block-diagonal operator of square operators."""

    def __init__(
        self,
        operators: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool = True,
        name: str | None = None,
    ) -> None:
        self._operators = _operator_list(operators)
        if all(o.is_non_singular for o in self._operators):
            if is_non_singular is False:
                raise ValueError("The direct sum of non-singular operators is always non-singular.")
            is_non_singular = True
        if all(o.is_self_adjoint for o in self._operators):
            if is_self_adjoint is False:
                raise ValueError("The direct sum of self-adjoint operators is always self-adjoint.")
            is_self_adjoint = True
        if all(o.is_positive_definite for o in self._operators):
            if is_positive_definite is False:
                raise ValueError(
                    "The direct sum of positive definite operators is always positive definite."
                )
            is_positive_definite = True
        if not (is_square and all(o.is_square for o in self._operators)):
            raise ValueError("Can only represent a block diagonal of square matrices.")
        name = name or "_ds_".join(o.name for o in self._operators)
        parents = _parents(self._operators)
        with name_scope(name, values=parents):
            super().__init__(
                dtype=self._operators[0].dtype,
                graph_parents=parents,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=True,
                name=name,
            )

    @property
    def operators(self) -> list[LinearOperator]:
        return self._operators

    def _shape(self) -> TensorShape:
        dims = [dimension_value(o.domain_dimension) for o in self._operators]
        n = None if None in dims else sum(d for d in dims if d is not None)
        return _batch_shape(self._operators).concatenate([n, n])

    def _shape_tensor(self) -> Tensor:
        n = self._operators[0].domain_dimension_tensor()
        for o in self._operators[1:]:
            n += o.domain_dimension_tensor()
        return array_ops.concat((_batch_shape_tensor(self._operators), [n, n]), 0)

    def _sizes(self) -> list[Any]:
        out = []
        for o in self._operators:
            d = dimension_value(o.domain_dimension)
            out.append(d if d is not None else o.domain_dimension_tensor())
        return out

    def _split_rows(self, x: Tensor) -> list[Tensor]:
        sizes = self._sizes()
        if all(isinstance(s, int) for s in sizes):
            return array_ops.split(x, sizes, axis=-2)  # type: ignore[no-any-return]
        return array_ops.split(x, array_ops.stack(sizes), axis=-2)  # type: ignore[no-any-return]

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        parts = [
            o.matmul(block, adjoint=adjoint)
            for o, block in zip(self._operators, self._split_rows(x))
        ]
        return array_ops.concat(_broadcast_all(parts), axis=-2)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        parts = [
            o.solve(block, adjoint=adjoint)
            for o, block in zip(self._operators, self._split_rows(rhs))
        ]
        return array_ops.concat(_broadcast_all(parts), axis=-2)

    def _determinant(self) -> Tensor:
        result = self._operators[0].determinant()
        for o in self._operators[1:]:
            result *= o.determinant()
        return result

    def _log_abs_determinant(self) -> Tensor:
        result = self._operators[0].log_abs_determinant()
        for o in self._operators[1:]:
            result += o.log_abs_determinant()
        return result

    def _diag_part(self) -> Tensor:
        parts = [o.diag_part() for o in self._operators]
        return array_ops.concat(_broadcast_all(parts, matrices=False), axis=-1)

    def _trace(self) -> Tensor:
        result = self._operators[0].trace()
        for o in self._operators[1:]:
            result += o.trace()
        return result

    def _to_dense(self) -> Tensor:
        n = self._sizes()
        total = sum(n) if all(isinstance(s, int) for s in n) else None
        rows = []
        start: Any = 0
        for o, size in zip(self._operators, n):
            dense = o.to_dense()
            after = (total - start - size) if total is not None else None
            if after is None:
                raise ValueError("LinearOperatorBlockDiag.to_dense needs static block sizes")
            outer = [[0, 0]] * ((dense.shape.ndims or 2) - 2)
            rows.append(array_ops.pad(dense, [*outer, [0, 0], [start, after]]))
            start += size
        return array_ops.concat(_broadcast_all(rows), axis=-2)


def _broadcast_all(parts: list[Tensor], matrices: bool = True) -> list[Tensor]:
    """The parts with their batch dimensions broadcast to one shape."""
    keep = 2 if matrices else 1
    shapes = [p.shape[:-keep] for p in parts if p.shape.ndims is not None]
    known = len(shapes) == len(parts) and all(s.is_fully_defined() for s in shapes)
    if known and all(s == shapes[0] for s in shapes):
        return parts
    zeros: Any = None
    for p in parts:
        z = array_ops.zeros(array_ops.shape(p)[:-keep], dtype=p.dtype)
        zeros = z if zeros is None else zeros + z
    out = []
    for p in parts:
        expanded = array_ops.expand_dims(zeros, -1)
        if matrices:
            expanded = array_ops.expand_dims(expanded, -1)
        out.append(p + expanded)
    return out


class LinearOperatorKronecker(LinearOperator):
    """operators[0] kron operators[1] kron ... ."""

    def __init__(
        self,
        operators: Any,
        is_non_singular: bool | None = None,
        is_self_adjoint: bool | None = None,
        is_positive_definite: bool | None = None,
        is_square: bool | None = None,
        name: str | None = None,
    ) -> None:
        self._operators = _operator_list(operators)
        if all(o.is_non_singular for o in self._operators):
            if is_non_singular is False:
                raise ValueError(
                    "The Kronecker product of non-singular operators is always non-singular."
                )
            is_non_singular = True
        if all(o.is_self_adjoint for o in self._operators):
            if is_self_adjoint is False:
                raise ValueError(
                    "The Kronecker product of self-adjoint operators is always self-adjoint."
                )
            is_self_adjoint = True
        name = name or "_x_".join(o.name for o in self._operators)
        parents = _parents(self._operators)
        with name_scope(name, values=parents):
            super().__init__(
                dtype=self._operators[0].dtype,
                graph_parents=parents,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
                is_square=is_square,
                name=name,
            )

    @property
    def operators(self) -> list[LinearOperator]:
        return self._operators

    def _shape(self) -> TensorShape:
        rows: Any = 1
        cols: Any = 1
        for o in self._operators:
            r, c = dimension_value(o.range_dimension), dimension_value(o.domain_dimension)
            rows = None if rows is None or r is None else rows * r
            cols = None if cols is None or c is None else cols * c
        return _batch_shape(self._operators).concatenate([rows, cols])

    def _shape_tensor(self) -> Tensor:
        rows = self._operators[0].range_dimension_tensor()
        cols = self._operators[0].domain_dimension_tensor()
        for o in self._operators[1:]:
            rows *= o.range_dimension_tensor()
            cols *= o.domain_dimension_tensor()
        return array_ops.concat((_batch_shape_tensor(self._operators), [rows, cols]), 0)

    def _to_dense(self) -> Tensor:
        dense = self._operators[0].to_dense()
        for o in self._operators[1:]:
            dense = _kron_dense(dense, o.to_dense())
        return dense

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        # Rows of x are indexed (i0, i1, ...), one index per factor. Each factor in turn is
        # applied to the leading index, whose result then moves to the back: after all of them
        # the rows are indexed (p0, p1, ...) again.
        dims = []
        for o in self._operators:
            n = dimension_value(o.range_dimension if adjoint else o.domain_dimension)
            m = dimension_value(o.domain_dimension if adjoint else o.range_dimension)
            if n is None or m is None:
                return math_ops.matmul(self.to_dense(), x, adjoint_a=adjoint)
            dims.append((n, m))
        result = x
        for i, o in enumerate(self._operators):
            rest = 1
            for n, _ in dims[i + 1 :]:
                rest *= n
            for _, m in dims[:i]:
                rest *= m
            result = _apply_factor(o, result, dims[i][0], dims[i][1], rest, adjoint)
        return result

    def _determinant(self) -> Tensor:
        total = 1
        for o in self._operators:
            d = dimension_value(o.domain_dimension)
            if d is None:
                return super()._determinant()
            total *= d
        result: Any = None
        for o in self._operators:
            n = dimension_value(o.domain_dimension)
            term = o.determinant() ** math_ops.cast(total // n, o.dtype)  # type: ignore[operator]
            result = term if result is None else result * term
        return result  # type: ignore[no-any-return]

    def _log_abs_determinant(self) -> Tensor:
        total = 1
        for o in self._operators:
            d = dimension_value(o.domain_dimension)
            if d is None:
                return super()._log_abs_determinant()
            total *= d
        result: Any = None
        for o in self._operators:
            n = dimension_value(o.domain_dimension)
            term = o.log_abs_determinant() * math_ops.cast(total // n, o.dtype)  # type: ignore[operator]
            result = term if result is None else result + term
        return result  # type: ignore[no-any-return]

    def _trace(self) -> Tensor:
        result = self._operators[0].trace()
        for o in self._operators[1:]:
            result *= o.trace()
        return result

    def _diag_part(self) -> Tensor:
        diag = self._operators[0].diag_part()
        for o in self._operators[1:]:
            other = o.diag_part()
            outer = array_ops.expand_dims(diag, -1) * array_ops.expand_dims(other, -2)
            diag = array_ops.reshape(
                outer, array_ops.concat([array_ops.shape(outer)[:-2], [-1]], 0)
            )
        return diag

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        inverse = LinearOperatorKronecker([o.inverse() for o in self._operators])
        return inverse.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)  # type: ignore[no-any-return]


def _kron_dense(a: Tensor, b: Tensor) -> Tensor:
    left = array_ops.expand_dims(array_ops.expand_dims(a, -1), -3)
    right = array_ops.expand_dims(array_ops.expand_dims(b, -3), -2)
    product = left * right  # [..., ra, rb, ca, cb]
    shape_a, shape_b = array_ops.shape(a), array_ops.shape(b)
    batch = array_ops.shape(product)[:-4]
    rows = shape_a[-2] * shape_b[-2]
    cols = shape_a[-1] * shape_b[-1]
    return array_ops.reshape(product, array_ops.concat([batch, [rows, cols]], 0))


def _apply_factor(o: LinearOperator, x: Tensor, n: int, m: int, rest: int, adjoint: bool) -> Tensor:
    """Applies o to the leading index of x's rows seen as [n, rest], moving that index last so
    the next factor finds its own index leading: [..., n*rest, k] -> [..., rest*m, k]."""
    shape = array_ops.shape(x)
    batch, k = shape[:-2], shape[-1]
    grid = array_ops.reshape(x, array_ops.concat([batch, [n, rest * k]], 0))
    applied = o.matmul(grid, adjoint=adjoint)  # [..., m, rest * k]
    split = array_ops.reshape(applied, array_ops.concat([batch, [m, rest, k]], 0))
    rank = array_ops.rank(split)
    outer = math_ops.range(rank - 3)
    moved = array_ops.transpose(
        split, array_ops.concat([outer, math_ops.subtract(rank, [2, 3, 1])], 0)
    )
    return array_ops.reshape(moved, array_ops.concat([batch, [rest * m, k]], 0))
