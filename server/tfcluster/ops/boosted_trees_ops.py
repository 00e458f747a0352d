"""The ops of TF 1.15's gradient boosted trees (gen_boosted_trees_ops): the tree ensemble and
quantile stream resources, statistics and split finding, growing and prediction. Each function
takes TF's arguments and adds one node of TF's op type (kernels/boosted_trees_*.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op

_S = TensorShape([])
_V = TensorShape([None])


def _batch(t: Tensor) -> Any:
    return t.shape[0] if t.shape.ndims else None


def _batch_of(inputs: Sequence[Tensor], index: int) -> Any:
    """The batch size of the examples' input `index` (unknown when the node lacks it)."""
    return _batch(inputs[index]) if len(inputs) > index else None


def _columns(t: Tensor) -> Any:
    """A matrix's column count, None unless its rank is known to be 2."""
    return t.shape[1] if t.shape.ndims == 2 else None


def _per_example(inputs: Sequence[Tensor], index: int, attrs: dict[str, Any]) -> TensorShape:
    """[batch, logits_dimension]: one logits row per example of input `index`."""
    return TensorShape([_batch_of(inputs, index), _n(attrs, "logits_dimension")])


def _n(attrs: dict[str, Any], key: str) -> int:
    return int(attrs[key])


def _with_rank(t: Tensor, rank: int, what: str) -> None:
    """TF's shape functions refuse a known wrong rank when the graph is built."""
    if t.shape.ndims is not None and t.shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {t.shape.ndims} for {what}")


def _node_range(t: Tensor, what: str) -> None:
    _with_rank(t, 1, what)
    if t.shape.ndims == 1 and t.shape[0] is not None and t.shape[0] != 2:
        raise ValueError(f"Dimension must be 2 but is {t.shape[0]} for {what}")


def _predict_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.float32, _per_example(inputs, 1, attrs))]


def _training_predict_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    batch = TensorShape([_batch_of(inputs, 3)])
    return [
        (dtypes.float32, _per_example(inputs, 3, attrs)),
        (dtypes.int32, batch),
        (dtypes.int32, batch),
    ]


def _debug_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.string, TensorShape([_batch_of(inputs, 1)]))]


def _make_stats_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = [_n(attrs, "num_features"), _n(attrs, "max_splits"), _n(attrs, "num_buckets"), 2]
    return [(dtypes.float32, TensorShape(shape))]


def _aggregate_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dims, g, h = _columns(inputs[3]), _columns(inputs[1]), _columns(inputs[2])
    stats = None if g is None or h is None else g + h
    shape = [_n(attrs, "max_splits"), dims, _n(attrs, "num_buckets") + 1, stats]
    return [(dtypes.float32, TensorShape(shape))]


def _gains_per_feature_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    n = _n(attrs, "num_features")
    _node_range(inputs[0], "node_id_range of BoostedTreesCalculateBestGainsPerFeature")
    for t in inputs[1 : 1 + n]:
        _with_rank(t, 3, "stats_summary_list of BoostedTreesCalculateBestGainsPerFeature")
    two = TensorShape([None, 1])
    return (
        [(dtypes.int32, _V)] * n
        + [(dtypes.float32, _V)] * n
        + [(dtypes.int32, _V)] * n
        + [(dtypes.float32, two)] * n
        + [(dtypes.float32, two)] * n
    )


def _feature_split_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _node_range(inputs[0], "node_id_range of BoostedTreesCalculateBestFeatureSplit")
    if len(inputs) == 6:  # the dense op: one rank-4 summary
        _with_rank(inputs[1], 4, "stats_summary of BoostedTreesCalculateBestFeatureSplit")
    contrib = TensorShape([None, _n(attrs, "logits_dimension")])
    return [
        (dtypes.int32, _V),
        (dtypes.float32, _V),
        (dtypes.int32, _V),
        (dtypes.int32, _V),
        (dtypes.float32, contrib),
        (dtypes.float32, contrib),
        (dtypes.string, _V),
    ]


def _bucketize_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    n = _n(attrs, "num_features")
    return [(dtypes.int32, TensorShape([_batch(inputs[i])])) for i in range(n)]


def _summaries_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.float32, TensorShape([None, 4]))] * _n(attrs, "num_features")


def _boundaries_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.float32, _V)] * _n(attrs, "num_features")


