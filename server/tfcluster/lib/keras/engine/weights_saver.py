"""The graph TF 1.15's Keras builds to save a model's weights in TF's format (its
TrackableSaver with op caching, functional_saver.MultiDeviceSaver): two string constants fed
on every save (the object graph proto and the file prefix), one shard per device (sorted),
MergeV2Checkpoints, and an Identity of the prefix to run. The ops are built once per model and
again only when the object graph changes (an optimizer that made its slots since), so a
ModelCheckpoint saving every epoch adds ops to the graph as TF does: later ops get TF's
names and op seeds."""

from __future__ import annotations

import uuid
from typing import Any

from tfcluster.framework.graph import Tensor, control_dependencies, device
from tfcluster.ops import array_ops, constant_op, io_ops, state_ops
from tfcluster.ops.variables import is_resource_variable


def _saved_tensor(variable: Any) -> Tensor:
    """What TF's saveable reads: a resource variable's value read made with it (its
    _graph_element), a reference variable's value."""
    if is_resource_variable(variable):
        return variable._as_graph_element()  # type: ignore[no-any-return]
    return variable.value()  # type: ignore[no-any-return]


def _on_cpu(device_name: str) -> str:
    """saveable_object_util.set_cpu0: the same task's CPU 0."""
    from tfcluster.framework.device_spec import DeviceSpec

    spec = DeviceSpec.from_string(device_name).replace(device_type="CPU", device_index=0)
    return spec.to_string()


class CachedWeightsSaver:
    """One model's save graph; save() runs it with the proto and path fed."""

    def __init__(self) -> None:
        self._proto_feed: Tensor | None = None
        self._prefix_feed: Tensor | None = None
        self._last_proto: bytes | None = None
        self._save_op: Tensor | None = None
        self._restore_prefix: Tensor | None = None
        self._restore_ops: dict[str, Any] = {}
        self._graph: Any = None

    def _in(self, graph: Any) -> None:
        if self._graph is not graph:
            self.__init__()  # type: ignore[misc]
            self._graph = graph

    def save(self, session: Any, filepath: str, keys: dict[str, Any], proto: bytes) -> None:
        graph = session.graph
        self._in(graph)
        with graph.as_default():
            if self._proto_feed is None:
                with device("/cpu:0"):
                    self._proto_feed = constant_op.constant("", name="Const")
            if self._prefix_feed is None:
                with device("/cpu:0"):
                    self._prefix_feed = constant_op.constant("model", name="Const")
            if self._save_op is None or proto != self._last_proto:
                self._save_op = self._build(keys)
                self._last_proto = proto
        session.run(self._save_op, {self._proto_feed: proto, self._prefix_feed: filepath})

    def _build(self, keys: dict[str, Any]) -> Tensor:
        from tfcluster.lib.keras.engine.saving import OBJECT_GRAPH_KEY

        assert self._proto_feed is not None and self._prefix_feed is not None
        tensors = {name: _saved_tensor(v) for name, v in keys.items()}
        tensors[OBJECT_GRAPH_KEY] = self._proto_feed
        by_device: dict[str, list[tuple[str, Tensor]]] = {}
        for name, tensor in tensors.items():
            by_device.setdefault(tensor.device, []).append((name, tensor))
        prefix = self._prefix_feed
        with device("/cpu:0"):
            temp = io_ops.string_join([prefix, f"_temp_{uuid.uuid4().hex}/part"])
        num_shards = constant_op.constant(len(by_device), name="num_shards")
        saves = []
        shard_prefixes = []
        last_device = ""
        for shard, (place, named) in enumerate(sorted(by_device.items())):
            last_device = place
            with device(_on_cpu(place)):
                shard_prefix = io_ops.sharded_filename(temp, shard, num_shards)
            shard_prefixes.append(shard_prefix)
            with device(place), device("cpu:0"):
                saves.append(
                    io_ops.save_v2(
                        shard_prefix,
                        [n for n, _ in named],
                        [""] * len(named),
                        [t for _, t in named],
                    )
                )
        with control_dependencies(saves), device(_on_cpu(last_device)):
            merged = io_ops.merge_v2_checkpoints(shard_prefixes, prefix, delete_old_dirs=True)
        with device("/cpu:0"), control_dependencies([merged]):
            return array_ops.identity(prefix)  # type: ignore[no-any-return]

    def restore(self, session: Any, filepath: str, keys: dict[str, Any]) -> None:
        """Restores the variables of `keys` (checkpoint key -> variable, those the checkpoint
        has) as TF's CheckpointPosition builds it: a prefix constant fed with the path, each
        optimizer slot by a restore of its own (in the object graph's order), then every
        other variable from one RestoreV2 in key order, each through an Identity into an
        assign; restore ops built once per key and reused."""
        self.build_restore(session.graph, keys)
        ops = [self._restore_ops[k] for k in keys]
        if ops:
            session.run(ops, {self._restore_prefix: filepath})

    def build_restore(self, graph: Any, keys: dict[str, Any]) -> None:
        """The restore ops of `keys` not built yet (TF builds them before Keras's session
        initializes the model's new variables)."""
        self._in(graph)
        with graph.as_default():
            if self._restore_prefix is None:
                with device("/cpu:0"):
                    self._restore_prefix = constant_op.constant("model", name="Const")
            new = [k for k in keys if k not in self._restore_ops]
            slots = [k for k in new if _SLOT in k]
            for key in slots:
                self._build_restore([key], keys)
            rest = sorted(k for k in new if _SLOT not in k)
            if rest:
                self._build_restore(rest, keys)

    def _build_restore(self, names: list[str], keys: dict[str, Any]) -> None:
        with device("/cpu:0"):
            restored = io_ops.restore_v2(
                self._restore_prefix,
                names,
                [""] * len(names),
                [keys[n].dtype.base_dtype for n in names],
            )
        for name, tensor in zip(names, restored):
            variable = keys[name]
            with device(variable.device):
                value = array_ops.identity(tensor)
                # A model built in a tf.distribute strategy's scope holds MirroredVariables
                # of resource variables: their assign sets every replica's copy.
                if is_resource_variable(getattr(variable, "primary", variable)):
                    op = variable.assign(value, read_value=False)
                else:
                    op = state_ops.assign(variable._ref(), value).op
            self._restore_ops[name] = op


