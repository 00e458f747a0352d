"""TF 1.15's canned gradient boosted trees: BoostedTreesClassifier, BoostedTreesRegressor and
BoostedTreesEstimator. Trees grow layer by layer: every training step predicts with the
ensemble so far, sums gradients and hessians per (node, feature bucket) and adds the best
split of each node of the current layer (after an optional bias-centering phase and, for float
columns, a first step that learns quantile bucket boundaries). Variables, resources and
checkpoint keys are TF's (`boosted_trees:0_serialized`, `boosted_trees/are_boundaries_ready`,
...), so checkpoints move between TF 1.15 and tfcluster."""

from __future__ import annotations

import collections
import functools
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.gradients.gradients_impl import gradients as tf_gradients
from tfcluster.lib.estimator import heads
from tfcluster.lib.estimator.boosted_trees_resources import (
    PruningMode,
    QuantileAccumulator,
    TreeEnsemble,
)
from tfcluster.lib.estimator.estimator import Estimator
from tfcluster.lib.estimator.model_fn import ModeKeys
from tfcluster.lib.feature_column.base import (
    CategoricalColumn,
    DenseColumn,
    LazyBuilder,
    v1_protocol,
)
from tfcluster.lib.feature_column.dense_columns import (
    _BucketizedColumn,
    _IndicatorColumn,
    numeric_column,
)
from tfcluster.lib.platform import behavior_switches
from tfcluster.ops import array_ops, constant_op, control_flow_ops, math_ops, state_ops
from tfcluster.ops import boosted_trees_ops as bt
from tfcluster.ops.op_util import make_op
from tfcluster.ops.summary_ops import scalar as summary_scalar
from tfcluster.ops.variables import Variable
from tfcluster.protos import boosted_trees_pb2
from tfcluster.training import training_util
from tfcluster.training.checkpoint_utils import load_variable
from tfcluster.training.session_run_hook import SessionRunArgs, SessionRunHook

_TreeHParams = collections.namedtuple(
    "_TreeHParams",
    [
        "n_trees",
        "max_depth",
        "learning_rate",
        "l1",
        "l2",
        "tree_complexity",
        "min_node_weight",
        "center_bias",
        "pruning_mode",
        "quantile_sketch_epsilon",
    ],
)
_DUMMY_NUM_BUCKETS = -1
_DUMMY_NODE_ID = -1
_QUANTILE_ACCUMULATOR_RESOURCE_NAME = "QuantileAccumulator"
_SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"


# ---- feature columns ------------------------------------------------------------------------
def _is_float_column(column: Any) -> bool:
    """A float column needs bucketizing by learned quantiles; bucketized and indicator columns
    are integers already."""
    if isinstance(column, (_BucketizedColumn, _IndicatorColumn, CategoricalColumn)):
        return False
    if isinstance(column, DenseColumn):
        return bool(column.dtype.is_floating)  # type: ignore[attr-defined]
    raise ValueError(f"Encountered unexpected column {column}")


def _dims(column: Any) -> int:
    shape = column._variable_shape
    if shape.ndims and shape.ndims > 1:
        raise ValueError(
            "For now, we only support Dense column with rank of 1, but column "
            f"`{column.name}` got: {shape}"
        )
    return int(shape[0]) if shape.ndims else 1


def _num_features(columns: Any) -> int:
    # TF's _calculate_num_features reads the v1 protocol (its deprecations announced).
    with v1_protocol():
        return _count_features(columns)


def _count_features(columns: Any) -> int:
    total = 0
    for column in columns:
        if isinstance(column, _IndicatorColumn):
            total += column.categorical_column._num_buckets
        elif isinstance(column, _BucketizedColumn):
            total += 1
        elif isinstance(column, DenseColumn):
            total += _dims(column)
        elif isinstance(column, CategoricalColumn):
            raise ValueError(f"CategoricalColumn must be wrapped by IndicatorColumn, got: {column}")
        else:
            raise ValueError(f"Got unexpected feature column type {column}")
    return total


def _feature_col_names(columns: Any) -> list[str]:
    names: list[str] = []
    for column in columns:
        if isinstance(column, _IndicatorColumn):
            names += [column.categorical_column.name] * column.categorical_column._num_buckets
        elif isinstance(column, _BucketizedColumn):
            names.append(column.name)
        elif isinstance(column, DenseColumn):
            names += [column.name] * _dims(column)
        else:
            raise ValueError(f"Got unexpected feature column type {column}")
    return names


def _group_features_by_num_buckets(columns: Any, num_quantiles: int) -> tuple[list, list]:
    """Feature ids grouped by bucket count: indicator features 2, float features
    num_quantiles, bucketized ones the most boundaries + 1 of any bucketized column."""
    groups: collections.OrderedDict[int, list[int]] = collections.OrderedDict()
    groups[_DUMMY_NUM_BUCKETS] = []
    max_bucketized, indicator = 2, 2
    idx = 0
    for column in columns:
        if isinstance(column, _IndicatorColumn):
            groups.setdefault(indicator, [])
            for _ in range(column.categorical_column._num_buckets):
                groups[indicator].append(idx)
                idx += 1
        elif isinstance(column, _BucketizedColumn):
            max_bucketized = max(max_bucketized, len(column.boundaries) + 1)
            groups[_DUMMY_NUM_BUCKETS].append(idx)
            idx += 1
        elif isinstance(column, DenseColumn):
            groups.setdefault(num_quantiles, [])
            for _ in range(_dims(column)):
                groups[num_quantiles].append(idx)
                idx += 1
        else:
            raise ValueError(f"Got unexpected feature column type {column}")
    bucketized = groups.pop(_DUMMY_NUM_BUCKETS)
    if max_bucketized in groups:
        groups[max_bucketized].extend(bucketized)
    elif bucketized:
        groups[max_bucketized] = bucketized
    return list(groups.keys()), list(groups.values())


