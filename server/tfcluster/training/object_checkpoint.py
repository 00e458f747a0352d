"""tf.train.Checkpoint and tf.train.CheckpointManager in graph mode: object-based checkpoints
(TF's training/tracking). A checkpoint holds each variable under the path of attribute names
that reaches it from the root ('model/dense/.ATTRIBUTES/VARIABLE_VALUE'), optimizer slots
under their variable ('v/.OPTIMIZER_SLOT/opt/m/.ATTRIBUTES/VARIABLE_VALUE'), and the object
graph itself, a TrackableObjectGraph proto, under '_CHECKPOINTABLE_OBJECT_GRAPH': the files
TF 1.15 writes and reads.

Trackable here: variables, tf.train optimizers (their non-slot variables by name, their
slots), Checkpoint objects (their attributes) and tf.train.experimental.PythonState objects
(their serialized string, 'counter/.ATTRIBUTES/py_state')."""

from __future__ import annotations

import collections
import glob
import os
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from tfcluster.framework import device_spec, dtypes, errors
from tfcluster.framework.default_session import get_default_session
from tfcluster.framework.graph import colocate_with, device, get_default_graph, init_scope
from tfcluster.framework.tensor_bundle import bundle, open_checkpoint
from tfcluster.ops.variables import Variable
from tfcluster.protos.trackable_object_graph_pb2 import TrackableObjectGraph
from tfcluster.training import checkpoint_management, training_util
from tfcluster.training.checkpoint_utils import _is_variable
from tfcluster.training.optimizer import Optimizer
from tfcluster.training.python_state import PY_STATE_KEY, PythonState

OBJECT_GRAPH_PROTO_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE_KEY = "VARIABLE_VALUE"
_ESCAPE = "."


def _escape(name: str) -> str:
    return name.replace(_ESCAPE, _ESCAPE + _ESCAPE).replace("/", _ESCAPE + "S")


def _is_trackable(x: Any) -> bool:
    return _is_variable(x) or isinstance(x, (Optimizer, Checkpoint, PythonState))


def _dependencies(obj: Any) -> list[tuple[str, Any]]:
    """(local name, object) of what obj checkpoints, in TF's order."""
    if isinstance(obj, Checkpoint):
        return list(obj._deps.items())
    if isinstance(obj, Optimizer):
        graph = get_default_graph()
        found = [(name, v) for (name, g), v in obj._non_slot_dict.items() if g is graph]
        return sorted(found, key=lambda kv: kv[0])
    return []


class _ObjectGraph:
    """The objects reachable from a root, breadth first, with their paths; then the slot
    variables of each optimizer among them."""

    def __init__(self, root: Any) -> None:
        self.objects: list[Any] = []
        self.paths: dict[int, tuple[str, ...]] = {id(root): ()}
        queue = collections.deque([root])
        while queue:
            obj = queue.popleft()
            self.objects.append(obj)
            for name, dep in _dependencies(obj):
                if id(dep) not in self.paths:
                    self.paths[id(dep)] = (*self.paths[id(obj)], name)
                    queue.append(dep)
        self.ids = {id(o): i for i, o in enumerate(self.objects)}
        self.keys = {id(o): "/".join(_escape(n) for n in self.paths[id(o)]) for o in self.objects}
        # optimizer index -> [(slot name, original node id, slot node id)]
        self.slots: dict[int, list[tuple[str, int, int]]] = {}
        originals = list(self.objects)
        for opt_id, opt in enumerate(originals):
            if not isinstance(opt, Optimizer):
                continue
            for slot_name in opt.get_slot_names():
                for var_id, var in enumerate(originals):
                    slot = opt.get_slot(var, slot_name) if _is_variable(var) else None
                    if slot is None:
                        continue
                    self.keys[id(slot)] = (
                        f"{self.keys[id(var)]}/{_ESCAPE}OPTIMIZER_SLOT/{self.keys[id(opt)]}/"
                        + _escape(slot_name)
                    )
                    self.ids[id(slot)] = len(self.objects)
                    self.objects.append(slot)
                    self.slots.setdefault(opt_id, []).append(
                        (slot_name, var_id, len(self.objects) - 1)
                    )

    def variables(self) -> Iterator[tuple[str, Any]]:
        for obj in self.objects:
            if _is_variable(obj):
                yield f"{self.keys[id(obj)]}/{_ESCAPE}ATTRIBUTES/{VARIABLE_VALUE_KEY}", obj

    def python_states(self) -> Iterator[tuple[str, PythonState]]:
        for obj in self.objects:
            if isinstance(obj, PythonState):
                yield _py_state_key(self.keys[id(obj)]), obj

    def proto(self) -> TrackableObjectGraph:
        graph = TrackableObjectGraph()
        for i, obj in enumerate(self.objects):
            node = graph.nodes.add()
            for name, dep in _dependencies(obj):
                node.children.add(node_id=self.ids[id(dep)], local_name=name)
            if _is_variable(obj):
                node.attributes.add(
                    name=VARIABLE_VALUE_KEY,
                    full_name=obj.op.name,
                    checkpoint_key=f"{self.keys[id(obj)]}/{_ESCAPE}ATTRIBUTES/{VARIABLE_VALUE_KEY}",
                )
            if isinstance(obj, PythonState):
                node.attributes.add(
                    name=PY_STATE_KEY, checkpoint_key=_py_state_key(self.keys[id(obj)])
                )
            for slot_name, var_id, slot_id in self.slots.get(i, []):
                node.slot_variables.add(
                    original_variable_node_id=var_id,
                    slot_name=slot_name,
                    slot_variable_node_id=slot_id,
                )
        return graph


