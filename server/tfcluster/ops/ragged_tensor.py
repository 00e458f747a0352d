"""tf.RaggedTensor and tf.RaggedTensorSpec as TF 1.15 has them: a tensor whose rows differ in
length, held as `values` (a Tensor, or a RaggedTensor for ragged_rank > 1) partitioned by a
1-D `row_splits` vector. Factories validate the partition with assert ops (a bad one fails
at run time with InvalidArgumentError), conversions to and from dense and sparse tensors are
built from ordinary ops (so gradients flow as in TF), and sessions fetch a RaggedTensor as a
tf.ragged.RaggedTensorValue (client/fetches.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dispatch, dtypes, tensor_util
from tfcluster.framework.graph import Graph, Operation, Tensor, convert_to_tensor, name_scope
from tfcluster.framework.ragged_tensor_value import RaggedTensorValue
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.framework.type_spec import TypeSpec
from tfcluster.ops import (
    array_ops,
    broadcast_ops,
    control_flow_ops,
    counting_ops,
    math_ops,
    ragged_checks,
    ragged_ops,
)

_SPLITS_DTYPES = (dtypes.int32, dtypes.int64)


def _convert_splits(value: Any, name: str, dtype: Any = None) -> Tensor:
    """Row partition tensors are int32 or int64 (int64 unless given otherwise)."""
    if isinstance(value, Tensor):
        if value.dtype.base_dtype not in _SPLITS_DTYPES:
            raise ValueError(f"{name} must have dtype int32 or int64")
        if dtype is not None and value.dtype.base_dtype != dtype:
            return math_ops.cast(value, dtype)
        return value
    return convert_to_tensor(value, name=name, dtype=dtype or dtypes.int64)


def _convert_values(values: Any) -> Any:
    if isinstance(values, RaggedTensor):
        return values
    return convert_to_tensor(values, name="values")


def _splits_dtype_of(values: Any) -> dtypes.DType | None:
    return values.row_splits.dtype.base_dtype if isinstance(values, RaggedTensor) else None


def _nrows_of(values: Any, out_type: dtypes.DType) -> Tensor:
    if isinstance(values, RaggedTensor):
        return values.nrows(out_type=out_type)
    return array_ops.shape(values, out_type=out_type)[0]


class RaggedTensor:
    """Represents a ragged tensor."""

    def __init__(
        self,
        values: Any,
        row_splits: Any,
        cached_row_lengths: Any = None,
        cached_value_rowids: Any = None,
        cached_nrows: Any = None,
        internal: bool = False,
    ) -> None:
        if not internal:
            raise ValueError(
                "RaggedTensor constructor is private; please use one of the factory methods "
                "instead (e.g., RaggedTensor.from_row_lengths())"
            )
        if not isinstance(values, (RaggedTensor, Tensor)):
            raise TypeError(f"values must be a Tensor or RaggedTensor, got {values!r}")
        if not isinstance(row_splits, Tensor):
            raise TypeError(f"Row-partitioning argument must be a Tensor, got {row_splits!r}")
        if row_splits.dtype.base_dtype not in _SPLITS_DTYPES:
            raise ValueError("Row-partitioning argument must be int32 or int64")
        row_splits.shape.assert_has_rank(1)
        values.shape.with_rank_at_least(1)
        splits_dtype = _splits_dtype_of(values)
        if splits_dtype is not None and splits_dtype != row_splits.dtype.base_dtype:
            raise ValueError(
                "dtype mismatch: values.row_splits has dtype "
                f"{splits_dtype.name} but row_splits has {row_splits.dtype.base_dtype.name}; "
                "use RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes."
            )
        self._values = values
        self._row_splits = row_splits
        self._cached_row_lengths = cached_row_lengths
        self._cached_value_rowids = cached_value_rowids
        self._cached_nrows = cached_nrows

    # ---- factories -------------------------------------------------------------------------

    @classmethod
    def from_value_rowids(
        cls,
        values: Any,
        value_rowids: Any,
        nrows: Any = None,
        name: str | None = None,
        validate: bool = True,
    ) -> RaggedTensor:
        """values[i] goes into row value_rowids[i] (sorted ascending); nrows rows in all."""
        with name_scope(name, "RaggedFromValueRowIds", [values, value_rowids, nrows]):
            values = _convert_values(values)
            value_rowids = _convert_splits(value_rowids, "value_rowids", _splits_dtype_of(values))
            dtype = value_rowids.dtype.base_dtype
            if nrows is None:
                # Rows through the last id: value_rowids[-1] + 1 (0 when there are no values).
                const_rowids = tensor_util.constant_value(value_rowids)
                if const_rowids is None:
                    last = array_ops.concat([[-1], value_rowids], axis=0)[-1]
                    nrows = math_ops.cast(last + 1, dtype)
                else:
                    n = int(const_rowids[-1]) + 1 if const_rowids.size else 0
                    nrows = convert_to_tensor(n, dtype=dtype, name="nrows")
            else:
                nrows = _convert_splits(nrows, "nrows", dtype)
                nrows.shape.assert_has_rank(0)
            value_rowids.shape.assert_has_rank(1)
            checks = []
            if validate:
                msg = "Arguments to from_value_rowids do not form a valid RaggedTensor"
                nvals1 = _nrows_of(values, dtype)
                nvals2 = array_ops.shape(value_rowids, out_type=dtype)[0]
                checks = [
                    ragged_checks.assert_non_negative(value_rowids[:1], message=msg),
                    ragged_checks.assert_non_negative(
                        value_rowids[1:] - value_rowids[:-1], message=msg
                    ),
                    ragged_checks.assert_less(value_rowids[-1:], nrows, message=msg),
                    ragged_checks.assert_equal(nvals1, nvals2, message=msg),
                ]
                value_rowids = control_flow_ops.with_dependencies(checks, value_rowids)
            rowids_int32 = math_ops.cast(value_rowids, dtypes.int32)
            nrows_int32 = math_ops.cast(nrows, dtypes.int32)
            counts = counting_ops.bincount(
                rowids_int32, minlength=nrows_int32, maxlength=nrows_int32, dtype=dtype
            )
            row_splits = array_ops.concat([[0], math_ops.cumsum(counts)], axis=0)
            const_nrows = tensor_util.constant_value(nrows)
            if const_nrows is not None:
                counts.set_shape([int(const_nrows)])
                row_splits.set_shape([int(const_nrows) + 1])
            return cls(
                values,
                row_splits,
                cached_row_lengths=counts,
                cached_value_rowids=value_rowids,
                cached_nrows=nrows,
                internal=True,
            )

    @classmethod
    def from_row_splits(
        cls, values: Any, row_splits: Any, name: str | None = None, validate: bool = True
    ) -> RaggedTensor:
        """Row i is values[row_splits[i]:row_splits[i + 1]]."""
        if isinstance(row_splits, (list, tuple)) and not row_splits:
            raise ValueError("row_splits tensor may not be empty.")
        with name_scope(name, "RaggedFromRowSplits", [values, row_splits]):
            values = _convert_values(values)
            row_splits = _convert_splits(row_splits, "row_splits", _splits_dtype_of(values))
            row_splits.shape.assert_has_rank(1)
            if validate:
                dtype = row_splits.dtype.base_dtype
                msg = "Arguments to from_row_splits do not form a valid RaggedTensor"
                nvals = _nrows_of(values, dtype)
                checks = [
                    ragged_checks.assert_equal(
                        row_splits[:1], array_ops.zeros([1], dtype), message=msg
                    ),
                    ragged_checks.assert_non_negative(
                        row_splits[1:] - row_splits[:-1], message=msg
                    ),
                    ragged_checks.assert_equal(
                        row_splits[-1:], array_ops.reshape(nvals, [1]), message=msg
                    ),
                ]
                row_splits = control_flow_ops.with_dependencies(checks, row_splits)
            return cls(values, row_splits, internal=True)

    @classmethod
    def from_row_lengths(
        cls, values: Any, row_lengths: Any, name: str | None = None, validate: bool = True
    ) -> RaggedTensor:
        """Row i holds the next row_lengths[i] values."""
        with name_scope(name, "RaggedFromRowLengths", [values, row_lengths]):
            values = _convert_values(values)
            row_lengths = _convert_splits(row_lengths, "row_lengths", _splits_dtype_of(values))
            row_lengths.shape.assert_has_rank(1)
            dtype = row_lengths.dtype.base_dtype
            if validate:
                msg = "Arguments to from_row_lengths do not form a valid RaggedTensor"
                checks = [
                    ragged_checks.assert_non_negative(row_lengths, message=msg),
                    ragged_checks.assert_equal(
                        math_ops.reduce_sum(row_lengths), _nrows_of(values, dtype), message=msg
                    ),
                ]
                row_lengths = control_flow_ops.with_dependencies(checks, row_lengths)
            row_limits = math_ops.cumsum(row_lengths)
            row_splits = array_ops.concat([array_ops.zeros([1], dtype), row_limits], axis=0)
            return cls(values, row_splits, cached_row_lengths=row_lengths, internal=True)

    @classmethod
    def from_row_starts(
        cls, values: Any, row_starts: Any, name: str | None = None, validate: bool = True
    ) -> RaggedTensor:
        """Row i is values[row_starts[i]:row_starts[i + 1]] (the last runs to the end)."""
        with name_scope(name, "RaggedFromRowStarts", [values, row_starts]):
            values = _convert_values(values)
            row_starts = _convert_splits(row_starts, "row_starts", _splits_dtype_of(values))
            row_starts.shape.assert_has_rank(1)
            dtype = row_starts.dtype.base_dtype
            nvals = _nrows_of(values, dtype)
            if validate:
                msg = "Arguments to from_row_starts do not form a valid RaggedTensor"
                checks = [
                    ragged_checks.assert_equal(
                        row_starts[:1], array_ops.zeros([1], dtype), message=msg
                    ),
                    ragged_checks.assert_non_negative(
                        row_starts[1:] - row_starts[:-1], message=msg
                    ),
                    ragged_checks.assert_less_equal(
                        row_starts[-1:], array_ops.reshape(nvals, [1]), message=msg
                    ),
                ]
                row_starts = control_flow_ops.with_dependencies(checks, row_starts)
            row_splits = array_ops.concat([row_starts, array_ops.reshape(nvals, [1])], axis=0)
            return cls(values, row_splits, internal=True)

    @classmethod
    def from_row_limits(
        cls, values: Any, row_limits: Any, name: str | None = None, validate: bool = True
    ) -> RaggedTensor:
        """Row i is values[row_limits[i - 1]:row_limits[i]] (the first starts at 0)."""
        with name_scope(name, "RaggedFromRowLimits", [values, row_limits]):
            values = _convert_values(values)
            row_limits = _convert_splits(row_limits, "row_limits", _splits_dtype_of(values))
            row_limits.shape.assert_has_rank(1)
            dtype = row_limits.dtype.base_dtype
            if validate:
                msg = "Arguments to from_row_limits do not form a valid RaggedTensor"
                nvals = _nrows_of(values, dtype)
                checks = [
                    ragged_checks.assert_non_negative(row_limits[:1], message=msg),
                    ragged_checks.assert_non_negative(
                        row_limits[1:] - row_limits[:-1], message=msg
                    ),
                    ragged_checks.assert_equal(
                        row_limits[-1:], array_ops.reshape(nvals, [1]), message=msg
                    ),
                ]
                row_limits = control_flow_ops.with_dependencies(checks, row_limits)
            row_splits = array_ops.concat([array_ops.zeros([1], dtype), row_limits], axis=0)
            return cls(values, row_splits, internal=True)

    @classmethod
    def from_nested_value_rowids(
        cls,
        flat_values: Any,
        nested_value_rowids: Sequence[Any],
        nested_nrows: Sequence[Any] | None = None,
        name: str | None = None,
        validate: bool = True,
    ) -> RaggedTensor:
        if isinstance(nested_value_rowids, Tensor):
            raise TypeError("nested_value_rowids must be a list of Tensors")
        if nested_nrows is None:
            nested_nrows = [None] * len(nested_value_rowids)
        elif len(nested_nrows) != len(nested_value_rowids):
            raise ValueError("nested_nrows must have the same length as nested_value_rowids")
        with name_scope(name, "RaggedFromNestedValueRowIds", [flat_values]):
            result = flat_values
            for rowids, nrows in reversed(list(zip(nested_value_rowids, nested_nrows))):
                result = cls.from_value_rowids(result, rowids, nrows, validate=validate)
            return result  # type: ignore[no-any-return]

    @classmethod
    def from_nested_row_splits(
        cls,
        flat_values: Any,
        nested_row_splits: Sequence[Any],
        name: str | None = None,
        validate: bool = True,
    ) -> RaggedTensor:
        if isinstance(nested_row_splits, Tensor):
            raise TypeError("nested_row_splits must be a list of Tensors")
        with name_scope(name, "RaggedFromNestedRowSplits", [flat_values, *nested_row_splits]):
            result = flat_values
            for splits in reversed(list(nested_row_splits)):
                result = cls.from_row_splits(result, splits, validate=validate)
            return result  # type: ignore[no-any-return]

    @classmethod
    def from_nested_row_lengths(
        cls,
        flat_values: Any,
        nested_row_lengths: Sequence[Any],
        name: str | None = None,
        validate: bool = True,
    ) -> RaggedTensor:
        if isinstance(nested_row_lengths, Tensor):
            raise TypeError("nested_row_lengths must be a list of Tensors")
        with name_scope(name, "RaggedFromNestedRowlengths", [flat_values]):
            result = flat_values
            for lengths in reversed(list(nested_row_lengths)):
                result = cls.from_row_lengths(result, lengths, validate=validate)
            return result  # type: ignore[no-any-return]

    # ---- accessors -------------------------------------------------------------------------

    @property
    def dtype(self) -> dtypes.DType:
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        nrows = self._row_splits.shape[0].value
        if nrows is not None:
            nrows -= 1
        return TensorShape([nrows, None]).concatenate(self._values.shape[1:])

    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def ragged_rank(self) -> int:
        values_is_ragged = isinstance(self._values, RaggedTensor)
        return self._values.ragged_rank + 1 if values_is_ragged else 1  # type: ignore[union-attr]

    @property
    def values(self) -> Any:
        return self._values

    @property
    def row_splits(self) -> Tensor:
        return self._row_splits

    @property
    def flat_values(self) -> Tensor:
        rt_values = self.values
        while isinstance(rt_values, RaggedTensor):
            rt_values = rt_values.values
        return rt_values  # type: ignore[no-any-return]

    @property
    def nested_row_splits(self) -> tuple[Tensor, ...]:
        rt_nested_splits = [self.row_splits]
        rt_values = self.values
        while isinstance(rt_values, RaggedTensor):
            rt_nested_splits.append(rt_values.row_splits)
            rt_values = rt_values.values
        return tuple(rt_nested_splits)

    @property
    def graph(self) -> Graph:
        return self._row_splits.graph

    def value_rowids(self, name: str | None = None) -> Tensor:
        """The row index of each value."""
        if self._cached_value_rowids is not None:
            return self._cached_value_rowids  # type: ignore[no-any-return]
        with name_scope(name, "RaggedValueRowIds", [self]):
            return row_splits_to_segment_ids(self.row_splits)

    def nested_value_rowids(self, name: str | None = None) -> tuple[Tensor, ...]:
        with name_scope(name, "RaggedNestedValueRowIds", [self]):
            rt_nested_ids = [self.value_rowids()]
            rt_values = self.values
            while isinstance(rt_values, RaggedTensor):
                rt_nested_ids.append(rt_values.value_rowids())
                rt_values = rt_values.values
            return tuple(rt_nested_ids)

    def nrows(self, out_type: Any = None, name: str | None = None) -> Tensor:
        """The number of rows."""
        out_type = self._row_splits.dtype if out_type is None else dtypes.as_dtype(out_type)
        if self._cached_nrows is not None:
            return math_ops.cast(self._cached_nrows, out_type)
        with name_scope(name, "RaggedNRows", [self]):
            return array_ops.shape(self.row_splits, out_type=out_type)[0] - 1  # type: ignore[no-any-return]

    def row_starts(self, name: str | None = None) -> Tensor:
        with name_scope(name, "RaggedRowStarts", [self]):
            return self.row_splits[:-1]

    def row_limits(self, name: str | None = None) -> Tensor:
        with name_scope(name, "RaggedRowLimits", [self]):
            return self.row_splits[1:]

    def row_lengths(self, axis: int = 1, name: str | None = None) -> Any:
        """The length of each row (axis=1), or of each row of a deeper ragged dimension."""
        if self._cached_row_lengths is not None and axis == 1:
            return self._cached_row_lengths
        with name_scope(name, "RaggedRowLengths", [self]):
            axis = _get_positive_axis(axis, self.shape.ndims)
            if axis == 0:
                return self.nrows()
            if axis == 1:
                splits = self.row_splits
                return splits[1:] - splits[:-1]
            if isinstance(self.values, RaggedTensor):
                return self.with_values(self.values.row_lengths(axis - 1))
            shape = array_ops.shape(self.values, out_type=self._row_splits.dtype)
            return self.with_values(
                array_ops.ones(shape[: axis - 1], self._row_splits.dtype) * shape[axis - 1]
            )

    def nested_row_lengths(self, name: str | None = None) -> tuple[Tensor, ...]:
        with name_scope(name, "RaggedNestedRowLengths", [self]):
            rt_nested_row_lengths = []
            rt = self
            while isinstance(rt, RaggedTensor):
                rt_nested_row_lengths.append(rt.row_lengths())
                rt = rt.values
            return tuple(rt_nested_row_lengths)

    def bounding_shape(
        self, axis: Any = None, name: str | None = None, out_type: Any = None
    ) -> Tensor:
        """The smallest dense shape holding every row: [nrows, longest row, ...]."""
        out_type = self._row_splits.dtype if out_type is None else dtypes.as_dtype(out_type)
        with name_scope(name, "RaggedBoundingBox", [self, axis]):
            nested_splits = self.nested_row_splits
            # The outer two dimensions directly, as TF does.
            if isinstance(axis, int) and axis == 0:
                return array_ops.shape(nested_splits[0], out_type=out_type)[0] - 1  # type: ignore[no-any-return]
            if isinstance(axis, int) and axis == 1:
                longest = math_ops.reduce_max(math_ops.cast(self.row_lengths(), out_type))
                return math_ops.maximum(longest, math_ops.cast(0, out_type))
            splits_shape = array_ops.shape(self.row_splits, out_type=out_type)
            flat_values_shape = array_ops.shape(self.flat_values, out_type=out_type)
            ragged_dimensions = [splits_shape[0] - 1]
            for splits in nested_splits:
                lengths = math_ops.cast(splits[1:] - splits[:-1], out_type)
                ragged_dimensions.append(
                    math_ops.maximum(math_ops.reduce_max(lengths), math_ops.cast(0, out_type))
                )
            bbox = array_ops.concat(
                [array_ops.stack(ragged_dimensions), flat_values_shape[1:]], axis=0
            )
            return bbox if axis is None else array_ops.gather(bbox, axis)

    # ---- transforms ------------------------------------------------------------------------

    def with_values(self, new_values: Any) -> RaggedTensor:
        new_values = _convert_values(new_values)
        new_values.shape.with_rank_at_least(1)
        self.values.shape[:1].assert_is_compatible_with(new_values.shape[:1])
        if isinstance(new_values, RaggedTensor) and (
            self._row_splits.dtype.base_dtype != new_values.row_splits.dtype.base_dtype
        ):
            new_values = new_values.with_row_splits_dtype(self._row_splits.dtype)
        return RaggedTensor(
            new_values,
            self._row_splits,
            self._cached_row_lengths,
            self._cached_value_rowids,
            self._cached_nrows,
            internal=True,
        )

    def with_flat_values(self, new_values: Any) -> RaggedTensor:
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self.values.with_flat_values(new_values))
        return self.with_values(_convert_values(new_values))

    def with_row_splits_dtype(self, dtype: Any) -> RaggedTensor:
        dtype = dtypes.as_dtype(dtype)
        if dtype not in _SPLITS_DTYPES:
            raise ValueError(f"dtype must be int32 or int64, got {dtype!r}")
        if self._row_splits.dtype.base_dtype == dtype:
            return self
        values = self._values
        if isinstance(values, RaggedTensor):
            values = values.with_row_splits_dtype(dtype)
        row_splits = math_ops.cast(self._row_splits, dtype)

        def cast_or_none(t: Any) -> Any:
            return None if t is None else math_ops.cast(t, dtype)

        return RaggedTensor(
            values,
            row_splits,
            cast_or_none(self._cached_row_lengths),
            cast_or_none(self._cached_value_rowids),
            cast_or_none(self._cached_nrows),
            internal=True,
        )

    # ---- conversions -----------------------------------------------------------------------

    @classmethod
    def from_tensor(
        cls,
        tensor: Any,
        lengths: Any = None,
        padding: Any = None,
        ragged_rank: int = 1,
        name: str | None = None,
        row_splits_dtype: Any = dtypes.int64,
    ) -> RaggedTensor:
        """A dense tensor as a RaggedTensor: its first ragged_rank + 1 dimensions become rows
        (trimmed to `lengths`, or where trailing `padding` starts)."""
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if lengths is not None and padding is not None:
            raise ValueError("Specify lengths or padding, but not both")
        if not isinstance(ragged_rank, int):
            raise TypeError(f"ragged_rank expected int, got {ragged_rank!r}")
        if ragged_rank <= 0:
            raise ValueError(f"ragged_rank must be greater than 0; got {ragged_rank}")
        with name_scope(name, "RaggedFromTensor", [tensor, lengths, padding]):
            tensor = convert_to_tensor(tensor, name="tensor")
            tensor.shape.with_rank_at_least(ragged_rank + 1)
            input_shape = array_ops.shape(tensor, out_type=row_splits_dtype)
            ncols = input_shape[1]
            if ragged_rank > 1:
                # Fold the outer dimension into the next, convert, then split it off again.
                flat_shape = array_ops.concat([[-1], input_shape[2:]], axis=0)
                flattened = array_ops.reshape(tensor, flat_shape)
                inner_lengths = lengths
                if lengths is not None:
                    raise ValueError(
                        "tfcluster supports `lengths` only with ragged_rank=1 "
                        "(nested lengths are not implemented)"
                    )
                if padding is not None:
                    raise ValueError("tfcluster supports `padding` only with ragged_rank=1")
                inner = cls.from_tensor(
                    flattened,
                    inner_lengths,
                    None,
                    ragged_rank - 1,
                    row_splits_dtype=row_splits_dtype,
                )
                nrows = input_shape[0]
                splits = math_ops.range_cast_to(nrows + 1, dtype=row_splits_dtype) * ncols
                return cls.from_row_splits(inner, splits, validate=False)
            nrows = input_shape[0]
            static = tensor.shape.as_list()
            static_nrows, static_ncols = static[0], static[1]
            if padding is not None:
                # A row's length runs to its last element that is not all padding.
                padding = convert_to_tensor(padding, name="padding", dtype=tensor.dtype)
                has_default = math_ops.equal(padding, tensor)
                inner_axes = list(range(2, tensor.shape.ndims or 2))
                if inner_axes:
                    has_default = math_ops.reduce_all(has_default, axis=inner_axes)
                # Each non-padding item needs its row to reach it; a row's length is the max.
                has_nondefault = math_ops.cast(math_ops.logical_not(has_default), row_splits_dtype)
                length_for_nondefault_value = has_nondefault * array_ops.expand_dims(
                    math_ops.range(1, ncols + 1), 0
                )
                lengths = math_ops.reduce_max(length_for_nondefault_value, axis=1)
            if lengths is not None:
                # The first lengths[i] items of row i: a mask over the dense [rows, cols].
                lengths = _convert_splits(lengths, "lengths", row_splits_dtype)
                lengths.shape.assert_has_rank(1)
                lengths = math_ops.minimum(lengths, ncols)
                lengths = math_ops.maximum(lengths, 0)
                limits = math_ops.cumsum(lengths)
                splits = array_ops.concat([array_ops.zeros([1], row_splits_dtype), limits], axis=0)
                mask = array_ops.sequence_mask(lengths, maxlen=ncols)
                values = array_ops.boolean_mask(tensor, mask)
                return cls.from_row_splits(values, splits, validate=False)
            nvals = nrows * ncols
            values_shape = array_ops.concat([array_ops.stack([nvals]), input_shape[2:]], axis=0)
            values = array_ops.reshape(tensor, values_shape)
            known = static_nrows is not None and static_ncols is not None
            values.set_shape(
                TensorShape([static_nrows * static_ncols if known else None, *static[2:]])
            )
            splits = math_ops.range_cast_to(nrows + 1, dtype=row_splits_dtype) * ncols
            splits.set_shape([None if static_nrows is None else static_nrows + 1])
            return cls.from_row_splits(values, splits, validate=False)

    def to_list(self) -> list[Any]:
        # Graph mode only here: TF 1.15 answers this outside eager execution.
        raise ValueError(
            "RaggedTensor.to_list() is only supported in eager mode; in graph mode, evaluate "
            "the RaggedTensor first and then use RaggedTensorValue.to_list()."
        )

    def to_tensor(self, default_value: Any = None, name: str | None = None) -> Tensor:
        """A dense tensor: each row padded with default_value to the longest row's length."""
        with name_scope(name, "RaggedToTensor", [self, default_value]):
            if default_value is not None:
                default_value = convert_to_tensor(
                    default_value, name="default_value", dtype=self.dtype
                )
            values = self.values
            if isinstance(values, RaggedTensor):
                values = values.to_tensor(default_value)
            dtype = self._row_splits.dtype.base_dtype
            splits = self._row_splits
            lengths = splits[1:] - splits[:-1]
            ncols = math_ops.reduce_max(array_ops.concat([[0], lengths], axis=0))
            inner_shape = array_ops.shape(values, out_type=dtype)[1:]
            nvals = array_ops.shape(values, out_type=dtype)[0]
            if default_value is None:
                default = array_ops.zeros(inner_shape, values.dtype)
            else:
                default = broadcast_ops.broadcast_to(default_value, inner_shape)
            # Gather rows of values (and the default, placed after them) into the dense grid.
            padded = array_ops.concat([values, array_ops.expand_dims(default, 0)], axis=0)
            cols = math_ops.range_cast_to(ncols, dtype=dtype)
            in_row = math_ops.less(
                array_ops.expand_dims(cols, 0), array_ops.expand_dims(lengths, 1)
            )
            index = array_ops.expand_dims(splits[:-1], 1) + array_ops.expand_dims(cols, 0)
            index = array_ops.where(in_row, index, array_ops.zeros_like(index) + nvals)
            result = array_ops.gather(padded, index)
            # The longest row where the splits are known now (TF's shape inference evaluates
            # small constant subgraphs the same way).
            known_splits = tensor_util.constant_value(splits)
            static_ncols = None
            if known_splits is not None and known_splits.ndim == 1 and known_splits.size:
                static_ncols = int(np.max(np.diff(known_splits), initial=0))
            result.set_shape(
                TensorShape([self.shape[0], static_ncols]).concatenate(values.shape[1:])
            )
            return result

    @classmethod
    def from_sparse(
        cls, st_input: Any, name: str | None = None, row_splits_dtype: Any = dtypes.int64
    ) -> RaggedTensor:
        """A 2-D SparseTensor (indices in row-major order) as a RaggedTensor: each row keeps
        the values up to its last index."""
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if not isinstance(st_input, SparseTensor):
            raise TypeError(f"st_input must be a SparseTensor, got {st_input!r}")
        with name_scope(name, "RaggedFromSparse", [st_input]):
            st_input.indices.shape.assert_is_compatible_with([None, 2])
            static_rank = st_input.indices.shape[1].value
            if static_rank is not None and static_rank != 2:
                raise ValueError("rank(st_input) must be 2")
            segment_ids = math_ops.cast(st_input.indices[:, 0], row_splits_dtype)
            num_segments = math_ops.cast(st_input.dense_shape[0], row_splits_dtype)
            return cls.from_value_rowids(st_input.values, segment_ids, num_segments, validate=False)

    def to_sparse(self, name: str | None = None) -> SparseTensor:
        with name_scope(name, "RaggedToSparse", [self]):
            op = ragged_ops.ragged_to_sparse_op(
                self.nested_row_splits, self.flat_values, name="RaggedTensorToSparse"
            )
            return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])

    def consumers(self) -> list[Operation]:
        seen: list[Operation] = []
        for t in (*self.nested_row_splits, self.flat_values):
            for op in t.consumers():
                if op not in seen:
                    seen.append(op)
        return seen

    def eval(self, feed_dict: Any = None, session: Any = None) -> RaggedTensorValue:
        result: RaggedTensorValue = Tensor.eval(self, feed_dict, session)  # type: ignore[arg-type]
        return result

    def __getitem__(self, key: Any) -> Any:
        from tfcluster.ops import ragged_getitem

        return ragged_getitem.ragged_tensor_getitem(self, key)

    def __str__(self) -> str:
        return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"

    __repr__ = __str__

    def __bool__(self) -> bool:
        raise TypeError("RaggedTensor may not be used as a boolean.")

    __nonzero__ = __bool__

    def __iter__(self) -> Any:
        raise TypeError("RaggedTensor object is not iterable in graph mode.")