def _transform(features: Any, columns: Any, builder: LazyBuilder | None = None) -> dict:
    builder = builder or LazyBuilder(features)
    return {column: builder.get(column) for column in columns}


def _get_transformed_features(
    features: Any,
    columns: Any,
    all_columns: Any = None,
    boundaries: dict[str, list[Tensor]] | None = None,
    already: dict | None = None,
) -> list[Tensor]:
    """Each feature as one int32 (or float, without boundaries) vector per dimension, in
    the order of the sorted columns."""
    all_columns = columns if all_columns is None else all_columns
    transformed = _transform(features, columns)
    if already:
        transformed.update(already)
    out: list[Tensor] = []
    for column in all_columns:
        t = transformed[column]
        if isinstance(column, _BucketizedColumn):
            squeezed = array_ops.squeeze(t, axis=1)
            if squeezed.shape.ndims is not None and squeezed.shape.ndims > 1:
                raise ValueError(
                    "For now, only supports features equivalent to rank 1 but column "
                    f"`{column.source_column.name}` got: {squeezed.shape}"
                )
            out.append(squeezed)
        elif isinstance(column, _IndicatorColumn):
            # TF's math_ops.to_int32 (its deprecation and its op name).
            internal_deprecations.called_internally(internal_deprecations.TO_INT32)
            as_ints = math_ops.cast(t, dtypes.int32, name="ToInt32")
            out.extend(array_ops.unstack(as_ints, axis=1))
        elif isinstance(column, DenseColumn):
            _dims(column)
            unstacked = array_ops.unstack(t, axis=1)
            if not boundaries:
                out.extend(unstacked)
            else:
                out.extend(bt.boosted_trees_bucketize(unstacked, boundaries[column.name]))
        elif isinstance(column, CategoricalColumn):
            raise ValueError(f"CategoricalColumn must be wrapped by IndicatorColumn, got: {column}")
        else:
            raise ValueError(f"Got unexpected feature column type {column}")
    return out


def _float_boundaries(float_columns: Any, bucket_boundaries: list[Tensor]) -> dict:
    out, idx = {}, 0
    for column in float_columns:
        n = _dims(column)
        out[column.name] = bucket_boundaries[idx : idx + n]
        idx += n
    return out


# ---- state -----------------------------------------------------------------------------------
def _variable(initial_value: Any, name: str, trainable: bool = False) -> Variable:
    """A tensor kept in a (resource) variable, read fast at every step."""
    return Variable(
        initial_value=initial_value,
        trainable=trainable,
        validate_shape=False,
        name=name,
        use_resource=True,
    )


def _cond(pred: Any, true_fn: Any, false_fn: Any, name: str | None = None) -> Any:
    return control_flow_ops.cond(pred, true_fn, false_fn, name=name)


def _no_op() -> Any:
    return control_flow_ops.no_op()


class _Accumulator:
    """A ConditionalAccumulator over a resource handle: a resource handle enters the conds
    that apply to and take from it as an ordinary value."""

    def __init__(self, dtype: Any, shape: Any, shared_name: str) -> None:
        self._dtype = dtypes.as_dtype(dtype)
        self._shape = TensorShape(shape if shape != {} else [])
        attrs = {
            "dtype": self._dtype,
            "shape": self._shape,
            "container": "",
            "shared_name": shared_name,
            "reduction_type": "MEAN",
        }
        self._handle = make_op(
            "ResourceConditionalAccumulator", [], attrs, "conditional_accumulator"
        ).outputs[0]

    def _step(self, step: Any) -> Tensor:
        return math_ops.cast(convert_to_tensor(step), dtypes.int64)

    def apply_grad(self, grad: Any, local_step: Any) -> Any:
        g = convert_to_tensor(grad, dtype=self._dtype)
        return make_op(
            "ResourceAccumulatorApplyGradient",
            [self._handle, self._step(local_step), g],
            {"dtype": self._dtype},
            "AccumulatorApplyGradient",
        )

    def num_accumulated(self) -> Tensor:
        return make_op(
            "ResourceAccumulatorNumAccumulated", [self._handle], {}, "AccumulatorNumAccumulated"
        ).outputs[0]

    def set_global_step(self, step: Any) -> Any:
        return make_op(
            "ResourceAccumulatorSetGlobalStep",
            [self._handle, self._step(step)],
            {},
            "AccumulatorSetGlobalStep",
        )

    def take_grad(self, num_required: int) -> Tensor:
        out = make_op(
            "ResourceAccumulatorTakeGradient",
            [self._handle, convert_to_tensor(num_required, dtype=dtypes.int32)],
            {"dtype": self._dtype},
            "AccumulatorTakeGradient",
        ).outputs[0]
        out.set_shape(self._shape)
        return out


def _accumulator(dtype: Any, shape: Any, shared_name: str) -> _Accumulator:
    return _Accumulator(dtype, shape, shared_name)


def _take(acc: _Accumulator, shape: Any) -> Tensor:
    return acc.take_grad(1)


