"""The resources of TF's gradient boosted trees, kept in their task's ResourceMgr: the tree
ensemble (TF's TreeEnsemble proto with a stamp token) and the quantile stream (weighted quantile
summaries per feature, kernels/boosted_trees_quantiles.py). Their handle ops only name them;
Create* makes them, every other op looks them up and fails with NotFoundError when they are
not there, as TF's LookupResource does. This module also holds the ensemble's
create/serialize/deserialize/state ops."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.protos import boosted_trees_pb2 as bt_pb2

# TF's type names: the key suffix in the ResourceMgr (a name is per type, as in TF).
ENSEMBLE_TYPE = "N10tensorflow28BoostedTreesEnsembleResourceE"
QUANTILE_TYPE = "N10tensorflow31BoostedTreesQuantileStreamResourceE"


class TreeArrays:
    """One tree as flat arrays, for vectorised traversal: per node whether it is a leaf, its
    split (feature, threshold or category, children, kind) and its value (TF's node_value:
    the leaf's scalar, or the leaf a split node replaced, else 0)."""

    def __init__(self, tree: Any) -> None:
        n = len(tree.nodes)
        self.is_leaf = np.ones(n, dtype=bool)
        self.feature = np.zeros(n, dtype=np.int64)
        self.threshold = np.zeros(n, dtype=np.int64)
        self.left = np.zeros(n, dtype=np.int64)
        self.right = np.zeros(n, dtype=np.int64)
        self.categorical = np.zeros(n, dtype=bool)
        self.value = np.zeros(n, dtype=np.float32)
        for i, node in enumerate(tree.nodes):
            kind = node.WhichOneof("node")
            if kind == "leaf":
                self.value[i] = node.leaf.scalar
                continue
            self.is_leaf[i] = False
            if node.metadata.HasField("original_leaf"):
                self.value[i] = node.metadata.original_leaf.scalar
            if kind == "bucketized_split":
                s = node.bucketized_split
                self.threshold[i] = s.threshold
            elif kind == "categorical_split":
                s = node.categorical_split
                self.threshold[i] = s.value
                self.categorical[i] = True
            else:
                raise errors.UnimplementedError(
                    None, None, f"Node type {kind} not supported in tfcluster's boosted trees."
                )
            self.feature[i] = s.feature_id
            self.left[i] = s.left_id
            self.right[i] = s.right_id

    def walk(self, nodes: np.ndarray, rows: np.ndarray, features: np.ndarray) -> np.ndarray:
        """The leaves reached from `nodes` by the examples `rows` of features [F, batch]."""
        nodes = nodes.copy()
        while True:
            inner = ~self.is_leaf[nodes]
            if not inner.any():
                return nodes
            at = nodes[inner]
            f = self.feature[at]
            if f.size and int(f.max()) >= features.shape[0]:
                raise invalid(
                    f"The ensemble splits on feature {int(f.max())} but only "
                    f"{features.shape[0]} bucketized features were given"
                )
            got = features[f, rows[inner]]
            thr = self.threshold[at]
            go_left = np.where(self.categorical[at], got == thr, got <= thr)
            nodes[inner] = np.where(go_left, self.left[at], self.right[at])


class EnsembleResource:
    """TF's BoostedTreesEnsembleResource: a TreeEnsemble proto and its stamp token (-1 until
    initialized). Traversal arrays are rebuilt lazily after each change."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.stamp = -1
        self.ensemble = bt_pb2.TreeEnsemble()
        self._arrays: list[TreeArrays] | None = None

    # ---- whole-proto state ------------------------------------------------------------
    def init_from_serialized(self, serialized: bytes, stamp: int) -> bool:
        fresh = bt_pb2.TreeEnsemble()
        try:
            fresh.ParseFromString(serialized)
        except Exception:  # a DecodeError, or bytes protobuf refuses outright
            return False
        self.ensemble = fresh
        self.stamp = stamp
        self.changed()
        return True

    def reset(self) -> None:
        self.stamp = -1
        self.ensemble = bt_pb2.TreeEnsemble()
        self.changed()

    def serialize(self) -> bytes:
        return self.ensemble.SerializeToString(deterministic=True)

    def changed(self) -> None:
        self._arrays = None

    def arrays(self) -> list[TreeArrays]:
        if self._arrays is None:
            self._arrays = [TreeArrays(t) for t in self.ensemble.trees]
        return self._arrays

    # ---- TF's accessors ------------------------------------------------------------------
    @property
    def num_trees(self) -> int:
        return len(self.ensemble.trees)

    def is_finalized(self, tree_id: int) -> bool:
        return bool(self.ensemble.tree_metadata[tree_id].is_finalized)

    def node_value(self, tree_id: int, node_id: int) -> float:
        node = self.ensemble.trees[tree_id].nodes[node_id]
        if node.WhichOneof("node") == "leaf":
            return float(node.leaf.scalar)
        if node.metadata.HasField("original_leaf"):
            return float(node.metadata.original_leaf.scalar)
        return 0.0

    def tree_weights(self) -> np.ndarray:
        return np.asarray(self.ensemble.tree_weights, dtype=np.float32)


class QuantileStreamResource:
    """TF's BoostedTreesQuantileStreamResource: one weighted quantile stream per feature and,
    once flushed, each feature's bucket boundaries."""

    def __init__(self, epsilon: float, num_streams: int, max_elements: int) -> None:
        from tfcluster.kernels.boosted_trees_quantiles import QuantileStream

        self.lock = threading.RLock()
        self.epsilon = epsilon
        self.num_streams = num_streams
        self.max_elements = max_elements
        self.streams = [QuantileStream(epsilon, max_elements) for _ in range(num_streams)]
        self.boundaries: list[np.ndarray] = [
            np.zeros(0, dtype=np.float32) for _ in range(num_streams)
        ]
        self.are_buckets_ready = False

    def reset_streams(self) -> None:
        from tfcluster.kernels.boosted_trees_quantiles import QuantileStream

        self.streams = [QuantileStream(self.epsilon, self.max_elements) for _ in self.streams]


class BoostedTreesHandle:
    """The value of a DT_RESOURCE tensor naming an ensemble or a quantile stream."""

    __slots__ = ("container", "mgr", "name", "type_name")

    def __init__(self, mgr: Any, container: str, name: str, type_name: str) -> None:
        self.mgr = mgr
        self.container = container
        self.name = name
        self.type_name = type_name

    @property
    def key(self) -> str:
        return f"{self.name}/{self.type_name}"

    def get(self) -> Any:
        return self.mgr.get(self.container, self.key)

    def lookup(self) -> Any:
        found = self.get()
        if found is None:
            raise errors.NotFoundError(
                None,
                None,
                f"Resource {self.container or 'localhost'}/{self.name}/{self.type_name} does "
                "not exist.",
            )
        return found

    def create(self, factory: Any) -> Any:
        """The resource under this name, made by factory() when there is none (TF's
        CreateResource: a second create leaves the first one)."""
        return self.mgr.lookup_or_create(self.container, self.key, factory)


def handle_of(value: Any, type_name: str) -> BoostedTreesHandle:
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        value = value.item()
    if not isinstance(value, BoostedTreesHandle):
        raise invalid(f"Expected a boosted trees resource handle, got {type(value).__name__}")
    if value.type_name != type_name:
        raise invalid(
            f"Trying to access resource {value.name} located in device as {type_name}, but it "
            f"is a {value.type_name}"
        )
    return value


def ensemble_of(value: Any) -> EnsembleResource:
    found = handle_of(value, ENSEMBLE_TYPE).lookup()
    if not isinstance(found, EnsembleResource):
        raise invalid(f"Resource is not a tree ensemble ({type(found).__name__})")
    return found


def quantiles_of(value: Any) -> QuantileStreamResource:
    found = handle_of(value, QUANTILE_TYPE).lookup()
    if not isinstance(found, QuantileStreamResource):
        raise invalid(f"Resource is not a quantile stream ({type(found).__name__})")
    return found


def scalar(value: Any, what: str) -> Any:
    a = np.asarray(value)
    if a.ndim != 0:
        raise invalid(f"{what} must be a scalar, got a tensor of shape {list(a.shape)}")
    return a.item()


def _handle_kernel(type_name: str) -> Any:
    def factory(node: Any, xp: Any) -> Any:
        container = node.attrs.get("container", "") or ""
        shared = node.attrs.get("shared_name") or ""
        if isinstance(shared, bytes):
            shared = shared.decode()
        name = shared or node.name

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (BoostedTreesHandle(ctx.resources, container, name, type_name),)

        return compute

    return factory


kernel("BoostedTreesEnsembleResourceHandleOp", devices=CPU_ONLY)(_handle_kernel(ENSEMBLE_TYPE))
kernel("BoostedTreesQuantileStreamResourceHandleOp", devices=CPU_ONLY)(
    _handle_kernel(QUANTILE_TYPE)
)


def _bytes(value: Any) -> bytes:
    v = np.asarray(value)
    if v.ndim != 0:
        raise invalid(f"tree_ensemble_serialized must be a scalar, got shape {list(v.shape)}")
    item = v.item()
    return item if isinstance(item, bytes) else str(item).encode()


@kernel("BoostedTreesCreateEnsemble", devices=CPU_ONLY)
def create_ensemble(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        handle = handle_of(ins[0], ENSEMBLE_TYPE)
        stamp = int(scalar(ins[1], "stamp_token"))
        fresh = EnsembleResource()
        if not fresh.init_from_serialized(_bytes(ins[2]), stamp):
            raise invalid("Unable to parse tree ensemble proto.")
        handle.create(lambda: fresh)
        return ()

    return compute


@kernel("IsBoostedTreesEnsembleInitialized", devices=CPU_ONLY)
def is_ensemble_initialized(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        found = handle_of(ins[0], ENSEMBLE_TYPE).get()
        ready = isinstance(found, EnsembleResource) and found.stamp >= 0
        return (np.bool_(ready),)

    return compute


@kernel("BoostedTreesSerializeEnsemble", devices=CPU_ONLY)
def serialize_ensemble(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = ensemble_of(ins[0])
        with res.lock:
            return (np.int64(res.stamp), np.asarray(res.serialize(), dtype=object))

    return compute


@kernel("BoostedTreesDeserializeEnsemble", devices=CPU_ONLY)
def deserialize_ensemble(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = ensemble_of(ins[0])
        stamp = int(scalar(ins[1], "stamp_token"))
        data = _bytes(ins[2])
        with res.lock:
            res.reset()
            if not res.init_from_serialized(data, stamp):
                raise invalid("Unable to parse tree ensemble proto.")
        return ()

    return compute


@kernel("BoostedTreesGetEnsembleStates", devices=CPU_ONLY)
def get_ensemble_states(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = ensemble_of(ins[0])
        with res.lock:
            n = res.num_trees
            finalized = n if n <= 0 or res.is_finalized(n - 1) else n - 1
            meta = res.ensemble.growing_metadata
            # An empty ensemble's range is [0, 1): the root of the first tree.
            nodes_range = np.asarray(
                [meta.last_layer_node_start, max(1, meta.last_layer_node_end)], dtype=np.int32
            )
            return (
                np.int64(res.stamp),
                np.int32(n),
                np.int32(finalized),
                np.int32(meta.num_layers_attempted),
                nodes_range,
            )

    return compute