def _get_positive_axis(axis: int, ndims: int | None) -> int:
    if not isinstance(axis, int):
        raise TypeError(f"axis must be an int; got {type(axis).__name__}")
    if ndims is not None:
        if 0 <= axis < ndims:
            return axis
        if -ndims <= axis < 0:
            return axis + ndims
        raise ValueError(f"axis={axis} out of bounds: expected {-ndims}<=axis<{ndims}")
    if axis < 0:
        raise ValueError("axis may only be negative if ndims is statically known.")
    return axis


def is_ragged(value: Any) -> bool:
    return isinstance(value, (RaggedTensor, RaggedTensorValue))


def convert_to_tensor_or_ragged_tensor(
    value: Any, dtype: Any = None, preferred_dtype: Any = None, name: str | None = None
) -> Any:
    if isinstance(value, RaggedTensor):
        if dtype and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError(
                f"Tensor conversion requested dtype {dtype} for RaggedTensor "
                f"with dtype {value.dtype}: {value!r}"
            )
        return value
    if isinstance(value, RaggedTensorValue):
        with name_scope(name, "ConvertToTensorOrRaggedTensor", []):
            flat_values = convert_to_tensor(value.flat_values, dtype=dtype, name="flat_values")
            return RaggedTensor.from_nested_row_splits(
                flat_values, value.nested_row_splits, validate=False
            )
    if dtype is None and preferred_dtype is not None:
        try:
            return convert_to_tensor(value, dtype=preferred_dtype, name=name)
        except (TypeError, ValueError):
            pass
    return convert_to_tensor(value, dtype=dtype, name=name)