def _cache_transformed_features(
    features: Any,
    columns: Any,
    cat_columns: Any,
    other_columns: Any,
    batch_size: Any,
    boundaries: dict,
    are_boundaries_ready: Any,
) -> tuple[Any, Any]:
    """In-memory training: features bucketized once and kept in variables."""
    n = _num_features(columns)
    cached = [
        _variable(array_ops.zeros([batch_size], dtype=dtypes.int32), name=f"cached_feature_{i}")
        for i in range(n)
    ]
    are_cached = _variable(False, name="are_features_cached")
    # Categorical columns transform outside the conds (their lookup tables must initialize).
    cat_transformed = _transform(features, cat_columns) if cat_columns else {}

    def without_cache() -> Any:
        feats = _get_transformed_features(
            features, other_columns, columns, boundaries, cat_transformed
        )
        return feats, _no_op()

    def with_cache() -> Any:
        def cache_and_return() -> Any:
            feats = _get_transformed_features(
                features, other_columns, columns, boundaries, cat_transformed
            )
            assigned = [state_ops.assign(cached[i], feats[i]) for i in range(n)]
            with control_flow_ops.control_dependencies(assigned):
                flip = control_flow_ops.group(are_cached.assign(True))
            return assigned, flip

        return _cond(are_cached, lambda: (cached, _no_op()), cache_and_return)

    return _cond(are_boundaries_ready, without_cache, with_cache)


class _CacheTrainingStatesUsingVariables:
    """In-memory training: each example's tree, node and logits kept between steps."""

    def __init__(self, batch_size: Any, logits_dimension: int) -> None:
        self._tree_ids = _variable(
            array_ops.zeros([batch_size], dtype=dtypes.int32), name="tree_ids_cache"
        )
        self._node_ids = _variable(
            _DUMMY_NODE_ID * array_ops.ones([batch_size], dtype=dtypes.int32),
            name="node_ids_cache",
        )
        self._logits = _variable(
            array_ops.zeros([batch_size, logits_dimension], dtype=dtypes.float32),
            name="logits_cache",
        )

    def lookup(self) -> tuple[Any, Any, Any]:
        return self._tree_ids, self._node_ids, self._logits

    def insert(self, tree_ids: Any, node_ids: Any, logits: Any) -> Any:
        return control_flow_ops.group(
            [
                self._tree_ids.assign(tree_ids),
                self._node_ids.assign(node_ids),
                self._logits.assign(logits),
            ],
            name="cache_insert",
        )


# ---- hooks ---------------------------------------------------------------------------------
class _StopAtAttemptsHook(SessionRunHook):
    """Stops training once n_trees trees are finalized (or too many layers were tried)."""

    def __init__(self, num_finalized: Any, num_attempted: Any, max_trees: int, max_depth: int):
        self._num_finalized = num_finalized
        self._num_attempted = num_attempted
        self._max_trees = max_trees
        self._max_depth = max_depth

    def before_run(self, run_context: Any) -> Any:
        return SessionRunArgs([self._num_finalized, self._num_attempted])

    def after_run(self, run_context: Any, run_values: Any) -> None:
        finalized, attempted = run_values.results
        # The fetched values are from before this step's growth: near the limit, read again.
        if (
            finalized >= self._max_trees - 1
            or attempted > 2 * self._max_trees * self._max_depth - 1
        ):
            finalized, attempted = run_context.session.run(
                [self._num_finalized, self._num_attempted]
            )
        if finalized >= self._max_trees or attempted > 2 * self._max_trees * self._max_depth:
            run_context.request_stop()


class GrowerInitializationHook(SessionRunHook):
    """Runs the grower's chief init op (the accumulators' steps) once the session exists."""

    def __init__(self, init_op: Any) -> None:
        self._init_op = init_op

    def after_create_session(self, session: Any, coord: Any) -> None:
        session.run(self._init_op)


# ---- growers ---------------------------------------------------------------------------------
def _max_splits(hparams: Any) -> int:
    return (1 << hparams.max_depth) - 1


class _EnsembleGrower:
    """Growing and bias centering, from each step's stats (in memory) or from stats
    accumulated over n_batches_per_layer batches."""

    def __init__(self, ensemble: Any, quantiles: Any, hparams: Any, feature_ids_list: Any):
        self._ensemble = ensemble
        self._quantiles = quantiles
        self._hparams = hparams
        self._feature_ids_list = feature_ids_list
        self._pruning = PruningMode.from_str(hparams.pruning_mode)
        if hparams.tree_complexity > 0:
            if self._pruning == PruningMode.NO_PRUNING:
                raise ValueError("Tree complexity have no effect unless pruning mode is chosen.")
        elif self._pruning != PruningMode.NO_PRUNING:
            raise ValueError("For pruning, tree_complexity must be positive.")

    def chief_init_op(self) -> Any:
        return _no_op()

    def _center_bias_fn(self, center_bias_var: Any, mean_g: Any, mean_h: Any) -> Any:
        keep_going = bt.boosted_trees_center_bias(
            self._ensemble.resource_handle,
            mean_gradients=mean_g,
            mean_hessians=mean_h,
            l1=self._hparams.l1,
            l2=self._hparams.l2,
        )
        return center_bias_var.assign(keep_going)

    def _grow_tree_from_stats_summaries(self, stats_list: Any, nodes_range: Any) -> Any:
        node_ids, gains, thresholds, lefts, rights, feature_ids = [], [], [], [], [], []
        for i, ids in enumerate(self._feature_ids_list):
            out = bt.boosted_trees_calculate_best_gains_per_feature(
                node_id_range=nodes_range,
                stats_summary_list=stats_list[i],
                l1=self._hparams.l1,
                l2=self._hparams.l2,
                tree_complexity=self._hparams.tree_complexity,
                min_node_weight=self._hparams.min_node_weight,
                max_splits=_max_splits(self._hparams),
            )
            feature_ids += ids
            node_ids += out[0]
            gains += out[1]
            thresholds += out[2]
            lefts += out[3]
            rights += out[4]
        return bt.boosted_trees_update_ensemble(
            self._ensemble.resource_handle,
            feature_ids=feature_ids,
            node_ids=node_ids,
            gains=gains,
            thresholds=thresholds,
            left_node_contribs=lefts,
            right_node_contribs=rights,
            learning_rate=self._hparams.learning_rate,
            max_depth=self._hparams.max_depth,
            pruning_mode=self._pruning,
        )


