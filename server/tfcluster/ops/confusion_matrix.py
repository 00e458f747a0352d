"""tf.confusion_matrix and remove_squeezable_dimensions, as TF 1.15 builds them: the matrix
is a SparseTensor of (label, prediction) pairs added into zeros, after checks that no label
or prediction is negative or (given num_classes) out of bounds."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.ops import array_ops, check_ops, control_flow_ops, math_ops, sparse_ops


def remove_squeezable_dimensions(
    labels: Any, predictions: Any, expected_rank_diff: int = 0, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """Squeezes the last dimension of labels or predictions when their ranks differ by
    `expected_rank_diff` +- 1 (statically where ranks are known, else with conds)."""
    with name_scope(name, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        predictions_shape = predictions.shape
        predictions_rank = predictions_shape.ndims
        labels_shape = labels.shape
        labels_rank = labels_shape.ndims
        if labels_rank is not None and predictions_rank is not None:
            rank_diff = predictions_rank - labels_rank
            if rank_diff == expected_rank_diff + 1:
                predictions = array_ops.squeeze(predictions, [-1])
            elif rank_diff == expected_rank_diff - 1:
                labels = array_ops.squeeze(labels, [-1])
            return labels, predictions

        rank_diff_t = array_ops.rank(predictions) - array_ops.rank(labels)
        if predictions_rank is None or predictions_shape.dims[-1].is_compatible_with(1):
            p = predictions
            predictions = control_flow_ops.cond(
                math_ops.equal(expected_rank_diff + 1, rank_diff_t),
                lambda: array_ops.squeeze(p, [-1]),
                lambda: p,
            )
        if labels_rank is None or labels_shape.dims[-1].is_compatible_with(1):
            lab = labels
            labels = control_flow_ops.cond(
                math_ops.equal(expected_rank_diff - 1, rank_diff_t),
                lambda: array_ops.squeeze(lab, [-1]),
                lambda: lab,
            )
        return labels, predictions


def confusion_matrix(
    labels: Any,
    predictions: Any,
    num_classes: Any = None,
    dtype: dtypes.DType = dtypes.int32,
    name: str | None = None,
    weights: Any = None,
) -> Tensor:
    """The [num_classes, num_classes] matrix counting (label, prediction) pairs, each
    weighted by `weights` when given; num_classes defaults to the largest id + 1."""
    with name_scope(name, "confusion_matrix", (predictions, labels, num_classes, weights)):
        labels, predictions = remove_squeezable_dimensions(
            convert_to_tensor(labels, name="labels"),
            convert_to_tensor(predictions, name="predictions"),
        )
        predictions = math_ops.cast(predictions, dtypes.int64)
        labels = math_ops.cast(labels, dtypes.int64)
        labels = control_flow_ops.with_dependencies(
            [check_ops.assert_non_negative(labels, message="`labels` contains negative values")],
            labels,
        )
        predictions = control_flow_ops.with_dependencies(
            [
                check_ops.assert_non_negative(
                    predictions, message="`predictions` contains negative values"
                )
            ],
            predictions,
        )
        if num_classes is None:
            num_classes = (
                math_ops.maximum(math_ops.reduce_max(predictions), math_ops.reduce_max(labels)) + 1
            )
        else:
            num_classes_int64 = math_ops.cast(num_classes, dtypes.int64)
            labels = control_flow_ops.with_dependencies(
                [check_ops.assert_less(labels, num_classes_int64, message="`labels` out of bound")],
                labels,
            )
            predictions = control_flow_ops.with_dependencies(
                [
                    check_ops.assert_less(
                        predictions, num_classes_int64, message="`predictions` out of bound"
                    )
                ],
                predictions,
            )
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            predictions.shape.assert_is_compatible_with(weights.shape)
            weights = math_ops.cast(weights, dtype)
        shape = array_ops.stack([num_classes, num_classes])
        indices = array_ops.stack([labels, predictions], axis=1)
        values = array_ops.ones_like(predictions, dtype) if weights is None else weights
        cm_sparse = SparseTensor(
            indices=indices, values=values, dense_shape=math_ops.cast(shape, dtypes.int64)
        )
        zero_matrix = array_ops.zeros(math_ops.cast(shape, dtypes.int32), dtype)
        return sparse_ops.sparse_add(zero_matrix, cm_sparse)


__all__ = ["confusion_matrix"]
