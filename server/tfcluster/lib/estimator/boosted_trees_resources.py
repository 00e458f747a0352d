"""The resources of TF 1.15's boosted_trees_ops.py as graph objects: TreeEnsemble (the ensemble
resource, saved by a Saver as `<handle name>_stamp` and `<handle name>_serialized`) and
QuantileAccumulator (the quantile streams, saved as `<handle name>_bucket_boundaries_<i>`),
registered as resources so Scaffold initializes them; the checkpoint keys are TF's, so a
checkpoint goes both ways."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import GraphKeys, Operation, Tensor, add_to_collection, name_scope
from tfcluster.ops import array_ops, resources
from tfcluster.ops import boosted_trees_ops as bt
from tfcluster.ops.control_flow_ops import control_dependencies
from tfcluster.training.saver import SaveableObject, SaveSpec


class PruningMode:
    """The pruning modes of UpdateEnsemble: none, before growing (pre), after (post)."""

    NO_PRUNING, PRE_PRUNING, POST_PRUNING = range(0, 3)
    _map = {"none": NO_PRUNING, "pre": PRE_PRUNING, "post": POST_PRUNING}

    @classmethod
    def from_str(cls, mode: str) -> int:
        if mode in cls._map:
            return cls._map[mode]
        raise ValueError("pruning_mode mode must be one of: {}".format(", ".join(sorted(cls._map))))


class _TreeEnsembleSaveable(SaveableObject):
    """The ensemble in a checkpoint: its stamp and serialized TreeEnsemble proto, restored by
    DeserializeEnsemble after the create op."""

    def __init__(self, handle: Tensor, create_op: Operation, name: str) -> None:
        stamp, serialized = bt.boosted_trees_serialize_ensemble(handle)
        specs = [
            SaveSpec(stamp, "", name + "_stamp", stamp.dtype, handle.device),
            SaveSpec(serialized, "", name + "_serialized", serialized.dtype, handle.device),
        ]
        super().__init__(handle, specs, name)
        self._handle = handle
        self._create_op = create_op

    def restore(self, restored_tensors: Any, restored_shapes: Any) -> Operation:
        with control_dependencies([self._create_op]):
            return bt.boosted_trees_deserialize_ensemble(
                self._handle,
                stamp_token=restored_tensors[0],
                tree_ensemble_serialized=restored_tensors[1],
            )


class TreeEnsemble:
    """A BoostedTreesEnsembleResource named after its scope, created from a serialized proto."""

    def __init__(
        self, name: str, stamp_token: int = 0, is_local: bool = False, serialized_proto: Any = ""
    ) -> None:
        self._stamp_token = stamp_token
        self._serialized_proto = serialized_proto
        self._is_local = is_local
        with name_scope(name, "TreeEnsemble") as scope:
            self._name = scope
            self.resource_handle = bt.boosted_trees_ensemble_resource_handle_op(
                container="", shared_name=scope, name=scope
            )
            self._init_op = self._initialize()
            is_initialized = self.is_initialized()
            if not is_local:
                self._saveable = _TreeEnsembleSaveable(
                    self.resource_handle, self._init_op, self.resource_handle.name
                )
                add_to_collection(GraphKeys.SAVEABLE_OBJECTS, self._saveable)
            resources.register_resource(
                self.resource_handle, self._init_op, is_initialized, is_shared=not is_local
            )

    def _initialize(self) -> Operation:
        return bt.boosted_trees_create_ensemble(
            self.resource_handle,
            self._stamp_token,
            tree_ensemble_serialized=self._serialized_proto,
        )

    @property
    def initializer(self) -> Operation:
        return self._init_op

    def is_initialized(self) -> Tensor:
        return bt.is_boosted_trees_ensemble_initialized(self.resource_handle)

    def get_stamp_token(self) -> Tensor:
        return bt.boosted_trees_get_ensemble_states(self.resource_handle)[0]

    def get_states(self) -> tuple[Tensor, ...]:
        """stamp_token, num_trees, num_finalized_trees, num_attempted_layers and the node
        range of the last layer, named as TF names them."""
        states = bt.boosted_trees_get_ensemble_states(self.resource_handle)
        names = (
            "stamp_token",
            "num_trees",
            "num_finalized_trees",
            "num_attempted_layers",
            "last_layer_nodes_range",
        )
        return tuple(array_ops.identity(t, name=n) for t, n in zip(states, names))

    def serialize(self) -> tuple[Tensor, Tensor]:
        return bt.boosted_trees_serialize_ensemble(self.resource_handle)

    def deserialize(self, stamp_token: Any, serialized_proto: Any) -> Operation:
        return bt.boosted_trees_deserialize_ensemble(
            self.resource_handle, stamp_token, serialized_proto
        )


class _QuantileAccumulatorSaveable(SaveableObject):
    """The accumulator in a checkpoint: each stream's bucket boundaries."""

    def __init__(self, handle: Tensor, create_op: Operation, num_streams: int, name: str) -> None:
        boundaries = bt.boosted_trees_quantile_stream_resource_get_bucket_boundaries(
            handle, num_streams
        )
        specs = [
            SaveSpec(b, "", f"{name}_bucket_boundaries_{i}", b.dtype, handle.device)
            for i, b in enumerate(boundaries)
        ]
        super().__init__(handle, specs, name)
        self._handle = handle
        self._create_op = create_op

    def restore(self, restored_tensors: Any, restored_shapes: Any) -> Operation:
        with control_dependencies([self._create_op]):
            return bt.boosted_trees_quantile_stream_resource_deserialize(
                self._handle, bucket_boundaries=list(restored_tensors)
            )


class QuantileAccumulator:
    """Weighted quantile streams (one per float feature) whose flushed bucket boundaries are
    saved in checkpoints."""

    def __init__(
        self,
        epsilon: float,
        num_streams: int,
        num_quantiles: int,
        name: str | None = None,
        max_elements: Any = None,
    ) -> None:
        self._eps = epsilon
        self._num_streams = num_streams
        self._num_quantiles = num_quantiles
        with name_scope(name, "QuantileAccumulator") as scope:
            self._name = scope
            self.resource_handle = bt.boosted_trees_quantile_stream_resource_handle_op(
                container="", shared_name=scope, name=scope
            )
            self._init_op = bt.boosted_trees_create_quantile_stream_resource(
                self.resource_handle, self._eps, self._num_streams
            )
            is_initialized = self.is_initialized()
        resources.register_resource(self.resource_handle, self._init_op, is_initialized)
        self._saveable = _QuantileAccumulatorSaveable(
            self.resource_handle, self._init_op, self._num_streams, self.resource_handle.name
        )
        add_to_collection(GraphKeys.SAVEABLE_OBJECTS, self._saveable)

    @property
    def initializer(self) -> Operation:
        return self._init_op

    def is_initialized(self) -> Tensor:
        return bt.is_boosted_trees_quantile_stream_resource_initialized(self.resource_handle)

    @property
    def saveable(self) -> SaveableObject:
        return self._saveable

    def add_summaries(self, float_columns: Any, example_weights: Any) -> Operation:
        summaries = bt.boosted_trees_make_quantile_summaries(
            float_columns, example_weights, self._eps
        )
        return bt.boosted_trees_quantile_stream_resource_add_summaries(
            self.resource_handle, summaries
        )

    def flush(self) -> Operation:
        return bt.boosted_trees_quantile_stream_resource_flush(
            self.resource_handle, self._num_quantiles
        )

    def get_bucket_boundaries(self) -> list[Tensor]:
        return bt.boosted_trees_quantile_stream_resource_get_bucket_boundaries(
            self.resource_handle, self._num_streams
        )