class _InMemoryEnsembleGrower(_EnsembleGrower):
    def accumulate_quantiles(self, float_features: Any, weights: Any, ready: Any) -> Any:
        summary = self._quantiles.add_summaries(float_features, weights)
        with control_flow_ops.control_dependencies([summary]):
            flush = self._quantiles.flush()
            with control_flow_ops.control_dependencies([flush]):
                return ready.assign(True).op

    def center_bias(self, center_bias_var: Any, grads: Any, hess: Any) -> Any:
        mean_g = array_ops.expand_dims(math_ops.reduce_mean(grads, 0), 0)
        mean_h = array_ops.expand_dims(math_ops.reduce_mean(hess, 0), 0)
        return self._center_bias_fn(center_bias_var, mean_g, mean_h)

    def grow_tree(self, stats_list: Any, nodes_range: Any) -> Any:
        return self._grow_tree_from_stats_summaries(stats_list, nodes_range)


class _AccumulatorEnsembleGrower(_EnsembleGrower):
    def __init__(
        self,
        ensemble: Any,
        quantiles: Any,
        hparams: Any,
        stamp_token: Any,
        n_batches_per_layer: Any,
        bucket_size_list: Any,
        is_chief: bool,
        center_bias: bool,
        feature_ids_list: Any,
    ) -> None:
        super().__init__(ensemble, quantiles, hparams, feature_ids_list)
        self._stamp = stamp_token
        self._n_batches = n_batches_per_layer
        self._is_chief = is_chief
        self._growing = []
        self._growing_shapes = []
        self._chief_init_ops = []
        for i, ids in enumerate(feature_ids_list):
            shape = [len(ids), _max_splits(hparams), bucket_size_list[i], 2]
            self._growing_shapes.append(shape)
            acc = _accumulator(dtypes.float32, shape, f"numeric_stats_summary_accumulator_{i}")
            self._chief_init_ops.append(acc.set_global_step(stamp_token))
            self._growing.append(acc)
        # Made here, outside the conds that use it: a resource lives in the outer graph.
        self._quantile_acc = _accumulator(dtypes.float32, {}, "quantile_summary_accum")
        self._center_bias = center_bias
        if center_bias:
            self._bias_acc = _accumulator(dtypes.float32, [2, 1], "bias_accumulator")
            self._chief_init_ops.append(self._bias_acc.set_global_step(stamp_token))

    def accumulate_quantiles(self, float_features: Any, weights: Any, ready: Any) -> Any:
        summary = self._quantiles.add_summaries(float_features, weights)
        cond_acc = self._quantile_acc
        step = cond_acc.set_global_step(self._stamp)
        apply = cond_acc.apply_grad(constant_op.constant(0.0), self._stamp)
        update = control_flow_ops.group(summary, step, apply)
        if not self._is_chief:
            return update
        with control_flow_ops.control_dependencies([update]):

            def flush_fn() -> Any:
                grad = cond_acc.take_grad(1)
                flush = self._quantiles.flush()
                ready_op = ready.assign(True).op
                return control_flow_ops.group(flush, grad, ready_op)

            return _cond(
                math_ops.greater_equal(cond_acc.num_accumulated(), self._n_batches),
                flush_fn,
                _no_op,
                name="wait_until_quaniles_accumulated",
            )

    def center_bias(self, center_bias_var: Any, grads: Any, hess: Any) -> Any:
        if not self._center_bias:
            raise RuntimeError("center_bias called but bias centering is disabled.")
        both = math_ops.reduce_mean(array_ops.stack([grads, hess], axis=0), axis=1)
        apply = self._bias_acc.apply_grad(both, self._stamp)
        with control_flow_ops.control_dependencies([apply]):
            if not self._is_chief:
                return _no_op()

            def set_stamps() -> Any:
                return control_flow_ops.group(
                    [acc.set_global_step(self._stamp + 1) for acc in self._growing]
                )

            def center_from_accumulator() -> Any:
                taken = array_ops.unstack(_take(self._bias_acc, [2, 1]), axis=0)
                op = self._center_bias_fn(
                    center_bias_var,
                    array_ops.expand_dims(taken[0], 0),
                    array_ops.expand_dims(taken[1], 0),
                )
                with control_flow_ops.control_dependencies([op]):
                    return _cond(center_bias_var, _no_op, set_stamps)

            return _cond(
                math_ops.greater_equal(self._bias_acc.num_accumulated(), self._n_batches),
                center_from_accumulator,
                _no_op,
                name="wait_until_n_batches_for_bias_accumulated",
            )

    def grow_tree(self, stats_list: Any, nodes_range: Any) -> Any:
        applied = [
            acc.apply_grad(array_ops.stack(stats_list[i], axis=0), self._stamp)
            for i, acc in enumerate(self._growing)
        ]
        with control_flow_ops.control_dependencies(applied):
            if not self._is_chief:
                return _no_op()
            least = math_ops.reduce_min(
                array_ops.stack([acc.num_accumulated() for acc in self._growing])
            )

            def grow_from_accumulated() -> Any:
                taken = [
                    array_ops.unstack(_take(acc, shape), axis=0)
                    for acc, shape in zip(self._growing, self._growing_shapes)
                ]
                return self._grow_tree_from_stats_summaries(taken, nodes_range)

            return _cond(
                math_ops.greater_equal(least, self._n_batches),
                grow_from_accumulated,
                _no_op,
                name="wait_until_n_batches_accumulated",
            )

    def chief_init_op(self) -> Any:
        return control_flow_ops.group(self._chief_init_ops)