def row_splits_to_segment_ids(splits: Any, name: str | None = None, out_type: Any = None) -> Tensor:
    """The row index of each value: [0, 3, 3, 5] -> [0, 0, 0, 2, 2]."""
    if out_type is not None:
        out_type = dtypes.as_dtype(out_type)
        if out_type not in _SPLITS_DTYPES:
            raise ValueError("out_type must be int32 or int64")
    with name_scope(name, "RaggedSplitsToSegmentIds", [splits]):
        splits = _convert_splits(splits, "splits")
        if out_type is None:
            out_type = splits.dtype.base_dtype
        else:
            splits = math_ops.cast(splits, out_type)
        splits.shape.assert_has_rank(1)
        row_lengths = splits[1:] - splits[:-1]
        nrows = array_ops.shape(splits, out_type=out_type)[-1] - 1
        indices = math_ops.range(nrows)
        return _repeat_ranges(indices, row_lengths)


def _repeat_ranges(indices: Tensor, counts: Tensor) -> Tensor:
    """indices[i] repeated counts[i] times (TF's ragged_util.repeat along axis 0)."""
    with name_scope(None, "Repeat", [indices, counts]):
        counts = math_ops.cast(counts, dtypes.int32)
        longest = math_ops.maximum(0, math_ops.reduce_max(counts))
        mask = array_ops.sequence_mask(counts, longest)
        tiled = array_ops.tile(array_ops.expand_dims(indices, 1), array_ops.stack([1, longest]))
        return array_ops.boolean_mask(tiled, mask)