_fixed = op_def_registry.fixed
_RESOURCE_USERS: dict[str, Any] = {
    "BoostedTreesCreateEnsemble": op_def_registry.no_outputs,
    "BoostedTreesDeserializeEnsemble": op_def_registry.no_outputs,
    "IsBoostedTreesEnsembleInitialized": _fixed((dtypes.bool_, _S)),
    "BoostedTreesSerializeEnsemble": _fixed((dtypes.int64, _S), (dtypes.string, _S)),
    "BoostedTreesGetEnsembleStates": _fixed(
        (dtypes.int64, _S),
        (dtypes.int32, _S),
        (dtypes.int32, _S),
        (dtypes.int32, _S),
        (dtypes.int32, TensorShape([2])),
    ),
    "BoostedTreesPredict": _predict_infer,
    "BoostedTreesTrainingPredict": _training_predict_infer,
    "BoostedTreesExampleDebugOutputs": _debug_infer,
    "BoostedTreesUpdateEnsemble": op_def_registry.no_outputs,
    "BoostedTreesUpdateEnsembleV2": op_def_registry.no_outputs,
    "BoostedTreesCenterBias": _fixed((dtypes.bool_, _S)),
    "BoostedTreesCreateQuantileStreamResource": op_def_registry.no_outputs,
    "IsBoostedTreesQuantileStreamResourceInitialized": _fixed((dtypes.bool_, _S)),
    "BoostedTreesQuantileStreamResourceAddSummaries": op_def_registry.no_outputs,
    "BoostedTreesQuantileStreamResourceFlush": op_def_registry.no_outputs,
    "BoostedTreesQuantileStreamResourceDeserialize": op_def_registry.no_outputs,
    "BoostedTreesQuantileStreamResourceGetBucketBoundaries": _boundaries_infer,
    "BoostedTreesFlushQuantileSummaries": _summaries_infer,
}
for _type in ("BoostedTreesEnsembleResourceHandleOp", "BoostedTreesQuantileStreamResourceHandleOp"):
    op_def_registry.register(_type, _fixed((dtypes.resource, _S)), stateful=True)
for _type, _infer in _RESOURCE_USERS.items():
    # The handle is input 0: the op runs where the resource is.
    op_def_registry.register(_type, _infer, ref_inputs=[0], stateful=True)
op_def_registry.register("BoostedTreesMakeStatsSummary", _make_stats_infer)
op_def_registry.register("BoostedTreesAggregateStats", _aggregate_infer)
op_def_registry.register(
    "BoostedTreesSparseAggregateStats",
    _fixed(
        (dtypes.int32, TensorShape([None, 4])),
        (dtypes.float32, _V),
        (dtypes.int32, TensorShape([4])),
    ),
)
op_def_registry.register("BoostedTreesCalculateBestGainsPerFeature", _gains_per_feature_infer)
op_def_registry.register("BoostedTreesCalculateBestFeatureSplit", _feature_split_infer)
op_def_registry.register("BoostedTreesSparseCalculateBestFeatureSplit", _feature_split_infer)
op_def_registry.register("BoostedTreesBucketize", _bucketize_infer)
op_def_registry.register("BoostedTreesMakeQuantileSummaries", _summaries_infer)
OP_TYPES = (
    "BoostedTreesEnsembleResourceHandleOp",
    "BoostedTreesQuantileStreamResourceHandleOp",
    *_RESOURCE_USERS,
    "BoostedTreesMakeStatsSummary",
    "BoostedTreesAggregateStats",
    "BoostedTreesSparseAggregateStats",
    "BoostedTreesCalculateBestGainsPerFeature",
    "BoostedTreesCalculateBestFeatureSplit",
    "BoostedTreesSparseCalculateBestFeatureSplit",
    "BoostedTreesBucketize",
    "BoostedTreesMakeQuantileSummaries",
)


def _t(value: Any, dtype: Any, name: str) -> Tensor:
    return convert_to_tensor(value, dtype=dtype, name=name)


def _ts(values: Sequence[Any], dtype: Any, name: str) -> list[Tensor]:
    return [_t(v, dtype, name) for v in values]


def _op(op_type: str, inputs: list[Tensor], attrs: dict[str, Any], name: Any) -> Operation:
    return make_op(op_type, inputs, attrs, name or op_type)


# ---- the ensemble resource -------------------------------------------------------------------
def boosted_trees_ensemble_resource_handle_op(
    container: str = "", shared_name: str = "", name: str | None = None
) -> Tensor:
    attrs = {"container": container, "shared_name": shared_name}
    return _op("BoostedTreesEnsembleResourceHandleOp", [], attrs, name).outputs[0]