# ---- the model function ----------------------------------------------------------------------
def _bt_model_fn(
    features: Any,
    labels: Any,
    mode: str,
    head: Any,
    feature_columns: Any,
    tree_hparams: Any,
    n_batches_per_layer: Any,
    config: Any,
    closed_form_grad_and_hess_fn: Any = None,
    weight_column: Any = None,
    train_in_memory: bool = False,
    name: str = "boosted_trees",
) -> Any:
    columns = sorted(feature_columns, key=lambda c: c.name)
    float_columns = [c for c in columns if _is_float_column(c)]
    with name_scope(name) as scope:
        global_step = training_util.get_or_create_global_step()
        ensemble = TreeEnsemble(name=scope)
        eps = tree_hparams.quantile_sketch_epsilon
        num_quantiles = int(1.0 / eps)
        boundaries: dict = {}
        quantiles = None
        if float_columns:
            quantiles = QuantileAccumulator(
                epsilon=eps,
                num_streams=_num_features(float_columns),
                num_quantiles=num_quantiles,
                name=_QUANTILE_ACCUMULATOR_RESOURCE_NAME,
            )
            boundaries = _float_boundaries(float_columns, quantiles.get_bucket_boundaries())
        bucket_sizes, feature_ids_list = _group_features_by_num_buckets(columns, num_quantiles)

        if mode != ModeKeys.TRAIN:
            inputs = _get_transformed_features(features, columns, boundaries=boundaries)
            logits = bt.boosted_trees_predict(
                ensemble.resource_handle, inputs, logits_dimension=head.logits_dimension
            )
            return head.create_estimator_spec(
                features=features, mode=mode, labels=labels, train_op_fn=_no_op, logits=logits
            )

        center_bias = tree_hparams.center_bias
        single_machine = config.num_worker_replicas <= 1
        if train_in_memory:
            if n_batches_per_layer != 1:
                raise ValueError(
                    "When train_in_memory is enabled, input_fn should return the entire "
                    "dataset as a single batch, and n_batches_per_layer should be set as 1."
                )
            if not config.is_chief or config.num_worker_replicas > 1 or config.num_ps_replicas:
                raise ValueError("train_in_memory is supported only for non-distributed training.")
        worker_device = control_flow_ops.no_op().device
        cache = None
        ready = _variable(not float_columns, name="are_boundaries_ready")
        input_cache_op = None
        if train_in_memory:
            batch_size = array_ops.shape(labels)[0]
            cat = [c for c in columns if isinstance(c, _IndicatorColumn)]
            other = [c for c in columns if not isinstance(c, _IndicatorColumn)]
            inputs, input_cache_op = _cache_transformed_features(
                features, columns, cat, other, batch_size, boundaries, ready
            )
            cache = _CacheTrainingStatesUsingVariables(batch_size, head.logits_dimension)
        else:
            inputs = _get_transformed_features(features, columns, boundaries=boundaries)
        if cache is not None:
            cached_trees, cached_nodes, cached_logits = cache.lookup()
        else:
            batch_size = array_ops.shape(labels)[0]
            cached_trees = array_ops.zeros([batch_size], dtype=dtypes.int32)
            cached_nodes = _DUMMY_NODE_ID * array_ops.ones([batch_size], dtype=dtypes.int32)
            cached_logits = array_ops.zeros(
                [batch_size, head.logits_dimension], dtype=dtypes.float32
            )
        if single_machine:
            local = ensemble
            reload = control_flow_ops.no_op()
        else:
            from tfcluster.framework.graph import device

            with device(worker_device):
                local = TreeEnsemble(name=scope + "_local", is_local=True)
            reload = local.deserialize(*ensemble.serialize())
        with control_flow_ops.control_dependencies([reload]):
            stamp, num_trees, num_finalized, num_attempted, nodes_range = local.get_states()
            partial, tree_ids, node_ids = bt.boosted_trees_training_predict(
                local.resource_handle,
                cached_tree_ids=cached_trees,
                cached_node_ids=cached_nodes,
                bucketized_features=inputs,
                logits_dimension=head.logits_dimension,
            )
        logits = cached_logits + partial
        grower: _EnsembleGrower
        if train_in_memory:
            grower = _InMemoryEnsembleGrower(ensemble, quantiles, tree_hparams, feature_ids_list)
        else:
            grower = _AccumulatorEnsembleGrower(
                ensemble,
                quantiles,
                tree_hparams,
                stamp,
                n_batches_per_layer,
                bucket_sizes,
                config.is_chief,
                center_bias,
                feature_ids_list,
            )
        summary_scalar("ensemble/num_trees", num_trees)
        summary_scalar("ensemble/num_finalized_trees", num_finalized)
        summary_scalar("ensemble/num_attempted_layers", num_attempted)
        center_bias_var = _variable(center_bias, name="center_bias_needed")
        if weight_column is None:
            weights = constant_op.constant(1.0, shape=[1])
        else:
            if isinstance(weight_column, str):
                weight_column = numeric_column(key=weight_column, shape=(1,))
            weights = _get_transformed_features(features, [weight_column])[0]

        def train_op_fn(loss: Any) -> Any:
            # Gradients of the outer graph's loss, taken in the outer graph (the conds below
            # only read them).
            if closed_form_grad_and_hess_fn:
                grads_and_hess = closed_form_grad_and_hess_fn(logits, labels)
            else:
                grads = tf_gradients(loss, logits, name="Gradients")[0]
                grads_and_hess = (grads, tf_gradients(grads, logits, name="Hessians")[0])

            def update_quantiles() -> Any:
                with name_scope("UpdateQuantile"):
                    floats = _get_transformed_features(features, float_columns)
                    return grower.accumulate_quantiles(floats, weights, ready)

            def grow() -> Any:
                ops = [input_cache_op] if train_in_memory else []
                if cache is not None:
                    ops.append(
                        _cond(
                            center_bias_var,
                            _no_op,
                            lambda: cache.insert(tree_ids, node_ids, logits),
                        )
                    )
                grads, hess = grads_and_hess
                max_splits = _max_splits(tree_hparams)
                stats_list = []
                for i, ids in enumerate(feature_ids_list):
                    stats_list.append(
                        [
                            array_ops.squeeze(
                                bt.boosted_trees_make_stats_summary(
                                    node_ids=node_ids,
                                    gradients=grads,
                                    hessians=hess,
                                    bucketized_features_list=[inputs[f]],
                                    max_splits=max_splits,
                                    num_buckets=bucket_sizes[i],
                                ),
                                axis=0,
                            )
                            for f in ids
                        ]
                    )
                if center_bias:
                    update = _cond(
                        center_bias_var,
                        functools.partial(grower.center_bias, center_bias_var, grads, hess),
                        functools.partial(grower.grow_tree, stats_list, nodes_range),
                    )
                else:
                    update = grower.grow_tree(stats_list, nodes_range)
                ops.append(update)
                with control_flow_ops.control_dependencies([update]):
                    ops.append(state_ops.assign_add(global_step, 1).op)
                return control_flow_ops.group(ops, name="grow_op")

            if not float_columns:
                return grow()
            return _cond(ready, grow, update_quantiles)

    spec = head.create_estimator_spec(
        features=features, mode=mode, labels=labels, train_op_fn=train_op_fn, logits=logits
    )
    stop = _StopAtAttemptsHook(
        num_finalized, num_attempted, tree_hparams.n_trees, tree_hparams.max_depth
    )
    return spec._replace(
        training_hooks=(*spec.training_hooks, stop),
        training_chief_hooks=(
            GrowerInitializationHook(grower.chief_init_op()),
            *spec.training_chief_hooks,
        ),
    )


