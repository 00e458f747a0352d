"""tf.edit_distance: the Levenshtein distance between the sequences of two SparseTensors, one
per position of their leading dimensions (the last dimension holds the sequence)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op
from tfcluster.ops.sparse_ops import _convert


def _edit_distance_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    hyp_shape, truth_shape = inputs[2], inputs[5]
    hyp, truth = tensor_util.constant_value(hyp_shape), tensor_util.constant_value(truth_shape)
    if hyp is not None and truth is not None:
        if hyp.shape != truth.shape:
            raise ValueError(
                f"hypothesis_shape and truth_shape must have the same rank, got {hyp.shape[0]} "
                f"and {truth.shape[0]}"
            )
        return [(dtypes.float32, TensorShape(np.maximum(hyp, truth)[:-1].tolist()))]
    for s in (hyp_shape, truth_shape):
        n = s.shape.as_list()[0] if s.shape.ndims == 1 else None
        if n is not None:
            return [(dtypes.float32, TensorShape([None] * (n - 1)))]
    return [(dtypes.float32, TensorShape(None))]


op_def_registry.register("EditDistance", _edit_distance_infer)


def edit_distance(
    hypothesis: Any, truth: Any, normalize: bool = True, name: str = "edit_distance"
) -> Tensor:
    """float32 distances of shape max(hypothesis shape, truth shape)[:-1]; with `normalize`,
    each divided by the length of its truth sequence."""
    if not isinstance(hypothesis, (SparseTensor, SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (SparseTensor, SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    hyp, tru = _convert(hypothesis), _convert(truth)
    with name_scope(name, "EditDistance") as scope:
        if hyp.values.dtype.base_dtype != tru.values.dtype.base_dtype:
            raise TypeError(
                f"Input 'truth_values' of 'EditDistance' Op has type "
                f"{tru.values.dtype.base_dtype.name} that does not match type "
                f"{hyp.values.dtype.base_dtype.name} of argument 'hypothesis_values'."
            )
        inputs = [
            hyp.indices,
            hyp.values,
            hyp.dense_shape,
            tru.indices,
            tru.values,
            tru.dense_shape,
        ]
        attrs = {"normalize": bool(normalize), "T": hyp.values.dtype.base_dtype}
        return make_op("EditDistance", inputs, attrs, name=scope).outputs[0]


__all__ = ["edit_distance"]