def boosted_trees_create_ensemble(
    tree_ensemble_handle: Tensor, stamp_token: Any, tree_ensemble_serialized: Any, name: Any = None
) -> Operation:
    inputs = [
        tree_ensemble_handle,
        _t(stamp_token, dtypes.int64, "stamp_token"),
        _t(tree_ensemble_serialized, dtypes.string, "tree_ensemble_serialized"),
    ]
    return _op("BoostedTreesCreateEnsemble", inputs, {}, name)


def boosted_trees_deserialize_ensemble(
    tree_ensemble_handle: Tensor, stamp_token: Any, tree_ensemble_serialized: Any, name: Any = None
) -> Operation:
    inputs = [
        tree_ensemble_handle,
        _t(stamp_token, dtypes.int64, "stamp_token"),
        _t(tree_ensemble_serialized, dtypes.string, "tree_ensemble_serialized"),
    ]
    return _op("BoostedTreesDeserializeEnsemble", inputs, {}, name)


def is_boosted_trees_ensemble_initialized(tree_ensemble_handle: Tensor, name: Any = None) -> Tensor:
    return _op("IsBoostedTreesEnsembleInitialized", [tree_ensemble_handle], {}, name).outputs[0]


def boosted_trees_serialize_ensemble(
    tree_ensemble_handle: Tensor, name: Any = None
) -> tuple[Tensor, Tensor]:
    op = _op("BoostedTreesSerializeEnsemble", [tree_ensemble_handle], {}, name)
    return op.outputs[0], op.outputs[1]


def boosted_trees_get_ensemble_states(tree_ensemble_handle: Tensor, name: Any = None) -> tuple:
    op = _op("BoostedTreesGetEnsembleStates", [tree_ensemble_handle], {}, name)
    return tuple(op.outputs)


# ---- prediction ----------------------------------------------------------------------------
def boosted_trees_predict(
    tree_ensemble_handle: Tensor,
    bucketized_features: Sequence[Any],
    logits_dimension: int,
    name: Any = None,
) -> Tensor:
    feats = _ts(bucketized_features, dtypes.int32, "bucketized_features")
    attrs = {"num_bucketized_features": len(feats), "logits_dimension": int(logits_dimension)}
    return _op("BoostedTreesPredict", [tree_ensemble_handle, *feats], attrs, name).outputs[0]


def boosted_trees_training_predict(
    tree_ensemble_handle: Tensor,
    cached_tree_ids: Any,
    cached_node_ids: Any,
    bucketized_features: Sequence[Any],
    logits_dimension: int,
    name: Any = None,
) -> tuple[Tensor, Tensor, Tensor]:
    feats = _ts(bucketized_features, dtypes.int32, "bucketized_features")
    attrs = {"num_bucketized_features": len(feats), "logits_dimension": int(logits_dimension)}
    inputs = [
        tree_ensemble_handle,
        _t(cached_tree_ids, dtypes.int32, "cached_tree_ids"),
        _t(cached_node_ids, dtypes.int32, "cached_node_ids"),
        *feats,
    ]
    op = _op("BoostedTreesTrainingPredict", inputs, attrs, name)
    return op.outputs[0], op.outputs[1], op.outputs[2]


def boosted_trees_example_debug_outputs(
    tree_ensemble_handle: Tensor,
    bucketized_features: Sequence[Any],
    logits_dimension: int,
    name: Any = None,
) -> Tensor:
    feats = _ts(bucketized_features, dtypes.int32, "bucketized_features")
    attrs = {"num_bucketized_features": len(feats), "logits_dimension": int(logits_dimension)}
    op = _op("BoostedTreesExampleDebugOutputs", [tree_ensemble_handle, *feats], attrs, name)
    return op.outputs[0]


# ---- statistics and splits -----------------------------------------------------------------
def boosted_trees_make_stats_summary(
    node_ids: Any,
    gradients: Any,
    hessians: Any,
    bucketized_features_list: Sequence[Any],
    max_splits: int,
    num_buckets: int,
    name: Any = None,
) -> Tensor:
    feats = _ts(bucketized_features_list, dtypes.int32, "bucketized_features_list")
    attrs = {"max_splits": max_splits, "num_buckets": num_buckets, "num_features": len(feats)}
    inputs = [
        _t(node_ids, dtypes.int32, "node_ids"),
        _t(gradients, dtypes.float32, "gradients"),
        _t(hessians, dtypes.float32, "hessians"),
        *feats,
    ]
    return _op("BoostedTreesMakeStatsSummary", inputs, attrs, name).outputs[0]