# ---- heads -----------------------------------------------------------------------------------
def _classification_head(n_classes: int, weight_column: Any, label_vocabulary: Any) -> Any:
    if n_classes != 2:
        raise ValueError(
            f"For now only binary classification is supported.n_classes given as {n_classes}"
        )
    return heads.BinaryLogisticHead(
        weight_column, label_vocabulary=label_vocabulary, loss_reduction=_SUM_OVER_BATCH_SIZE
    )


def _head_and_closed_form(n_classes: int, weight_column: Any, label_vocabulary: Any) -> Any:
    head = _classification_head(n_classes, weight_column, label_vocabulary)
    if weight_column is not None or label_vocabulary is not None:
        return head, None

    def grad_and_hess(logits: Any, labels: Any) -> Any:
        """Logistic loss's gradient and hessian in closed form (mean over the batch)."""
        predictions = math_ops.reciprocal(math_ops.exp(-logits) + 1.0)
        normalizer = math_ops.reciprocal(math_ops.cast(array_ops.size(predictions), dtypes.float32))
        labels = math_ops.cast(labels, dtypes.float32)
        labels = heads._labels_tensor(labels, logits, head.logits_dimension)
        grads = (predictions - labels) * normalizer
        hess = predictions * (1.0 - predictions) * normalizer
        return grads, hess

    return head, grad_and_hess


def _regression_head(label_dimension: int, weight_column: Any = None) -> Any:
    if label_dimension != 1:
        raise ValueError(
            "For now only 1 dimension regression is supported.label_dimension given as "
            f"{label_dimension}"
        )
    return heads.RegressionHead(label_dimension, weight_column, _SUM_OVER_BATCH_SIZE)


# ---- the estimators --------------------------------------------------------------------------
def _feature_importances_per_tree(tree: Any, num_features: int) -> np.ndarray:
    importances = np.zeros(num_features)
    for node in tree.nodes:
        if node.WhichOneof("node") == "bucketized_split":
            importances[node.bucketized_split.feature_id] += node.metadata.gain
        elif node.WhichOneof("node") == "leaf":
            continue
        else:
            raise ValueError(f"Unexpected split type {node.WhichOneof('node')}")
    return importances


