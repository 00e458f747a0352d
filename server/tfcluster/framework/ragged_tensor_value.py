"""tf.ragged.RaggedTensorValue: what a session returns for a fetched RaggedTensor (numpy
values and row_splits, nested for ragged_rank > 1), as TF 1.15's is."""

from __future__ import annotations

from typing import Any

import numpy as np


class RaggedTensorValue:
    """Represents the value of a `RaggedTensor`."""

    def __init__(self, values: Any, row_splits: Any) -> None:
        if not (
            isinstance(row_splits, (np.ndarray, np.generic))
            and row_splits.dtype
            in (
                np.int64,
                np.int32,
            )
            and row_splits.ndim == 1
        ):
            raise TypeError("row_splits must be a 1D int32 or int64 numpy array")
        if not isinstance(values, (np.ndarray, np.generic, RaggedTensorValue)):
            raise TypeError("values must be a numpy array or a RaggedTensorValue")
        if isinstance(values, RaggedTensorValue) and row_splits.dtype != values.row_splits.dtype:
            raise ValueError("row_splits and values.row_splits must have the same dtype")
        self._values: Any = values
        self._row_splits: Any = row_splits

    row_splits = property(lambda self: self._row_splits, doc="The split indices.")
    values = property(lambda self: self._values, doc="The concatenated values of all rows.")

    @property
    def dtype(self) -> np.dtype:
        return self._values.dtype

    @property
    def flat_values(self) -> Any:
        rt_values: Any = self._values
        while isinstance(rt_values, RaggedTensorValue):
            rt_values = rt_values.values
        return rt_values

    @property
    def nested_row_splits(self) -> tuple[np.ndarray, ...]:
        rt_nested_splits = [self.row_splits]
        rt_values = self.values
        while isinstance(rt_values, RaggedTensorValue):
            rt_nested_splits.append(rt_values.row_splits)
            rt_values = rt_values.values
        return tuple(rt_nested_splits)

    @property
    def ragged_rank(self) -> int:
        values = self._values
        return values.ragged_rank + 1 if isinstance(values, RaggedTensorValue) else 1

    @property
    def shape(self) -> tuple[int | None, ...]:
        inner: tuple[int | None, ...] = tuple(self._values.shape[1:])
        return (self._row_splits.shape[0] - 1, None, *inner)

    def __str__(self) -> str:
        return f"<tf.RaggedTensorValue {self.to_list()}>"

    def __repr__(self) -> str:
        return f"tf.RaggedTensorValue(values={self._values!r}, row_splits={self._row_splits!r})"

    def to_list(self) -> list[Any]:
        """The value as a nested Python list."""
        if isinstance(self._values, RaggedTensorValue):
            values_as_list = self._values.to_list()
        else:
            values_as_list = self._values.tolist()
        splits = self._row_splits.tolist()
        return [values_as_list[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]


def from_nested(flat_values: Any, nested_row_splits: Any) -> Any:
    """A RaggedTensorValue from its flat values and outermost-first row splits."""
    result = flat_values
    for splits in reversed(list(nested_row_splits)):
        result = RaggedTensorValue(result, np.asarray(splits))
    return result