def boosted_trees_aggregate_stats(
    node_ids: Any,
    gradients: Any,
    hessians: Any,
    feature: Any,
    max_splits: int,
    num_buckets: int,
    name: Any = None,
) -> Tensor:
    inputs = [
        _t(node_ids, dtypes.int32, "node_ids"),
        _t(gradients, dtypes.float32, "gradients"),
        _t(hessians, dtypes.float32, "hessians"),
        _t(feature, dtypes.int32, "feature"),
    ]
    attrs = {"max_splits": max_splits, "num_buckets": num_buckets}
    return _op("BoostedTreesAggregateStats", inputs, attrs, name).outputs[0]


def boosted_trees_sparse_aggregate_stats(
    node_ids: Any,
    gradients: Any,
    hessians: Any,
    feature_indices: Any,
    feature_values: Any,
    feature_shape: Any,
    max_splits: int,
    num_buckets: int,
    name: Any = None,
) -> tuple[Tensor, Tensor, Tensor]:
    inputs = [
        _t(node_ids, dtypes.int32, "node_ids"),
        _t(gradients, dtypes.float32, "gradients"),
        _t(hessians, dtypes.float32, "hessians"),
        _t(feature_indices, dtypes.int32, "feature_indices"),
        _t(feature_values, dtypes.int32, "feature_values"),
        _t(feature_shape, dtypes.int32, "feature_shape"),
    ]
    attrs = {"max_splits": max_splits, "num_buckets": num_buckets}
    op = _op("BoostedTreesSparseAggregateStats", inputs, attrs, name)
    return op.outputs[0], op.outputs[1], op.outputs[2]


def _regularization(l1: Any, l2: Any, tree_complexity: Any, min_node_weight: Any) -> list[Tensor]:
    return [
        _t(l1, dtypes.float32, "l1"),
        _t(l2, dtypes.float32, "l2"),
        _t(tree_complexity, dtypes.float32, "tree_complexity"),
        _t(min_node_weight, dtypes.float32, "min_node_weight"),
    ]


def boosted_trees_calculate_best_gains_per_feature(
    node_id_range: Any,
    stats_summary_list: Sequence[Any],
    l1: Any,
    l2: Any,
    tree_complexity: Any,
    min_node_weight: Any,
    max_splits: int,
    name: Any = None,
) -> tuple[list[Tensor], ...]:
    stats = _ts(stats_summary_list, dtypes.float32, "stats_summary_list")
    n = len(stats)
    inputs = [
        _t(node_id_range, dtypes.int32, "node_id_range"),
        *stats,
        *_regularization(l1, l2, tree_complexity, min_node_weight),
    ]
    attrs = {"max_splits": max_splits, "num_features": n}
    outs = list(_op("BoostedTreesCalculateBestGainsPerFeature", inputs, attrs, name).outputs)
    return tuple(outs[k * n : (k + 1) * n] for k in range(5))


def boosted_trees_calculate_best_feature_split(
    node_id_range: Any,
    stats_summary: Any,
    l1: Any,
    l2: Any,
    tree_complexity: Any,
    min_node_weight: Any,
    logits_dimension: int,
    split_type: str = "inequality",
    name: Any = None,
) -> tuple[Tensor, ...]:
    if split_type not in ("inequality", "equality"):
        raise ValueError(f"split_type must be 'inequality' or 'equality', got {split_type!r}")
    inputs = [
        _t(node_id_range, dtypes.int32, "node_id_range"),
        _t(stats_summary, dtypes.float32, "stats_summary"),
        *_regularization(l1, l2, tree_complexity, min_node_weight),
    ]
    attrs = {"logits_dimension": int(logits_dimension), "split_type": split_type}
    return tuple(_op("BoostedTreesCalculateBestFeatureSplit", inputs, attrs, name).outputs)