class _BoostedTreesBase(Estimator):
    def __init__(
        self,
        model_fn: Any,
        model_dir: Any,
        config: Any,
        feature_columns: Any,
        head: Any,
        center_bias: bool,
        is_classification: bool,
        quantile_sketch_epsilon: float,
    ) -> None:
        # TF 1.15 turns resource variables on here, for the whole process (so that its global
        # step is one): every variable made later without use_resource is a resource variable.
        behavior_switches.enable_resource_variables()
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)
        self._sorted_feature_columns = sorted(feature_columns, key=lambda c: c.name)
        self._head = head
        self._n_features = _num_features(self._sorted_feature_columns)
        self._feature_col_names = _feature_col_names(self._sorted_feature_columns)
        self._center_bias = center_bias
        self._is_classification = is_classification
        self._quantile_sketch_epsilon = quantile_sketch_epsilon

    def experimental_feature_importances(self, normalize: bool = False) -> Any:
        """Gain-based feature importances: an OrderedDict of feature column name to
        importance, largest (in absolute value) first."""
        serialized = load_variable(self.model_dir, "boosted_trees:0_serialized")
        if not serialized:
            raise ValueError(
                "Found empty serialized string for TreeEnsemble.You should only call this "
                "method after training."
            )
        ensemble = boosted_trees_pb2.TreeEnsemble()
        ensemble.ParseFromString(serialized)
        per_tree = np.zeros((len(ensemble.trees), self._n_features))
        for i, tree in enumerate(ensemble.trees):
            per_tree[i] = _feature_importances_per_tree(tree, self._n_features)
        weights = np.asarray(ensemble.tree_weights).reshape(-1, 1)
        importances = np.sum(per_tree * weights, axis=0)
        if normalize:
            if not np.all(importances >= 0):
                raise AssertionError("feature_importances must be non-negative.")
            total = np.sum(importances)
            if not total > 0:
                raise AssertionError("Trees are all empty or contain only a root node.")
            importances /= total
        return _sum_by_name_and_sort(self._feature_col_names, importances)

    def experimental_predict_with_explanations(
        self,
        input_fn: Any,
        predict_keys: Any = None,
        hooks: Any = None,
        checkpoint_path: Any = None,
    ) -> Any:
        """Predictions with each example's bias and directional feature contributions
        ('dfc': the change of the prediction along its path through the trees, summed per
        feature column, largest first). Needs center_bias."""
        if not self._center_bias:
            raise ValueError(
                "center_bias must be enabled during estimator instantiation when using "
                "experimental_predict_with_explanations."
            )
        head, columns = self._head, self._sorted_feature_columns
        epsilon = self._quantile_sketch_epsilon

        def explanations_model_fn(features: Any, labels: Any, mode: str) -> Any:
            return _bt_explanations_fn(features, head, columns, epsilon)

        est = Estimator(
            model_fn=explanations_model_fn,
            model_dir=self.model_dir,
            config=self.config,
            warm_start_from=self._warm_start_settings,
        )
        if predict_keys is not None:
            predict_keys = {*predict_keys, _DEBUG_PROTO_KEY}
        predictions = est.predict(
            input_fn,
            predict_keys=predict_keys,
            hooks=hooks,
            checkpoint_path=checkpoint_path,
            yield_single_examples=True,
        )
        for pred in predictions:
            bias, dfcs = _explanations(
                pred.pop(_DEBUG_PROTO_KEY), self._feature_col_names, self._is_classification
            )
            pred["bias"] = bias
            pred["dfc"] = dfcs
            yield pred


_DEBUG_PROTO_KEY = "_serialized_debug_outputs_proto"


def _sum_by_name_and_sort(names: Any, values: Any) -> Any:
    by_name: dict[str, Any] = {}
    for name, value in zip(names, values):
        by_name[name] = by_name.setdefault(name, 0) + value
    return collections.OrderedDict(sorted(by_name.items(), key=lambda kv: abs(kv[1]), reverse=True))


def _explanations(serialized: bytes, names: list[str], classification: bool) -> Any:
    """An example's bias and directional feature contributions from its DebugOutput: the
    prediction's change at each split, summed by the splitting feature's column."""
    debug = boosted_trees_pb2.DebugOutput()
    debug.ParseFromString(serialized)
    path = np.asarray(debug.logits_path)
    predictions = 1 / (1 + np.exp(-path)) if classification else path
    deltas = predictions[1:] - predictions[:-1]
    contribs = np.bincount(
        np.asarray(debug.feature_ids, dtype=np.int64), weights=deltas, minlength=len(names)
    )
    return predictions[0], _sum_by_name_and_sort(names, contribs)


def _bt_explanations_fn(
    features: Any, head: Any, columns: Any, epsilon: float, name: str = "boosted_trees"
) -> Any:
    """Predictions plus each example's serialized DebugOutput (its path's features and
    logits)."""
    with name_scope(name) as scope:
        ensemble = TreeEnsemble(name=scope)
        float_columns = [c for c in columns if _is_float_column(c)]
        boundaries: dict = {}
        if float_columns:
            quantiles = QuantileAccumulator(
                epsilon=epsilon,
                num_streams=_num_features(float_columns),
                num_quantiles=int(1.0 / epsilon),
                name=_QUANTILE_ACCUMULATOR_RESOURCE_NAME,
            )
            boundaries = _float_boundaries(float_columns, quantiles.get_bucket_boundaries())
        inputs = _get_transformed_features(features, columns, boundaries=boundaries)
        logits = bt.boosted_trees_predict(
            ensemble.resource_handle, inputs, logits_dimension=head.logits_dimension
        )
        spec = head.create_estimator_spec(
            features=features, mode=ModeKeys.PREDICT, labels=None, train_op_fn=_no_op, logits=logits
        )
        spec.predictions[_DEBUG_PROTO_KEY] = bt.boosted_trees_example_debug_outputs(
            ensemble.resource_handle, inputs, logits_dimension=head.logits_dimension
        )
        return spec