def segment_ids_to_row_splits(
    segment_ids: Any, num_segments: Any = None, out_type: Any = None, name: str | None = None
) -> Tensor:
    """The row splits of sorted segment ids: [0, 0, 0, 2, 2] -> [0, 3, 3, 5]."""
    if out_type is None:
        out_type = (
            segment_ids.dtype.base_dtype
            if isinstance(segment_ids, Tensor) and segment_ids.dtype in _SPLITS_DTYPES
            else dtypes.int64
        )
    out_type = dtypes.as_dtype(out_type)
    with name_scope(name, "SegmentIdsToRaggedSplits", [segment_ids]):
        segment_ids = _convert_splits(segment_ids, "segment_ids", out_type)
        segment_ids.shape.assert_has_rank(1)
        if num_segments is not None:
            num_segments = _convert_splits(num_segments, "num_segments", out_type)
            num_segments.shape.assert_has_rank(0)
        if num_segments is not None:
            num_segments = math_ops.cast(num_segments, dtypes.int32)
        counts = counting_ops.bincount(
            math_ops.cast(segment_ids, dtypes.int32),
            minlength=num_segments,
            maxlength=num_segments,
            dtype=out_type,
        )
        return array_ops.concat([array_ops.zeros([1], out_type), math_ops.cumsum(counts)], axis=0)