def _py_state_key(object_key: str) -> str:
    return f"{object_key}/{_ESCAPE}ATTRIBUTES/{PY_STATE_KEY}"


def _string_scalar(value: Any) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value.encode() if isinstance(value, str) else bytes(value)
    return out


def _session(session: Any) -> Any:
    session = session or get_default_session()
    if session is None:
        raise ValueError(
            "Checkpoint in graph mode needs a session: pass session= or call it inside "
            "`with tf.Session():`."
        )
    return session


def _write(root: Any, file_prefix: str, session: Any) -> str:
    """One data shard per device of the variables (sorted by device name), the object graph
    last on the CPU's: the files TF's per-device saver writes."""
    view = _ObjectGraph(root)
    named = list(view.variables())
    values = session.run([v for _, v in named]) if named else []
    per_device: dict[str, list[bundle.TensorToSave]] = {}
    for (key, var), value in zip(named, values):
        shard = per_device.setdefault(device_spec.canonical_name(var.device), [])
        shard.append(bundle.TensorToSave(key, np.asarray(value)))
    serialized = np.empty((), dtype=object)
    serialized[()] = view.proto().SerializeToString()
    cpu = device_spec.canonical_name("/cpu:0")
    cpu_shard = per_device.setdefault(cpu, [])
    for key, state in view.python_states():
        cpu_shard.append(bundle.TensorToSave(key, _string_scalar(state.serialize())))
    cpu_shard.append(bundle.TensorToSave(OBJECT_GRAPH_PROTO_KEY, serialized))
    file_prefix = os.fspath(file_prefix)
    directory = os.path.dirname(file_prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    bundle.write_bundle(file_prefix, [per_device[d] for d in sorted(per_device)])
    return file_prefix


def _assign(var: Any, value: Any, session: Any) -> None:
    """Sets var to value through its initializer, without adding ops (the graph may be
    finalized): the value fed to the initializer's Assign, whatever made it (its initial
    value, or a warm start's read of a checkpoint)."""
    init = var.initializer
    if init.type == "Assign":
        session.run(init, {init.inputs[1]: value})
    else:
        var.load(value, session)


# ---- restore statuses ------------------------------------------------------------------------
class CheckpointLoadStatus:
    """What restore() matched; run_restore_ops assigns the matched variables. Matching is
    redone on each call, so objects made after restore() (optimizer slots) are found."""

    def __init__(self, root: Any, save_path: str) -> None:
        self._root = root
        self._save_path = save_path
        self._reader = open_checkpoint(save_path)
        self._graph = TrackableObjectGraph()
        self._graph.ParseFromString(_as_bytes(self._reader.get_tensor(OBJECT_GRAPH_PROTO_KEY)))
        self._python_restored: set[int] = set()
        self.restore_python_states()

    def restore_python_states(self) -> None:
        """Gives each matched PythonState its saved string, once: TF restores Python state
        when restore() matches it, or when a matching object is attached later."""
        for node_id, obj in self._match().items():
            if not isinstance(obj, PythonState) or id(obj) in self._python_restored:
                continue
            for attr in self._graph.nodes[node_id].attributes:
                if attr.name == PY_STATE_KEY:
                    self._python_restored.add(id(obj))
                    obj.deserialize(_as_bytes(self._reader.get_tensor(attr.checkpoint_key)))

    def _match(self) -> dict[int, Any]:
        """checkpoint node id -> the current object it restores."""
        nodes = self._graph.nodes
        matched: dict[int, Any] = {0: self._root}
        queue = collections.deque([0])
        while queue:
            node_id = queue.popleft()
            deps = dict(_dependencies(matched[node_id]))
            for child in nodes[node_id].children:
                dep = deps.get(child.local_name)
                if dep is not None and child.node_id not in matched:
                    matched[child.node_id] = dep
                    queue.append(child.node_id)
        for node_id, obj in list(matched.items()):
            if not isinstance(obj, Optimizer):
                continue
            for ref in nodes[node_id].slot_variables:
                var = matched.get(ref.original_variable_node_id)
                slot = None if var is None else obj.get_slot(var, ref.slot_name)
                if slot is not None:
                    matched[ref.slot_variable_node_id] = slot
        return matched

    def _restorations(self) -> list[tuple[Any, str]]:
        out = []
        for node_id, obj in self._match().items():
            if not _is_variable(obj):
                continue
            for attr in self._graph.nodes[node_id].attributes:
                if attr.name == VARIABLE_VALUE_KEY:
                    out.append((obj, attr.checkpoint_key))
        return out

    def assert_consumed(self) -> CheckpointLoadStatus:
        matched = self._match()
        for node_id, node in enumerate(self._graph.nodes):
            if node_id not in matched:
                raise AssertionError(f"Unresolved object in checkpoint {node_id}: {node}")
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        restored = {id(o) for o in self._match().values()}
        for obj in _ObjectGraph(self._root).objects:
            if id(obj) not in restored:
                raise AssertionError(f"Object not assigned a value from checkpoint: {obj}")
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        if len(self._match()) <= 1:
            unused = _ObjectGraph(self._root).objects[1:]
            raise AssertionError(
                "Nothing except the root object matched a checkpointed value. Typically this "
                "means that the checkpoint does not match the Python program. The following "
                f"objects have no matching checkpointed value: {unused}"
            )
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        session = _session(session)
        for var, key in self._restorations():
            _assign(var, self._reader.get_tensor(key), session)

    def initialize_or_restore(self, session: Any = None) -> None:
        session = _session(session)
        restored = {id(v) for v, _ in self._restorations()}
        self.run_restore_ops(session)
        fresh = [
            o.initializer
            for o in _ObjectGraph(self._root).objects
            if _is_variable(o) and id(o) not in restored
        ]
        if fresh:
            session.run(fresh)


class InitializationOnlyStatus:
    """restore(None): nothing to restore; initialize_or_restore initializes the variables."""

    def __init__(self, root: Any) -> None:
        self._root = root

    def _nothing(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    assert_consumed = assert_existing_objects_matched = assert_nontrivial_match = _nothing

    def run_restore_ops(self, session: Any = None) -> None:
        raise AssertionError(
            "No checkpoint specified, so no restore ops are available (save_path=None to "
            "Saver.restore)."
        )

    def expect_partial(self) -> InitializationOnlyStatus:
        return self

    def initialize_or_restore(self, session: Any = None) -> None:
        variables = [o.initializer for o in _ObjectGraph(self._root).objects if _is_variable(o)]
        if variables:
            _session(session).run(variables)


class NameBasedSaverStatus:
    """A name-based checkpoint (a tf.train.Saver's) restored into the objects: each variable
    from the key of its own name."""

    def __init__(self, root: Any, save_path: str) -> None:
        self._root = root
        self._reader = open_checkpoint(save_path)

    def _variables(self) -> list[Any]:
        return [o for o in _ObjectGraph(self._root).objects if _is_variable(o)]

    def assert_consumed(self) -> NameBasedSaverStatus:
        for v in self._variables():
            if not self._reader.has_tensor(v.op.name):
                raise AssertionError(f"Object not assigned a value from checkpoint: {v}")
        return self

    assert_existing_objects_matched = assert_consumed

    def assert_nontrivial_match(self) -> NameBasedSaverStatus:
        return self

    def expect_partial(self) -> NameBasedSaverStatus:
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        session = _session(session)
        variables = self._variables()
        for v in variables:
            if not self._reader.has_tensor(v.op.name):
                raise errors.NotFoundError(
                    None,
                    None,
                    "Restoring from checkpoint failed. This is most likely due to a Variable "
                    "name or other graph key that is missing from the checkpoint. Please "
                    "ensure that you have not altered the graph expected based on the "
                    f"checkpoint. Original error:\n\nKey {v.op.name} not found in checkpoint",
                )
        for v in variables:
            _assign(v, self._reader.get_tensor(v.op.name), session)

    def initialize_or_restore(self, session: Any = None) -> None:
        self.run_restore_ops(session)


def _as_bytes(value: Any) -> bytes:
    v = value.item() if isinstance(value, np.ndarray) else value
    return v if isinstance(v, bytes) else str(v).encode()


# ---- Checkpoint ------------------------------------------------------------------------------
class Checkpoint:
    """Groups trackable objects (variables, optimizers, other Checkpoints) under names, and
    saves and restores them by those names."""

    _deps: dict[str, Any]
    _save_counter: Any
    _save_assign_op: Any
    _load_statuses: list[CheckpointLoadStatus]

    def __init__(self, **kwargs: Any) -> None:
        object.__setattr__(self, "_deps", {})
        object.__setattr__(self, "_load_statuses", [])
        object.__setattr__(self, "_save_counter", None)
        object.__setattr__(self, "_save_assign_op", None)
        for name, value in sorted(kwargs.items(), key=lambda kv: kv[0]):
            if not _is_trackable(value):
                raise ValueError(
                    "`Checkpoint` was expecting a trackable object (an object derived from "
                    f"`TrackableBase`), got {value}. If you believe this object should be "
                    "trackable (i.e. it is part of the TensorFlow Python API and manages "
                    "state), please open an issue."
                )
            setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if not name.startswith("_") and _is_trackable(value):
            self._deps[name] = value
            for status in self._load_statuses:
                status.restore_python_states()  # a deferred restoration

    def _maybe_create_save_counter(self) -> None:
        if self._save_counter is None:
            # A resource variable, as TF 1.15's add_variable makes it (tf.saved_model.save
            # saves variables through their handles).
            with init_scope(), device("/cpu:0"):
                counter = Variable(
                    0, name="save_counter", dtype=dtypes.int64, trainable=False, use_resource=True
                )
            object.__setattr__(self, "_save_counter", counter)
            self._deps["save_counter"] = counter

    @property
    def save_counter(self) -> Any:
        """How many times save() ran (a variable, saved with the checkpoint)."""
        self._maybe_create_save_counter()
        return self._save_counter

    def write(self, file_prefix: str, session: Any = None) -> str:
        """Writes the checkpoint at exactly file_prefix (no counter, no 'checkpoint' file)."""
        return _write(self, file_prefix, _session(session))

    def save(self, file_prefix: str, session: Any = None) -> str:
        """Writes file_prefix-<save_counter> and records it in the directory's 'checkpoint'."""
        session = _session(session)
        if self._save_counter is None:
            session.run(self.save_counter.initializer)
        if self._save_assign_op is None:
            with colocate_with(self.save_counter):
                op = self.save_counter.assign_add(1, read_value=True)
            object.__setattr__(self, "_save_assign_op", op)
        number = session.run(self._save_assign_op)
        path = self.write(f"{os.fspath(file_prefix)}-{int(number)}", session=session)
        checkpoint_management.update_checkpoint_state(
            os.path.dirname(os.fspath(file_prefix)),
            path,
            [path],
            save_relative_paths=True,
        )
        return path

    def restore(self, save_path: str | None) -> Any:
        """A status whose run_restore_ops / initialize_or_restore assign the saved values
        (save_path None: initialize_or_restore only initializes)."""
        if save_path is None:
            status: Any = InitializationOnlyStatus(self)
        else:
            save_path = os.fspath(save_path)
            reader = open_checkpoint(save_path)
            if reader.has_tensor(OBJECT_GRAPH_PROTO_KEY):
                status = CheckpointLoadStatus(self, save_path)
                self._load_statuses.append(status)
            else:
                status = NameBasedSaverStatus(self, save_path)
        self._maybe_create_save_counter()
        return status


# ---- CheckpointManager -----------------------------------------------------------------------
class CheckpointManager:
    """Numbered saves of one Checkpoint in a directory, keeping the newest max_to_keep (and
    one every keep_checkpoint_every_n_hours), recorded in the directory's 'checkpoint'."""

    def __init__(
        self,
        checkpoint: Checkpoint,
        directory: str,
        max_to_keep: int | None,
        keep_checkpoint_every_n_hours: float | None = None,
        checkpoint_name: str = "ckpt",
    ) -> None:
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(
                "Expected a positive integer or `None` for `max_to_max_to_keep`, got "
                f"{max_to_keep}."
            )
        self._checkpoint = checkpoint
        self._save_counter_assign: Any = None
        self._max_to_keep = max_to_keep
        self._keep_every = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._prefix = os.path.join(self._directory, checkpoint_name)
        state = checkpoint_management.get_checkpoint_state(self._directory)
        now = time.time()
        self._maybe_delete: collections.OrderedDict[str, float] = collections.OrderedDict()
        if state is None:
            self._latest: str | None = None
            self._last_preserved = now - 1.0
        else:
            self._latest = state.model_checkpoint_path
            self._last_preserved = min(state.last_preserved_timestamp, now)
            paths = list(state.all_model_checkpoint_paths)
            stamps = list(state.all_model_checkpoint_timestamps) or [self._last_preserved] * len(
                paths
            )
            for path, stamp in zip(paths, stamps):
                stamp = min(stamp, now)
                if stamp > self._last_preserved:
                    self._maybe_delete[path] = stamp

    @property
    def latest_checkpoint(self) -> str | None:
        return self._latest

    @property
    def checkpoints(self) -> list[str]:
        """The kept checkpoints, oldest first."""
        return list(self._maybe_delete)

    def _sweep(self) -> None:
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            if self._keep_every and stamp - self._keep_every * 3600.0 >= self._last_preserved:
                self._last_preserved = stamp
                continue
            for f in [path + ".index", *glob.glob(path + ".data-?????-of-?????")]:
                if os.path.exists(f):
                    os.remove(f)

    def _record_state(self) -> None:
        assert self._latest is not None
        checkpoint_management.update_checkpoint_state(
            self._directory,
            self._latest,
            list(self._maybe_delete),
            all_model_checkpoint_timestamps=list(self._maybe_delete.values()),
            last_preserved_timestamp=self._last_preserved,
            save_relative_paths=True,
        )

    def save(self, checkpoint_number: Any = None) -> str:
        """Saves <directory>/<name>-<n>: n is checkpoint_number (an int, or a step variable
        or tensor, read) or else the checkpoint's save counter."""
        session = _session(None)
        fresh = self._checkpoint._save_counter is None
        counter = self._checkpoint.save_counter
        if fresh:
            session.run(counter.initializer)
        if self._save_counter_assign is None:
            self._save_counter_assign = counter.assign_add(1, read_value=False)
        session.run(self._save_counter_assign)
        if checkpoint_number is None:
            checkpoint_number = counter
        if not isinstance(checkpoint_number, (int, np.integer)):
            checkpoint_number = training_util.global_step(session, checkpoint_number)
        path = self._checkpoint.write(f"{self._prefix}-{int(checkpoint_number)}", session)
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest = path
        self._record_state()
        self._sweep()
        self._record_state()
        return path


__all__ = ["Checkpoint", "CheckpointManager"]