def _hparams(
    n_trees: int,
    max_depth: int,
    learning_rate: float,
    l1: float,
    l2: float,
    tree_complexity: float,
    min_node_weight: float,
    center_bias: bool,
    pruning_mode: str,
    quantile_sketch_epsilon: float,
) -> Any:
    return _TreeHParams(
        n_trees,
        max_depth,
        learning_rate,
        l1,
        l2,
        tree_complexity,
        min_node_weight,
        center_bias,
        pruning_mode,
        quantile_sketch_epsilon,
    )


def _estimator_model_fn(
    head: Any, feature_columns: Any, hparams: Any, n_batches_per_layer: Any, **options: Any
) -> Any:
    """An estimator's model_fn: _bt_model_fn bound to its head, columns and hyperparameters
    (options are _bt_model_fn's keyword arguments: weight column, closed form, in memory)."""

    def model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
        return _bt_model_fn(
            features,
            labels,
            mode,
            head,
            feature_columns,
            hparams,
            n_batches_per_layer,
            config,
            **options,
        )

    return model_fn


class BoostedTreesClassifier(_BoostedTreesBase):
    """A binary classifier of gradient boosted trees (TF 1.15)."""

    def __init__(
        self,
        feature_columns: Any,
        n_batches_per_layer: Any,
        model_dir: Any = None,
        n_classes: int = 2,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        n_trees: int = 100,
        max_depth: int = 6,
        learning_rate: float = 0.1,
        l1_regularization: float = 0.0,
        l2_regularization: float = 0.0,
        tree_complexity: float = 0.0,
        min_node_weight: float = 0.0,
        config: Any = None,
        center_bias: bool = False,
        pruning_mode: str = "none",
        quantile_sketch_epsilon: float = 0.01,
        train_in_memory: bool = False,
    ) -> None:
        head, closed_form = _head_and_closed_form(n_classes, weight_column, label_vocabulary)
        hparams = _hparams(
            n_trees,
            max_depth,
            learning_rate,
            l1_regularization,
            l2_regularization,
            tree_complexity,
            min_node_weight,
            center_bias,
            pruning_mode,
            quantile_sketch_epsilon,
        )

        model_fn = _estimator_model_fn(
            head,
            feature_columns,
            hparams,
            n_batches_per_layer,
            closed_form_grad_and_hess_fn=closed_form,
            weight_column=weight_column,
            train_in_memory=train_in_memory,
        )
        super().__init__(
            model_fn,
            model_dir,
            config,
            feature_columns,
            head,
            center_bias,
            True,
            quantile_sketch_epsilon,
        )


class BoostedTreesRegressor(_BoostedTreesBase):
    """A regressor of gradient boosted trees (TF 1.15)."""

    def __init__(
        self,
        feature_columns: Any,
        n_batches_per_layer: Any,
        model_dir: Any = None,
        label_dimension: int = 1,
        weight_column: Any = None,
        n_trees: int = 100,
        max_depth: int = 6,
        learning_rate: float = 0.1,
        l1_regularization: float = 0.0,
        l2_regularization: float = 0.0,
        tree_complexity: float = 0.0,
        min_node_weight: float = 0.0,
        config: Any = None,
        center_bias: bool = False,
        pruning_mode: str = "none",
        quantile_sketch_epsilon: float = 0.01,
        train_in_memory: bool = False,
    ) -> None:
        head = _regression_head(label_dimension, weight_column)
        hparams = _hparams(
            n_trees,
            max_depth,
            learning_rate,
            l1_regularization,
            l2_regularization,
            tree_complexity,
            min_node_weight,
            center_bias,
            pruning_mode,
            quantile_sketch_epsilon,
        )

        model_fn = _estimator_model_fn(
            head,
            feature_columns,
            hparams,
            n_batches_per_layer,
            weight_column=weight_column,
            train_in_memory=train_in_memory,
        )
        super().__init__(
            model_fn,
            model_dir,
            config,
            feature_columns,
            head,
            center_bias,
            False,
            quantile_sketch_epsilon,
        )


class BoostedTreesEstimator(_BoostedTreesBase):
    """Gradient boosted trees under any head (TF 1.15's experimental estimator)."""

    def __init__(
        self,
        feature_columns: Any,
        n_batches_per_layer: Any,
        head: Any,
        model_dir: Any = None,
        weight_column: Any = None,
        n_trees: int = 100,
        max_depth: int = 6,
        learning_rate: float = 0.1,
        l1_regularization: float = 0.0,
        l2_regularization: float = 0.0,
        tree_complexity: float = 0.0,
        min_node_weight: float = 0.0,
        config: Any = None,
        center_bias: bool = False,
        pruning_mode: str = "none",
        quantile_sketch_epsilon: float = 0.01,
    ) -> None:
        hparams = _hparams(
            n_trees,
            max_depth,
            learning_rate,
            l1_regularization,
            l2_regularization,
            tree_complexity,
            min_node_weight,
            center_bias,
            pruning_mode,
            quantile_sketch_epsilon,
        )

        model_fn = _estimator_model_fn(
            head, feature_columns, hparams, n_batches_per_layer, weight_column=weight_column
        )
        is_classification = getattr(head, "logits_dimension", 1) == 1 and isinstance(
            head, heads.BinaryLogisticHead
        )
        super().__init__(
            model_fn,
            model_dir,
            config,
            feature_columns,
            head,
            center_bias,
            is_classification,
            quantile_sketch_epsilon,
        )


__all__ = ["BoostedTreesClassifier", "BoostedTreesEstimator", "BoostedTreesRegressor"]
