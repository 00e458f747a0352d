"""The SDCA solver of TF 1.15's canned linear estimators (tensorflow_estimator's
linear_optimizer sdca_ops): a linear model's weights, their unshrunk slots
(`<weight>_unshrunk`) and a sharded dense hash table of per-example state
(`ShardedMutableHashTable-i-of-n`, keyed by SdcaFprint of the example ids), with the graph that
runs one SdcaOptimizerV2 pass per step, applies its deltas and shrinks the weights. The names
are TF's, so checkpoints go both ways."""

from __future__ import annotations

import collections
import logging
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import (
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    device,
    name_scope,
)
from tfcluster.lib.lookup.dense_hash_table import DenseHashTable
from tfcluster.ops import (
    array_ops,
    control_flow_ops,
    math_ops,
    nn_extras,
    nn_ops,
    partition_ops,
    scatter_ops,
    sdca_ops,
    segment_ops,
    state_ops,
    summary_ops,
)
from tfcluster.ops.variables import PartitionedVariable, Variable

_LOSSES = ("logistic_loss", "squared_loss", "hinge_loss", "smooth_hinge_loss", "poisson_loss")
_log = logging.getLogger("tensorflow")


class SparseFeatureColumn:
    """One sparse feature group of a batch: (example index, feature index, value) triples
    (values None: all 1.0)."""

    def __init__(self, example_indices: Any, feature_indices: Any, feature_values: Any) -> None:
        with name_scope(None, "SparseFeatureColumn", [example_indices, feature_indices]):
            self._example_indices = convert_to_tensor(
                example_indices, name="example_indices", dtype=dtypes.int64
            )
            self._feature_indices = convert_to_tensor(
                feature_indices, name="feature_indices", dtype=dtypes.int64
            )
        self._feature_values = None
        if feature_values is not None:
            with name_scope(None, "SparseFeatureColumn", [feature_values]):
                self._feature_values = convert_to_tensor(
                    feature_values, name="feature_values", dtype=dtypes.float32
                )

    @property
    def example_indices(self) -> Any:
        return self._example_indices

    @property
    def feature_indices(self) -> Any:
        return self._feature_indices

    @property
    def feature_values(self) -> Any:
        return self._feature_values


class ShardedMutableDenseHashTable:
    """num_shards dense hash tables; a key goes to shard |key[0]| mod num_shards."""

    def __init__(
        self,
        key_dtype: Any,
        value_dtype: Any,
        default_value: Any,
        empty_key: Any,
        deleted_key: Any,
        num_shards: int = 1,
        checkpoint: bool = True,
        name: str = "ShardedMutableHashTable",
    ) -> None:
        self._key_dtype = key_dtype
        self._value_dtype = value_dtype
        with name_scope(name, "sharded_mutable_hash_table") as scope:
            self._table_name = scope
            self._table_shards = [
                DenseHashTable(
                    key_dtype=key_dtype,
                    value_dtype=value_dtype,
                    default_value=default_value,
                    empty_key=empty_key,
                    deleted_key=deleted_key,
                    checkpoint=checkpoint,
                    name=f"{name}-{i + 1}-of-{num_shards}",
                )
                for i in range(num_shards)
            ]

    @property
    def name(self) -> str:
        return self._table_name

    @property
    def table_shards(self) -> list[DenseHashTable]:
        return self._table_shards

    def size(self, name: Any = None) -> Any:
        with name_scope(name, "sharded_mutable_hash_table_size"):
            return math_ops.add_n([t.size() for t in self._table_shards])

    def _shard_indices(self, keys: Any) -> Any:
        if keys.shape.ndims is not None and keys.shape.ndims > 1:
            keys = array_ops.reshape(array_ops.slice(keys, [0, 0], [-1, 1]), [-1])
        indices = math_ops.mod(math_ops.abs(keys), len(self._table_shards))
        return math_ops.cast(indices, dtypes.int32)

    @staticmethod
    def _check_keys(keys: Any) -> None:
        if keys.shape.ndims not in (1, 2):
            raise ValueError(f"Expected a vector or matrix for keys, got {keys.shape}.")

    def lookup(self, keys: Any, name: Any = None) -> Any:
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(
                f"Signature mismatch. Keys must be dtype {self._key_dtype}, got {keys.dtype}."
            )
        self._check_keys(keys)
        n = len(self._table_shards)
        if n == 1:
            return self._table_shards[0].lookup(keys, name=name)
        shard = self._shard_indices(keys)
        key_shards = partition_ops.dynamic_partition(keys, shard, n)
        values = [self._table_shards[i].lookup(key_shards[i], name=name) for i in range(n)]
        positions = partition_ops.dynamic_partition(
            math_ops.range(array_ops.shape(keys)[0]), shard, n
        )
        return partition_ops.dynamic_stitch(positions, values)

    def insert(self, keys: Any, values: Any, name: Any = None) -> Any:
        self._check_keys(keys)
        n = len(self._table_shards)
        if n == 1:
            return self._table_shards[0].insert(keys, values, name=name)
        shard = self._shard_indices(keys)
        key_shards = partition_ops.dynamic_partition(keys, shard, n)
        value_shards = partition_ops.dynamic_partition(values, shard, n)
        return control_flow_ops.group(
            *[
                self._table_shards[i].insert(key_shards[i], value_shards[i], name=name)
                for i in range(n)
            ]
        )

    def export_sharded(self, name: Any = None) -> tuple[list[Any], list[Any]]:
        keys, values = [], []
        for table in self._table_shards:
            k, v = table.export(name=name)
            keys.append(k)
            values.append(v)
        return keys, values