class RaggedTensorSpec(TypeSpec):
    """Type specification for a tf.RaggedTensor."""

    __slots__ = ("_dtype", "_ragged_rank", "_row_splits_dtype", "_shape")

    def __init__(
        self,
        shape: Any = None,
        dtype: Any = dtypes.float32,
        ragged_rank: int | None = None,
        row_splits_dtype: Any = dtypes.int64,
    ) -> None:
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        rank = self._shape.ndims
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        self._ragged_rank = ragged_rank
        if not isinstance(self._ragged_rank, int):
            raise TypeError("ragged_rank must be an int")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"ragged_rank must be less than rank, got {ragged_rank} >= {rank}")

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def ragged_rank(self) -> int:
        return self._ragged_rank

    @property
    def row_splits_dtype(self) -> dtypes.DType:
        return self._row_splits_dtype

    @property
    def value_type(self) -> type:
        return RaggedTensor if self._ragged_rank > 0 else Tensor

    def _serialize(self) -> tuple[Any, ...]:
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        if isinstance(spec_or_value, (RaggedTensor, RaggedTensorValue)):
            spec_or_value = RaggedTensorSpec.from_value(spec_or_value)
        if not isinstance(spec_or_value, RaggedTensorSpec):
            return False
        return (
            self._dtype.is_compatible_with(spec_or_value.dtype)
            and self._shape.is_compatible_with(spec_or_value.shape)
            and self._ragged_rank == spec_or_value.ragged_rank
            and self._row_splits_dtype == spec_or_value.row_splits_dtype
        )

    def most_specific_compatible_type(self, other: Any) -> RaggedTensorSpec:
        if type(other) is not type(self) or (
            self._dtype,
            self._ragged_rank,
            self._row_splits_dtype,
        ) != (other.dtype, other.ragged_rank, other.row_splits_dtype):
            raise ValueError(f"Types are not compatible: {self!r} vs {other!r}")
        a, b = self._shape, other.shape
        if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
            shape = TensorShape(None)
        else:
            shape = TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    @classmethod
    def from_value(cls, value: Any) -> RaggedTensorSpec:
        if isinstance(value, RaggedTensorValue):
            rank = len(value.nested_row_splits)
            full = [value.nested_row_splits[0].shape[0] - 1] + [None] * rank
            shape = TensorShape(full + list(value.flat_values.shape[1:]))
            return cls(
                shape, dtypes.as_dtype(value.dtype), rank, dtypes.as_dtype(value.row_splits.dtype)
            )
        if not isinstance(value, RaggedTensor):
            raise TypeError(f"Expected RaggedTensor or RaggedTensorValue, got {value!r}")
        shape = TensorShape([value.shape[0]] + [None] * value.ragged_rank).concatenate(
            value.flat_values.shape[1:]
        )
        return cls(shape, value.dtype, value.ragged_rank, value.row_splits.dtype)


dispatch.register_type(RaggedTensor)

__all__ = ["RaggedTensor", "RaggedTensorSpec"]
