"""The gradient of a v1 loop's invariant that its body gathers from (an embedding looked up in
every iteration), kept as IndexedSlices the way TF1's AddBackpropIndexedSlicesAccumulator
keeps it: the gradient loop starts from one entry (index 0, a row of zeros), concatenates
each iteration's indices and values after it, and keeps the largest dense shape. Optimizers
then apply it sparsely, as in TF: Momentum moves only the rows the loop looked up, where a
dense sum would move every row that has momentum."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from tfcluster.framework import dtypes
from tfcluster.framework.func_graph import FuncGraph
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops

# TF1's ops besides the start values: an Enter, a Merge, a Switch, a NextIteration and an
# Exit per accumulator, the two concats (each with its axis) and the shapes' Maximum.
_LOOP_OPS_PER_ACCUMULATOR = 5
_LOOP_OPS_OF_UPDATES = 2 * 2 + 1


@dataclasses.dataclass(frozen=True)
class SlicesAccumulator:
    """The gradient loop's variables for one capture's IndexedSlices: indices, values and,
    where the gradient has one, its dense shape."""

    indices_dtype: dtypes.DType
    values_dtype: dtypes.DType
    row_shape: TensorShape
    shape_dtype: dtypes.DType | None
    shape_shape: TensorShape | None

    @classmethod
    def of(cls, g: IndexedSlices) -> SlicesAccumulator:
        dense_shape = g.dense_shape
        return cls(
            g.indices.dtype.base_dtype,
            g.values.dtype.base_dtype,
            g.values.shape[1:],
            None if dense_shape is None else dense_shape.dtype.base_dtype,
            None if dense_shape is None else dense_shape.shape,
        )

    @property
    def width(self) -> int:
        """How many loop variables it takes."""
        return 2 if self.shape_dtype is None else 3

    def invariants(self) -> list[TensorShape]:
        out = [TensorShape([None]), TensorShape([None]).concatenate(self.row_shape)]
        if self.shape_shape is not None:
            out.append(self.shape_shape)
        return out

    def add_args(self, body: FuncGraph, name: str) -> list[Tensor]:
        dtypes_ = [self.indices_dtype, self.values_dtype]
        if self.shape_dtype is not None:
            dtypes_.append(self.shape_dtype)
        return [
            body.add_arg(dtype, shape, f"{name}_{part}")
            for dtype, shape, part in zip(
                dtypes_, self.invariants(), ("indices", "values", "dense_shape")
            )
        ]

    def updated(self, args: list[Tensor], g: IndexedSlices) -> list[Tensor]:
        """One gradient iteration: this iteration's entries after the ones kept so far."""
        out = [array_ops.concat([args[0], g.indices], 0), array_ops.concat([args[1], g.values], 0)]
        if g.dense_shape is not None:
            out.append(math_ops.maximum(g.dense_shape, args[2]))
        return out

    def initial(self, capture_value: Callable[[], Tensor]) -> list[Tensor]:
        """The start, in the outer graph: index 0 with a row of zeros (shaped like the
        capture's rows where the gradient's shape leaves them open), zeros for the shape."""
        indices = convert_to_tensor([0], dtype=self.indices_dtype)
        if self.row_shape.is_fully_defined():
            values = array_ops.zeros([1, *self.row_shape.as_list()], dtype=self.values_dtype)
        else:
            values = array_ops.zeros_like(capture_value()[:1])
        out = [indices, values]
        if self.shape_dtype is not None and self.shape_shape is not None:
            out.append(array_ops.zeros(self.shape_shape.as_list(), dtype=self.shape_dtype))
        return out

    def result(self, outputs: list[Tensor]) -> IndexedSlices:
        values = outputs[1]
        values.set_shape(TensorShape([None]).concatenate(self.row_shape))
        return IndexedSlices(values, outputs[0], outputs[2] if self.width == 3 else None)

    def tf1_ops(self) -> int:
        """The ops TF1's accumulator makes: its start values (one Const each where their
        shapes are known; otherwise the rows' zeros from the capture's Shape, a slice of it,
        a concat and a Fill) and the loop's."""
        start = 1 + (1 if self.row_shape.is_fully_defined() else 10)
        if self.shape_shape is not None:
            start += 1 if self.shape_shape.is_fully_defined() else 3
        loop = _LOOP_OPS_PER_ACCUMULATOR * self.width + _LOOP_OPS_OF_UPDATES
        if self.width == 2:
            loop -= 1  # no Maximum
        return start + loop
