"""The top-k metrics of tf.metrics (precision/recall at k or at top k, average precision at
k, their sparse_* names) and mean_per_class_accuracy, built as TF 1.15 builds them: labels
(dense class ids, or a SparseTensor of them) and top-k prediction ids meet as sets
(tf.sets); counts go into float64 local variables.

tf.nn.top_k (TopKV2), tf.dynamic_stitch and tf.scatter_add come from the ops modules that
provide them (sort_ops, partition_ops, scatter_ops); where this build lacks one, the metric
that needs it raises UnimplementedError naming it.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from tfcluster.framework import dtypes, errors, internal_deprecations
from tfcluster.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfcluster.lib.metrics.metrics_impl import (
    _add_updates,
    _aggregate_across_replicas,
    metric_variable,
)
from tfcluster.ops import (
    array_ops,
    control_flow_ops,
    math_ops,
    sets_ops,
    sparse_ops,
    variable_scope,
    weights_broadcast_ops,
)

_OPS_MODULES = ("sort_ops", "partition_ops", "scatter_ops")


def has_its_ops() -> bool:
    """Whether this build has the ops these metrics build on (top_k, dynamic_stitch,
    scatter_add)."""
    return all(importlib.util.find_spec(f"tfcluster.ops.{m}") is not None for m in _OPS_MODULES)


def _ops_module(module: str, what: str, metric: str) -> ModuleType:
    try:
        return importlib.import_module(f"tfcluster.ops.{module}")
    except ImportError:
        raise errors.UnimplementedError(
            None, None, f"tf.metrics.{metric} needs {what}, which this tfcluster build lacks"
        ) from None


def _top_k_indices(predictions: Any, k: int, metric: str) -> Tensor:
    sort_ops = _ops_module("sort_ops", "tf.nn.top_k (TopKV2)", metric)
    _, indices = sort_ops.top_k(predictions, k)
    return indices  # type: ignore[no-any-return]


def _as_labels(labels: Any) -> Tensor | SparseTensor:
    if isinstance(labels, SparseTensorValue):
        return SparseTensor.from_value(labels)
    if isinstance(labels, SparseTensor):
        return labels
    return convert_to_tensor(labels)


def _at_k_name(name: str, k: int | None = None, class_id: int | None = None) -> str:
    name = f"{name}_at_{k}" if k is not None else f"{name}_at_k"
    if class_id is not None:
        name = f"{name}_class{class_id}"
    return name


def _maybe_expand_labels(labels: Any, predictions: Tensor) -> Any:
    """Labels of rank one less than predictions get a last dimension of 1."""
    with name_scope(None, "expand_labels", (labels, predictions)) as scope:
        labels = _as_labels(labels)
        if isinstance(labels, SparseTensor):
            sparse = labels
            return control_flow_ops.cond(
                math_ops.equal(array_ops.rank(predictions), array_ops.size(sparse.dense_shape) + 1),
                lambda: sparse_ops.sparse_reshape(
                    sparse, shape=array_ops.concat((sparse.dense_shape, (1,)), 0), name=scope
                ),
                lambda: sparse,
            )
        labels_rank = labels.shape.ndims
        if labels_rank is not None:
            predictions_rank = predictions.shape.ndims
            if predictions_rank is not None:
                if predictions_rank == labels_rank:
                    return labels
                if predictions_rank == labels_rank + 1:
                    return array_ops.expand_dims(labels, -1, name=scope)
                raise ValueError(
                    f"Unexpected labels shape {labels.shape} for predictions shape "
                    f"{predictions.shape}."
                )
        dense = labels
        return control_flow_ops.cond(
            math_ops.equal(array_ops.rank(predictions), array_ops.rank(dense) + 1),
            lambda: array_ops.expand_dims(dense, -1, name=scope),
            lambda: dense,
        )


def _reduced_shape(input_shape: Tensor, axes: Tensor, metric: str) -> Tensor:
    """input_shape with the dims in `axes` set to 1 (TF's math_ops.reduced_shape)."""
    partition_ops = _ops_module("partition_ops", "tf.dynamic_stitch (DynamicStitch)", metric)
    input_shape = math_ops.cast(input_shape, dtypes.int32)
    axes = math_ops.cast(axes, dtypes.int32)
    input_rank = array_ops.size(input_shape)
    axes = (axes + input_rank) % input_rank
    axes_shape = array_ops.shape(axes)
    return partition_ops.dynamic_stitch(  # type: ignore[no-any-return]
        [math_ops.range(input_rank), axes], [input_shape, array_ops.fill(axes_shape, 1)]
    )


def _select_class_id(ids: Any, selected_id: int, metric: str) -> SparseTensor:
    """The entries of `ids` equal to selected_id, as a SparseTensor of ids' shape."""
    ids = _as_labels(ids)
    if isinstance(ids, SparseTensor):
        return sparse_ops.sparse_retain(ids, math_ops.equal(ids.values, selected_id))
    ids_shape = array_ops.shape(ids, out_type=dtypes.int64)
    ids_last_dim = array_ops.size(ids_shape) - 1
    filled_selected_id_shape = _reduced_shape(
        ids_shape, array_ops.reshape(ids_last_dim, [1]), metric
    )
    filled_selected_id = array_ops.fill(
        filled_selected_id_shape, math_ops.cast(selected_id, dtypes.int64)
    )
    result = sets_ops.set_intersection(filled_selected_id, ids)
    return SparseTensor(indices=result.indices, values=result.values, dense_shape=ids_shape)


def _maybe_select_class_id(
    labels: Any, predictions_idx: Any, selected_id: int | None, metric: str
) -> tuple[Any, Any]:
    if selected_id is None:
        return labels, predictions_idx
    return (
        _select_class_id(labels, selected_id, metric),
        _select_class_id(predictions_idx, selected_id, metric),
    )


def _weighted(counts: Tensor, weights: Any) -> Tensor:
    if weights is None:
        return counts
    with control_dependencies((weights_broadcast_ops.assert_broadcastable(weights, counts),)):
        weights = math_ops.cast(weights, dtypes.float64)
        return math_ops.multiply(counts, weights)


def _sparse_true_positive_at_k(
    labels: Any,
    predictions_idx: Any,
    class_id: int | None = None,
    weights: Any = None,
    name: str | None = None,
    metric: str = "precision_at_k",
) -> Tensor:
    with name_scope(name, "true_positives", (predictions_idx, labels, weights)):
        labels, predictions_idx = _maybe_select_class_id(labels, predictions_idx, class_id, metric)
        tp = sets_ops.set_size(sets_ops.set_intersection(predictions_idx, labels))
        tp = math_ops.cast(tp, dtypes.float64)
        return _weighted(tp, weights)


def _sparse_false_negative_at_k(
    labels: Any, predictions_idx: Any, class_id: int | None, weights: Any, metric: str
) -> Tensor:
    with name_scope(None, "false_negatives", (predictions_idx, labels, weights)):
        labels, predictions_idx = _maybe_select_class_id(labels, predictions_idx, class_id, metric)
        fn = sets_ops.set_size(sets_ops.set_difference(predictions_idx, labels, aminusb=False))
        fn = math_ops.cast(fn, dtypes.float64)
        return _weighted(fn, weights)


def _sparse_false_positive_at_k(
    labels: Any, predictions_idx: Any, class_id: int | None, weights: Any, metric: str
) -> Tensor:
    with name_scope(None, "false_positives", (predictions_idx, labels, weights)):
        labels, predictions_idx = _maybe_select_class_id(labels, predictions_idx, class_id, metric)
        fp = sets_ops.set_size(sets_ops.set_difference(predictions_idx, labels, aminusb=True))
        fp = math_ops.cast(fp, dtypes.float64)
        return _weighted(fp, weights)


def _streaming_count_at_k(
    kind: str,
    labels: Any,
    predictions_idx: Any,
    k: int | None,
    class_id: int | None,
    weights: Any,
    metric: str,
) -> tuple[Any, Tensor]:
    """A float64 local variable named as its scope (e.g. true_positive_at_5) and the op that
    adds a batch's count to it."""
    counters = {
        "true_positive": lambda: _sparse_true_positive_at_k(
            predictions_idx=predictions_idx,
            labels=labels,
            class_id=class_id,
            weights=weights,
            metric=metric,
        ),
        "false_negative": lambda: _sparse_false_negative_at_k(
            labels, predictions_idx, class_id, weights, metric
        ),
        "false_positive": lambda: _sparse_false_positive_at_k(
            labels, predictions_idx, class_id, weights, metric
        ),
    }
    with name_scope(
        None, _at_k_name(kind, k, class_id=class_id), (predictions_idx, labels, weights)
    ) as scope:
        counts = counters[kind]()
        batch_total = math_ops.cast(math_ops.reduce_sum(counts), dtypes.float64)
        var = metric_variable([], dtypes.float64, name=scope)
        return var, var.assign_add(batch_total, name="update")


def recall_at_top_k(
    labels: Any,
    predictions_idx: Any,
    k: int | None = None,
    class_id: int | None = None,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """How many labels are among the given top-k prediction ids: tp / (tp + fn)."""
    with name_scope(
        name, _at_k_name("recall", k, class_id=class_id), (predictions_idx, labels, weights)
    ) as scope:
        labels = _maybe_expand_labels(labels, convert_to_tensor(predictions_idx))
        top_k_idx = math_ops.cast(predictions_idx, dtypes.int64)
        tp, tp_update = _streaming_count_at_k(
            "true_positive", labels, top_k_idx, k, class_id, weights, "recall_at_top_k"
        )
        fn, fn_update = _streaming_count_at_k(
            "false_negative", labels, top_k_idx, k, class_id, weights, "recall_at_top_k"
        )
        internal_deprecations.called_internally(internal_deprecations.DIV)
        metric = _aggregate_across_replicas(
            metrics_collections,
            lambda _, tp, fn: math_ops.div(tp, math_ops.add(tp, fn), name=scope),
            tp,
            fn,
        )
        update = math_ops.div(tp_update, math_ops.add(tp_update, fn_update), name="update")
        _add_updates(updates_collections, update)
        return metric, update


def recall_at_k(
    labels: Any,
    predictions: Any,
    k: int,
    class_id: int | None = None,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """How many labels are among the k highest predictions (of each row)."""
    with name_scope(
        name, _at_k_name("recall", k, class_id=class_id), (predictions, labels, weights)
    ) as scope:
        top_k_idx = _top_k_indices(predictions, k, "recall_at_k")
        return recall_at_top_k(
            labels=labels,
            predictions_idx=top_k_idx,
            k=k,
            class_id=class_id,
            weights=weights,
            metrics_collections=metrics_collections,
            updates_collections=updates_collections,
            name=scope,
        )


def precision_at_top_k(
    labels: Any,
    predictions_idx: Any,
    k: int | None = None,
    class_id: int | None = None,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """How many of the given top-k prediction ids are labels: tp / (tp + fp)."""
    with name_scope(
        name, _at_k_name("precision", k, class_id=class_id), (predictions_idx, labels, weights)
    ) as scope:
        labels = _maybe_expand_labels(labels, convert_to_tensor(predictions_idx))
        top_k_idx = math_ops.cast(predictions_idx, dtypes.int64)
        tp, tp_update = _streaming_count_at_k(
            "true_positive", labels, top_k_idx, k, class_id, weights, "precision_at_top_k"
        )
        fp, fp_update = _streaming_count_at_k(
            "false_positive", labels, top_k_idx, k, class_id, weights, "precision_at_top_k"
        )
        internal_deprecations.called_internally(internal_deprecations.DIV)
        metric = _aggregate_across_replicas(
            metrics_collections,
            lambda _, tp, fp: math_ops.div(tp, math_ops.add(tp, fp), name=scope),
            tp,
            fp,
        )
        update = math_ops.div(tp_update, math_ops.add(tp_update, fp_update), name="update")
        _add_updates(updates_collections, update)
        return metric, update


def precision_at_k(
    labels: Any,
    predictions: Any,
    k: int,
    class_id: int | None = None,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """How many of the k highest predictions (of each row) are labels."""
    with name_scope(
        name, _at_k_name("precision", k, class_id=class_id), (predictions, labels, weights)
    ) as scope:
        top_k_idx = _top_k_indices(predictions, k, "precision_at_k")
        return precision_at_top_k(
            labels=labels,
            predictions_idx=top_k_idx,
            k=k,
            class_id=class_id,
            weights=weights,
            metrics_collections=metrics_collections,
            updates_collections=updates_collections,
            name=scope,
        )


def sparse_precision_at_k(
    labels: Any,
    predictions: Any,
    k: int,
    class_id: int | None = None,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The deprecated name of precision_at_k."""
    return precision_at_k(
        labels=labels,
        predictions=predictions,
        k=k,
        class_id=class_id,
        weights=weights,
        metrics_collections=metrics_collections,
        updates_collections=updates_collections,
        name=name,
    )


# ---- average precision ---------------------------------------------------------------------
def _expand_and_tile(tensor: Any, multiple: int, dim: int = 0, name: str | None = None) -> Any:
    """`tensor` with a new dimension `dim` repeated `multiple` times (dense or sparse)."""
    if multiple < 1:
        raise ValueError(f"Invalid multiple {multiple}, must be > 0.")
    with name_scope(name, "expand_and_tile", (tensor, multiple, dim)) as scope:
        tensor = _as_labels(tensor)
        if isinstance(tensor, SparseTensor):
            if dim < 0:
                expand_dims: Any = array_ops.reshape(array_ops.size(tensor.dense_shape) + dim, [1])
            else:
                expand_dims = [dim]
            expanded_shape = array_ops.concat(
                (
                    array_ops.slice(tensor.dense_shape, [0], expand_dims),
                    [1],
                    array_ops.slice(tensor.dense_shape, expand_dims, [-1]),
                ),
                0,
                name="expanded_shape",
            )
            expanded = sparse_ops.sparse_reshape(tensor, shape=expanded_shape, name="expand")
            if multiple == 1:
                return expanded
            return sparse_ops.sparse_concat(
                dim - 1 if dim < 0 else dim, [expanded] * multiple, name=scope
            )
        expanded_t = array_ops.expand_dims(tensor, dim if dim >= 0 else (dim - 1), name="expand")
        if multiple == 1:
            return expanded_t
        ones = array_ops.ones_like(array_ops.shape(tensor))
        tile_multiples = array_ops.concat(
            (ones[:dim], (multiple,), ones[dim:]), 0, name="multiples"
        )
        return array_ops.tile(expanded_t, tile_multiples, name=scope)


def _num_relevant(labels: Any, k: int) -> Tensor:
    """Per row, the smaller of k and the number of labels (non-negative ones when dense)."""
    if k < 1:
        raise ValueError(f"Invalid k={k}.")
    with name_scope(None, "num_relevant", (labels,)) as scope:
        labels = _as_labels(labels)
        if isinstance(labels, SparseTensor):
            return math_ops.minimum(sets_ops.set_size(labels), k, name=scope)
        num_labels = math_ops.reduce_sum(
            array_ops.where_v2(
                math_ops.greater_equal(labels, 0),
                array_ops.ones_like(labels),
                array_ops.zeros_like(labels),
            ),
            axis=-1,
        )
        return math_ops.minimum(num_labels, k, name=scope)


def _sparse_average_precision_at_top_k(labels: Any, predictions_idx: Any) -> Tensor:
    """Per row: the sum over k of precision@k where the k-th prediction is a label, over the
    number of relevant labels."""
    with name_scope(None, "average_precision", (predictions_idx, labels)) as scope:
        predictions_idx = math_ops.cast(predictions_idx, dtypes.int64, name="predictions_idx")
        if predictions_idx.shape.ndims == 0:
            raise ValueError("The rank of predictions_idx must be at least 1.")
        k = predictions_idx.shape.as_list()[-1]
        if k is None:
            raise ValueError("The last dimension of predictions_idx must be set.")
        labels = _maybe_expand_labels(labels, predictions_idx)
        predictions_idx_per_k = array_ops.expand_dims(
            predictions_idx, -1, name="predictions_idx_per_k"
        )
        labels_per_k = _expand_and_tile(labels, multiple=k, dim=-1, name="labels_per_k")
        relevant_per_k = _sparse_true_positive_at_k(
            labels_per_k, predictions_idx_per_k, name="relevant_per_k"
        )
        tp_per_k = math_ops.cumsum(relevant_per_k, axis=-1, name="tp_per_k")
        retrieved_per_k = math_ops.cumsum(
            array_ops.ones_like(relevant_per_k), axis=-1, name="retrieved_per_k"
        )
        internal_deprecations.called_internally(internal_deprecations.DIV)
        precision_per_k = math_ops.div(
            math_ops.cast(tp_per_k, dtypes.float64),
            math_ops.cast(retrieved_per_k, dtypes.float64),
            name="precision_per_k",
        )
        relevant_precision_per_k = math_ops.multiply(
            precision_per_k,
            math_ops.cast(relevant_per_k, dtypes.float64),
            name="relevant_precision_per_k",
        )
        precision_sum = math_ops.reduce_sum(
            relevant_precision_per_k, axis=(-1,), name="precision_sum"
        )
        num_relevant_items = math_ops.cast(_num_relevant(labels, k), dtypes.float64)
        return math_ops.div(precision_sum, num_relevant_items, name=scope)


def _streaming_sparse_average_precision_at_top_k(
    labels: Any,
    predictions_idx: Any,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    with name_scope(
        name, "average_precision_at_top_k", (predictions_idx, labels, weights)
    ) as scope:
        average_precision = _sparse_average_precision_at_top_k(
            predictions_idx=predictions_idx, labels=labels
        )
        if weights is not None:
            weights = weights_broadcast_ops.broadcast_weights(
                math_ops.cast(weights, dtypes.float64), average_precision
            )
            average_precision = math_ops.multiply(average_precision, weights)
        with name_scope(None, "max", (average_precision,)) as max_scope:
            max_var = metric_variable([], dtypes.float64, name=max_scope)
            if weights is None:
                batch_max = math_ops.cast(
                    array_ops.size(average_precision, name="batch_max"), dtypes.float64
                )
            else:
                batch_max = math_ops.reduce_sum(weights, name="batch_max")
            max_update = max_var.assign_add(batch_max, name="update")
        with name_scope(None, "total", (average_precision,)) as total_scope:
            total_var = metric_variable([], dtypes.float64, name=total_scope)
            batch_total = math_ops.reduce_sum(average_precision, name="batch_total")
            total_update = total_var.assign_add(batch_total, name="update")

        def mean(_: Any, total: Any, maximum: Any) -> Tensor:
            return math_ops.div_no_nan(total, maximum, name="mean")

        mean_average_precision = _aggregate_across_replicas(
            metrics_collections, mean, total_var, max_var
        )
        update = math_ops.div_no_nan(total_update, max_update, name=scope)
        _add_updates(updates_collections, update)
        return mean_average_precision, update


def _clean_out_of_range_indices(labels: Any, num_classes: Tensor) -> Any:
    """Labels >= num_classes (never among the top k) replaced by -1."""
    is_sparse = isinstance(labels, (SparseTensor, SparseTensorValue))

    def clean(values: Any) -> Tensor:
        return array_ops.where_v2(
            math_ops.greater_equal(values, num_classes), -1 * array_ops.ones_like(values), values
        )

    def clean_labels() -> Any:
        if is_sparse:
            return SparseTensor(
                indices=labels.indices, values=clean(labels.values), dense_shape=labels.dense_shape
            )
        return clean(labels)

    max_labels = math_ops.reduce_max(labels.values if is_sparse else labels)
    if isinstance(labels, SparseTensorValue):
        labels = SparseTensor.from_value(labels)
    return control_flow_ops.cond(
        math_ops.greater_equal(max_labels, num_classes), clean_labels, lambda: labels
    )


def average_precision_at_k(
    labels: Any,
    predictions: Any,
    k: int,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The mean over rows of the average precision of the k highest predictions."""
    if k < 1:
        raise ValueError(f"Invalid k={k}.")
    with name_scope(
        name, _at_k_name("average_precision", k), (predictions, labels, weights)
    ) as scope:
        predictions_idx = _top_k_indices(predictions, k, "average_precision_at_k")
        labels = _clean_out_of_range_indices(
            labels, math_ops.cast(array_ops.shape(predictions)[-1], dtypes.int64)
        )
        return _streaming_sparse_average_precision_at_top_k(
            labels=labels,
            predictions_idx=predictions_idx,
            weights=weights,
            metrics_collections=metrics_collections,
            updates_collections=updates_collections,
            name=scope,
        )


def sparse_average_precision_at_k(
    labels: Any,
    predictions: Any,
    k: int,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The deprecated name of average_precision_at_k."""
    return average_precision_at_k(
        labels=labels,
        predictions=predictions,
        k=k,
        weights=weights,
        metrics_collections=metrics_collections,
        updates_collections=updates_collections,
        name=name,
    )


# ---- mean per-class accuracy -------------------------------------------------------------------
def mean_per_class_accuracy(
    labels: Any,
    predictions: Any,
    num_classes: int,
    weights: Any = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The mean over classes of each class's accuracy (its correct / its labels)."""
    scatter_ops = _ops_module(
        "scatter_ops", "tf.scatter_add (ScatterAdd)", "mean_per_class_accuracy"
    )
    with variable_scope.variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
        labels = math_ops.cast(labels, dtypes.int64)
        if labels.get_shape().ndims > 1:  # type: ignore[operator]
            labels = array_ops.reshape(labels, [-1])
        if predictions.get_shape().ndims > 1:
            predictions = array_ops.reshape(predictions, [-1])
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        total = metric_variable([num_classes], dtypes.float32, name="total")
        count = metric_variable([num_classes], dtypes.float32, name="count")
        ones = array_ops.ones([array_ops.size(labels)], dtypes.float32)
        if labels.dtype != predictions.dtype:
            predictions = math_ops.cast(predictions, labels.dtype)
        is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            if weights.get_shape().ndims > 1:
                weights = array_ops.reshape(weights, [-1])
            weights = math_ops.cast(weights, dtypes.float32)
            is_correct *= weights
            ones *= weights
        update_total_op = scatter_ops.scatter_add(total, labels, ones)
        update_count_op = scatter_ops.scatter_add(count, labels, is_correct)

        def compute_mean_accuracy(_: Any, count: Any, total: Any) -> Tensor:
            per_class_accuracy = math_ops.div_no_nan(count, math_ops.maximum(total, 0))
            return math_ops.reduce_mean(per_class_accuracy, name="mean_accuracy")

        mean_accuracy_v = _aggregate_across_replicas(
            metrics_collections, compute_mean_accuracy, count, total
        )
        update_op = math_ops.div_no_nan(
            update_count_op, math_ops.maximum(update_total_op, 0), name="update_op"
        )
        _add_updates(updates_collections, update_op)
        return mean_accuracy_v, update_op


__all__ = [
    "average_precision_at_k",
    "mean_per_class_accuracy",
    "precision_at_k",
    "precision_at_top_k",
    "recall_at_k",
    "recall_at_top_k",
    "sparse_average_precision_at_k",
    "sparse_precision_at_k",
]