_SLOT = "/.OPTIMIZER_SLOT/"


class DeferredRestore:
    """TF 1.15's restore of weights an optimizer makes after load_weights: each is restored
    from the checkpoint as it is made (its own RestoreV2 in the scope it is made in), and the
    ops run at once."""

    def __init__(
        self,
        saver: CachedWeightsSaver,
        session: Any,
        filepath: str,
        has_key: Any,
        variable_keys: dict[int, str],
    ) -> None:
        self._saver = saver
        self._session = session
        self._filepath = filepath
        self._has_key = has_key
        self._variable_keys = variable_keys  # id(model variable) -> its key (no suffix)
        # An earlier load's restorations stay pending for what this checkpoint lacks (TF
        # keeps each object's deferred dependencies until a newer restore names them).
        self.previous: DeferredRestore | None = None

    def restore_weight(self, key: str, variable: Any) -> None:
        self._restore(key + _SUFFIX, variable)

    def restore_slot(self, var: Any, slot_name: str, slot: Any) -> None:
        owner = self._variable_keys.get(id(var))
        if owner is not None:
            self._restore(f"{owner}{_SLOT}optimizer/{slot_name}{_SUFFIX}", slot)

    def _restore(self, key: str, variable: Any) -> None:
        saver = self._saver
        if saver._graph is not self._session.graph:
            return
        if not self._has_key(key):
            if self.previous is not None:
                self.previous._restore(key, variable)
            return
        if key not in saver._restore_ops:
            saver._build_restore([key], {key: variable})
        self._session.run(saver._restore_ops[key], {saver._restore_prefix: self._filepath})


_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