def boosted_trees_sparse_calculate_best_feature_split(
    node_id_range: Any,
    stats_summary_indices: Any,
    stats_summary_values: Any,
    stats_summary_shape: Any,
    l1: Any,
    l2: Any,
    tree_complexity: Any,
    min_node_weight: Any,
    logits_dimension: int,
    split_type: str = "inequality",
    name: Any = None,
) -> tuple[Tensor, ...]:
    if split_type != "inequality":
        raise ValueError(f"split_type must be 'inequality', got {split_type!r}")
    inputs = [
        _t(node_id_range, dtypes.int32, "node_id_range"),
        _t(stats_summary_indices, dtypes.int32, "stats_summary_indices"),
        _t(stats_summary_values, dtypes.float32, "stats_summary_values"),
        _t(stats_summary_shape, dtypes.int32, "stats_summary_shape"),
        *_regularization(l1, l2, tree_complexity, min_node_weight),
    ]
    attrs = {"logits_dimension": int(logits_dimension), "split_type": split_type}
    return tuple(_op("BoostedTreesSparseCalculateBestFeatureSplit", inputs, attrs, name).outputs)


# ---- growing -------------------------------------------------------------------------------
def _splits(
    node_ids: Sequence[Any],
    gains: Sequence[Any],
    thresholds: Sequence[Any],
    left_node_contribs: Sequence[Any],
    right_node_contribs: Sequence[Any],
) -> list[Tensor]:
    """The per-feature split lists both UpdateEnsemble versions take, in TF's input order."""
    return [
        *_ts(node_ids, dtypes.int32, "node_ids"),
        *_ts(gains, dtypes.float32, "gains"),
        *_ts(thresholds, dtypes.int32, "thresholds"),
        *_ts(left_node_contribs, dtypes.float32, "left_node_contribs"),
        *_ts(right_node_contribs, dtypes.float32, "right_node_contribs"),
    ]


def boosted_trees_update_ensemble(
    tree_ensemble_handle: Tensor,
    feature_ids: Any,
    node_ids: Sequence[Any],
    gains: Sequence[Any],
    thresholds: Sequence[Any],
    left_node_contribs: Sequence[Any],
    right_node_contribs: Sequence[Any],
    max_depth: Any,
    learning_rate: Any,
    pruning_mode: int,
    name: Any = None,
) -> Operation:
    n = len(node_ids)
    inputs = [
        tree_ensemble_handle,
        _t(feature_ids, dtypes.int32, "feature_ids"),
        *_splits(node_ids, gains, thresholds, left_node_contribs, right_node_contribs),
        _t(max_depth, dtypes.int32, "max_depth"),
        _t(learning_rate, dtypes.float32, "learning_rate"),
    ]
    attrs = {"pruning_mode": int(pruning_mode), "num_features": n}
    return _op("BoostedTreesUpdateEnsemble", inputs, attrs, name)


def boosted_trees_update_ensemble_v2(
    tree_ensemble_handle: Tensor,
    feature_ids: Any,
    dimension_ids: Sequence[Any],
    node_ids: Sequence[Any],
    gains: Sequence[Any],
    thresholds: Sequence[Any],
    left_node_contribs: Sequence[Any],
    right_node_contribs: Sequence[Any],
    split_types: Sequence[Any],
    max_depth: Any,
    learning_rate: Any,
    pruning_mode: Any,
    name: Any = None,
) -> Operation:
    n = len(node_ids)
    inputs = [
        tree_ensemble_handle,
        _t(feature_ids, dtypes.int32, "feature_ids"),
        *_ts(dimension_ids, dtypes.int32, "dimension_ids"),
        *_splits(node_ids, gains, thresholds, left_node_contribs, right_node_contribs),
        *_ts(split_types, dtypes.string, "split_types"),
        _t(max_depth, dtypes.int32, "max_depth"),
        _t(learning_rate, dtypes.float32, "learning_rate"),
        _t(pruning_mode, dtypes.int32, "pruning_mode"),
    ]
    return _op("BoostedTreesUpdateEnsembleV2", inputs, {"num_features": n}, name)


def boosted_trees_center_bias(
    tree_ensemble_handle: Tensor,
    mean_gradients: Any,
    mean_hessians: Any,
    l1: Any,
    l2: Any,
    name: Any = None,
) -> Tensor:
    inputs = [
        tree_ensemble_handle,
        _t(mean_gradients, dtypes.float32, "mean_gradients"),
        _t(mean_hessians, dtypes.float32, "mean_hessians"),
        _t(l1, dtypes.float32, "l1"),
        _t(l2, dtypes.float32, "l2"),
    ]
    return _op("BoostedTreesCenterBias", inputs, {}, name).outputs[0]