def _var_list(var: Any) -> list[Any]:
    return list(var) if isinstance(var, (list, PartitionedVariable)) else [var]


def _as_tensors(values: list[Any]) -> list[Any]:
    """Each value as a tensor; a partitioned weight (or list) concatenated along axis 0."""
    out = []
    for x in values:
        if isinstance(x, (list, PartitionedVariable)):
            x = array_ops.concat(list(x), axis=0)
        out.append(convert_to_tensor(x))
    return out


class SDCAModel:
    """Stochastic dual coordinate ascent for linear models (TF's _SDCAModel): examples,
    variables and options as TF's dicts."""

    def __init__(self, examples: Any, variables: Any, options: Any) -> None:
        if not examples or not variables or not options:
            raise ValueError("examples, variables and options must all be specified.")
        if options["loss_type"] not in _LOSSES:
            raise ValueError("Unsupported loss_type: ", options["loss_type"])
        self._assert_specified(
            [
                "example_labels",
                "example_weights",
                "example_ids",
                "sparse_features",
                "dense_features",
            ],
            examples,
        )
        self._assert_list(["sparse_features", "dense_features"], examples)
        self._assert_specified(["sparse_features_weights", "dense_features_weights"], variables)
        self._assert_list(["sparse_features_weights", "dense_features_weights"], variables)
        self._assert_specified(
            ["loss_type", "symmetric_l2_regularization", "symmetric_l1_regularization"], options
        )
        if options["symmetric_l2_regularization"] <= 0.0:
            raise ValueError("symmetric_l2_regularization should be positive.")
        if options["symmetric_l2_regularization"] <= 1.0:
            _log.warning(
                "symmetric_l2_regularization for SDCA should typically be larger than for "
                "online optimization methods. Recommended value is of the order of the "
                "average L2 norm of the training examples."
            )
        if options["symmetric_l1_regularization"] < 0.0:
            raise ValueError("symmetric_l1_regularization should be non-negative.")
        self._examples = examples
        self._variables = variables
        self._options = options
        self._create_slots()
        self._hashtable = ShardedMutableDenseHashTable(
            key_dtype=dtypes.int64,
            value_dtype=dtypes.float32,
            num_shards=self._num_table_shards(),
            default_value=[0.0, 0.0, 0.0, 0.0],
            empty_key=[0, 0],
            deleted_key=[1, 1],
        )
        summary_ops.scalar("approximate_duality_gap", self.approximate_duality_gap())
        summary_ops.scalar("examples_seen", self._hashtable.size())

    # ---- options ------------------------------------------------------------------------
    def _l1(self) -> float:
        return float(self._options["symmetric_l1_regularization"])

    def _l2(self) -> float:
        return float(self._options["symmetric_l2_regularization"])

    def _num_loss_partitions(self) -> int:
        return int(self._options.get("num_loss_partitions", 1))

    def _adaptive(self) -> bool:
        return bool(self._options.get("adaptive", True))

    def _num_table_shards(self) -> int:
        n = self._options.get("num_table_shards")
        return 1 if n is None else int(n)

    @staticmethod
    def _assert_specified(items: list[str], check_in: Any) -> None:
        for x in items:
            if check_in[x] is None:
                raise ValueError(f"{x} must be specified.")

    @staticmethod
    def _assert_list(items: list[str], check_in: Any) -> None:
        for x in items:
            if not isinstance(check_in[x], list):
                raise ValueError(x + " must be a list.")

    def _create_slots(self) -> None:
        """An unshrunk copy of each weight (TF's slot '<weight>_unshrunk'): SDCA accumulates
        into it, and the shrunk weights are made from it."""
        self._slots: dict[str, list[Any]] = collections.defaultdict(list)
        for name in ("sparse_features_weights", "dense_features_weights"):
            for var in self._variables[name]:
                if isinstance(var, (list, PartitionedVariable)):
                    parts = []
                    for v in var:
                        with colocate_with(v):
                            parts.append(
                                Variable(
                                    initial_value=array_ops.zeros_like(
                                        v.initialized_value(), dtypes.float32
                                    ),
                                    name=v.op.name + "_unshrunk",
                                )
                            )
                    self._slots["unshrunk_" + name].append(parts)
                else:
                    with device(var.device):
                        self._slots["unshrunk_" + name].append(
                            Variable(
                                array_ops.zeros_like(var.initialized_value(), dtypes.float32),
                                name=var.op.name + "_unshrunk",
                            )
                        )

    # ---- losses -------------------------------------------------------------------------
    def _weight_sums(self, scope: str, square: bool) -> Any:
        with name_scope(scope):
            sums = []
            for name in ("sparse_features_weights", "dense_features_weights"):
                for var in self._variables[name]:
                    for v in _var_list(var):
                        w = convert_to_tensor(v)
                        with device(w.device):
                            w64 = math_ops.cast(w, dtypes.float64)
                            term = math_ops.square(w64) if square else math_ops.abs(w64)
                            sums.append(math_ops.reduce_sum(term))
            return math_ops.add_n(sums)

    def _l1_loss(self) -> Any:
        return self._l1() * self._weight_sums("sdca/l1_loss", square=False)

    def _l2_loss(self) -> Any:
        return self._l2() * self._weight_sums("sdca/l2_loss", square=True) / 2.0

    def _linear_predictions(self, examples: Any) -> Any:
        with name_scope("sdca/prediction"):
            batch_size = array_ops.shape(examples["example_ids"])[0]
            predictions = array_ops.zeros([batch_size])
            sparse_vars = _as_tensors(self._variables["sparse_features_weights"])
            for sfc, sv in zip(examples["sparse_features"], sparse_vars):
                dot = segment_ops.segment_sum(
                    math_ops.multiply(
                        array_ops.gather(sv, sfc.feature_indices), sfc.feature_values
                    ),
                    sfc.example_indices,
                )
                predictions += array_ops.pad(dot, [[0, batch_size - array_ops.shape(dot)[0]]])
            dense_features = _as_tensors(examples["dense_features"])
            dense_vars = _as_tensors(self._variables["dense_features_weights"])
            for x, w in zip(dense_features, dense_vars):
                predictions += array_ops.squeeze(math_ops.matmul(x, array_ops.expand_dims(w, -1)))
        return predictions

    def predictions(self, examples: Any) -> Any:
        """Probabilities for logistic loss, exp(w.x) for Poisson loss, w.x otherwise."""
        self._assert_specified(["example_weights", "sparse_features", "dense_features"], examples)
        self._assert_list(["sparse_features", "dense_features"], examples)
        result = self._linear_predictions(examples)
        if self._options["loss_type"] == "logistic_loss":
            with name_scope("sdca/logistic_prediction"):
                result = math_ops.sigmoid(result)
        elif self._options["loss_type"] == "poisson_loss":
            with name_scope("sdca/poisson_prediction"):
                result = math_ops.exp(result)
        return result

    # ---- training -----------------------------------------------------------------------
    def minimize(self, global_step: Any = None, name: str | None = None) -> Any:
        """One SDCA pass over the examples: updates the unshrunk weights and the example
        state table (and increments global_step after)."""
        with name_scope(name, "sdca/minimize"):
            ex_idx, feat_idx, feat_vals = [], [], []
            for sf in self._examples["sparse_features"]:
                ex_idx.append(sf.example_indices)
                feat_idx.append(sf.feature_indices)
                if sf.feature_values is not None:
                    feat_vals.append(sf.feature_values)
            ids = sdca_ops.sdca_fprint(convert_to_tensor(self._examples["example_ids"]))
            state = self._hashtable.lookup(ids)
            sparse_weights, sparse_indices = [], []
            partitions: dict[int, tuple[int, Any, list[Any]]] = {}
            for v_num, (w, i) in enumerate(
                zip(self._slots["unshrunk_sparse_features_weights"], feat_idx)
            ):
                idx = math_ops.cast(
                    array_ops.unique(math_ops.cast(i, dtypes.int32))[0], dtypes.int64
                )
                sparse_indices.append(idx)
                if isinstance(w, (list, PartitionedVariable)):
                    gathered, partitions[v_num] = self._gather_partitioned(list(w), idx)
                else:
                    wt = convert_to_tensor(w)
                    with device(wt.device):
                        gathered = array_ops.gather(wt, idx)
                sparse_weights.append(gathered)
            esu, sfw, dfw = sdca_ops.sdca_optimizer_v2(
                ex_idx,
                feat_idx,
                feat_vals,
                _as_tensors(self._examples["dense_features"]),
                convert_to_tensor(self._examples["example_weights"]),
                convert_to_tensor(self._examples["example_labels"]),
                sparse_indices,
                sparse_weights,
                _as_tensors(self._slots["unshrunk_dense_features_weights"]),
                state,
                loss_type=self._options["loss_type"],
                l1=self._l1(),
                l2=self._l2(),
                num_loss_partitions=self._num_loss_partitions(),
                num_inner_iterations=1,
                adaptive=self._adaptive(),
            )
            with control_dependencies([esu]):
                update_ops = [self._hashtable.insert(ids, esu)]
                for v_num, (w, i, u) in enumerate(
                    zip(self._slots["unshrunk_sparse_features_weights"], sparse_indices, sfw)
                ):
                    if v_num in partitions:
                        num, assignments, gather_ids = partitions[v_num]
                        updates = partition_ops.dynamic_partition(u, assignments, num)
                        for p in range(num):
                            with colocate_with(w[p]):
                                update_ops.append(
                                    scatter_ops.scatter_add(w[p], gather_ids[p], updates[p])
                                )
                    else:
                        update_ops.append(scatter_ops.scatter_add(w, i, u))
                for w, u in zip(self._slots["unshrunk_dense_features_weights"], dfw):
                    if isinstance(w, (list, PartitionedVariable)):
                        sizes = [v.shape.as_list()[0] for v in w]
                        for v, part in zip(w, array_ops.split(u, num_or_size_splits=sizes)):
                            update_ops.append(state_ops.assign_add(v, part))
                    else:
                        update_ops.append(state_ops.assign_add(w, u))
            if global_step is None:
                return control_flow_ops.group(*update_ops)
            with control_dependencies(update_ops):
                return state_ops.assign_add(global_step, 1, name=name).op

    @staticmethod
    def _gather_partitioned(w: list[Any], ids: Any) -> tuple[Any, tuple[int, Any, list[Any]]]:
        """The rows ids of a div-partitioned weight, and how the ids split over its parts."""
        num = len(w)
        flat = array_ops.reshape(ids, [-1])
        dims = [p.shape.as_list()[0] for p in w]
        if all(d is not None for d in dims):
            total: Any = math_ops.cast(sum(dims), flat.dtype)
        else:
            sizes = []
            for p, d in zip(w, dims):
                if d is not None:
                    sizes.append(d)
                else:
                    with colocate_with(p):
                        sizes.append(array_ops.shape(p)[0])
            total = math_ops.reduce_sum(math_ops.cast(array_ops.stack(sizes), flat.dtype))
        per = total // num
        extras = total % num
        assignments = math_ops.maximum(flat // (per + 1), (flat - extras) // per)
        new_ids = array_ops.where_v2(assignments < extras, flat % (per + 1), (flat - extras) % per)
        assignments = math_ops.cast(assignments, dtypes.int32)
        gather_ids = partition_ops.dynamic_partition(new_ids, assignments, num)
        gathered = []
        for p in range(num):
            with colocate_with(w[p]):
                gathered.append(array_ops.gather(w[p], gather_ids[p]))
        positions = partition_ops.dynamic_partition(
            math_ops.range(array_ops.shape(new_ids)[0]), assignments, num
        )
        return partition_ops.dynamic_stitch(positions, gathered), (num, assignments, gather_ids)

    def update_weights(self, train_op: Any) -> Any:
        """The weights from their unshrunk slots, then L1-shrunk (when l1 > 0)."""
        with control_dependencies([train_op]):
            update_ops = []
            for name in ("sparse_features_weights", "dense_features_weights"):
                for var, slot in zip(self._variables[name], self._slots["unshrunk_" + name]):
                    for v, sv in zip(_var_list(var), _var_list(slot)):
                        update_ops.append(v.assign(sv.read_value()))
        if self._l1() > 0:
            shrinkage = self._l1() / self._l2()
            with control_dependencies(update_ops):
                update_ops = []
                for name in ("sparse_features_weights", "dense_features_weights"):
                    for var in self._variables[name]:
                        for v in _var_list(var):
                            with device(v.device):
                                # Read after the copies (TF's ops read the buffer the
                                # assigns wrote in place).
                                cur = v.read_value()
                                shrunk = math_ops.sign(cur) * math_ops.maximum(
                                    0.0, math_ops.abs(cur) - shrinkage
                                )
                                update_ops.append(v.assign(shrunk))
                return control_flow_ops.group(*update_ops)
        return control_flow_ops.group(*update_ops)

    def approximate_duality_gap(self) -> Any:
        """(primal loss + dual loss + l1 + 2 * l2) / total example weight, over every example
        the state table has seen."""
        with name_scope("sdca/approximate_duality_gap"):
            _, values_list = self._hashtable.export_sharded()
            shard_sums: list[Any] = []
            for values in values_list:
                with device(values.device), control_dependencies(shard_sums):
                    internal_deprecations.called_internally(internal_deprecations.TO_DOUBLE)
                    shard_sums.append(math_ops.reduce_sum(math_ops.to_double(values), 0))
            summed = math_ops.add_n(shard_sums)
            primal, dual, weights = summed[1], summed[2], summed[3]
            return (primal + dual + self._l1_loss() + (2.0 * self._l2_loss())) / weights

    def unregularized_loss(self, examples: Any) -> Any:
        self._assert_specified(
            ["example_labels", "example_weights", "sparse_features", "dense_features"], examples
        )
        self._assert_list(["sparse_features", "dense_features"], examples)
        with name_scope("sdca/unregularized_loss"):
            predictions = math_ops.cast(self._linear_predictions(examples), dtypes.float64)
            labels = math_ops.cast(convert_to_tensor(examples["example_labels"]), dtypes.float64)
            weights = math_ops.cast(convert_to_tensor(examples["example_weights"]), dtypes.float64)
            loss_type = self._options["loss_type"]
            if loss_type == "logistic_loss":
                per = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=predictions)
                return math_ops.reduce_sum(math_ops.multiply(per, weights)) / (
                    math_ops.reduce_sum(weights)
                )
            if loss_type == "poisson_loss":
                per = nn_extras.log_poisson_loss(targets=labels, log_input=predictions)
                return math_ops.reduce_sum(math_ops.multiply(per, weights)) / (
                    math_ops.reduce_sum(weights)
                )
            if loss_type in ("hinge_loss", "smooth_hinge_loss"):
                ones = array_ops.ones_like(predictions)
                adjusted = math_ops.subtract(2 * labels, ones)
                error = nn_ops.relu(
                    math_ops.subtract(ones, math_ops.multiply(adjusted, predictions))
                )
                return math_ops.reduce_sum(math_ops.multiply(error, weights)) / (
                    math_ops.reduce_sum(weights)
                )
            err = math_ops.subtract(labels, predictions)
            weighted = math_ops.multiply(math_ops.square(err), weights)
            return math_ops.reduce_sum(weighted) / (2.0 * math_ops.reduce_sum(weights))

    def regularized_loss(self, examples: Any) -> Any:
        self._assert_specified(
            ["example_labels", "example_weights", "sparse_features", "dense_features"], examples
        )
        self._assert_list(["sparse_features", "dense_features"], examples)
        with name_scope("sdca/regularized_loss"):
            weights = convert_to_tensor(examples["example_weights"])
            return (self._l1_loss() + self._l2_loss()) / math_ops.reduce_sum(
                math_ops.cast(weights, dtypes.float64)
            ) + self.unregularized_loss(examples)