# ---- quantiles -----------------------------------------------------------------------------
def boosted_trees_quantile_stream_resource_handle_op(
    container: str = "", shared_name: str = "", name: str | None = None
) -> Tensor:
    attrs = {"container": container, "shared_name": shared_name}
    return _op("BoostedTreesQuantileStreamResourceHandleOp", [], attrs, name).outputs[0]


def boosted_trees_create_quantile_stream_resource(
    quantile_stream_resource_handle: Tensor,
    epsilon: Any,
    num_streams: Any,
    max_elements: int = 1099511627776,
    name: Any = None,
) -> Operation:
    inputs = [
        quantile_stream_resource_handle,
        _t(epsilon, dtypes.float32, "epsilon"),
        _t(num_streams, dtypes.int64, "num_streams"),
    ]
    attrs = {"max_elements": int(max_elements)}
    return _op("BoostedTreesCreateQuantileStreamResource", inputs, attrs, name)


def is_boosted_trees_quantile_stream_resource_initialized(
    quantile_stream_resource_handle: Tensor, name: Any = None
) -> Tensor:
    op = _op(
        "IsBoostedTreesQuantileStreamResourceInitialized",
        [quantile_stream_resource_handle],
        {},
        name,
    )
    return op.outputs[0]


def boosted_trees_make_quantile_summaries(
    float_values: Sequence[Any], example_weights: Any, epsilon: Any, name: Any = None
) -> list[Tensor]:
    values = _ts(float_values, dtypes.float32, "float_values")
    inputs = [
        *values,
        _t(example_weights, dtypes.float32, "example_weights"),
        _t(epsilon, dtypes.float32, "epsilon"),
    ]
    op = _op("BoostedTreesMakeQuantileSummaries", inputs, {"num_features": len(values)}, name)
    return list(op.outputs)


def boosted_trees_quantile_stream_resource_add_summaries(
    quantile_stream_resource_handle: Tensor, summaries: Sequence[Any], name: Any = None
) -> Operation:
    s = _ts(summaries, dtypes.float32, "summaries")
    return _op(
        "BoostedTreesQuantileStreamResourceAddSummaries",
        [quantile_stream_resource_handle, *s],
        {"num_features": len(s)},
        name,
    )


def boosted_trees_quantile_stream_resource_flush(
    quantile_stream_resource_handle: Tensor,
    num_buckets: Any,
    generate_quantiles: bool = False,
    name: Any = None,
) -> Operation:
    inputs = [quantile_stream_resource_handle, _t(num_buckets, dtypes.int64, "num_buckets")]
    attrs = {"generate_quantiles": bool(generate_quantiles)}
    return _op("BoostedTreesQuantileStreamResourceFlush", inputs, attrs, name)


def boosted_trees_flush_quantile_summaries(
    quantile_stream_resource_handle: Tensor, num_features: int, name: Any = None
) -> list[Tensor]:
    op = _op(
        "BoostedTreesFlushQuantileSummaries",
        [quantile_stream_resource_handle],
        {"num_features": int(num_features)},
        name,
    )
    return list(op.outputs)


def boosted_trees_quantile_stream_resource_get_bucket_boundaries(
    quantile_stream_resource_handle: Tensor, num_features: int, name: Any = None
) -> list[Tensor]:
    op = _op(
        "BoostedTreesQuantileStreamResourceGetBucketBoundaries",
        [quantile_stream_resource_handle],
        {"num_features": int(num_features)},
        name,
    )
    return list(op.outputs)


def boosted_trees_quantile_stream_resource_deserialize(
    quantile_stream_resource_handle: Tensor, bucket_boundaries: Sequence[Any], name: Any = None
) -> Operation:
    b = _ts(bucket_boundaries, dtypes.float32, "bucket_boundaries")
    return _op(
        "BoostedTreesQuantileStreamResourceDeserialize",
        [quantile_stream_resource_handle, *b],
        {"num_streams": len(b)},
        name,
    )


def boosted_trees_bucketize(
    float_values: Sequence[Any], bucket_boundaries: Sequence[Any], name: Any = None
) -> list[Tensor]:
    values = _ts(float_values, dtypes.float32, "float_values")
    bounds = _ts(bucket_boundaries, dtypes.float32, "bucket_boundaries")
    op = _op("BoostedTreesBucketize", [*values, *bounds], {"num_features": len(values)}, name)
    return list(op.outputs)
