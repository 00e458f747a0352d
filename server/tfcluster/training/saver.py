"""tf.train.Saver: checkpoints of variables that may live on any task of a cluster.

How it works (client side): `save` fetches every variable's value through the session (the
reads run where the variables live, on the ps) and writes the files from the client process;
`restore` reads the files in the client and feeds them to Assign ops colocated with each
variable, in one step. Files are written atomically (temp file + rename, index last), and the
`checkpoint` state file is updated only after a checkpoint is complete, so a crash at any
point leaves the previous checkpoint intact and latest_checkpoint never names a partial one.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    colocate_with,
    get_default_graph,
    name_scope,
)
from tfcluster.ops import array_ops, state_ops
from tfcluster.ops.control_flow_ops import group, no_op
from tfcluster.ops.variables import PartitionedVariable, global_variables
from tfcluster.training import checkpoint_management as cm
from tfcluster.training.checkpoint_management import (
    checkpoint_exists,
    get_checkpoint_mtimes,
    get_checkpoint_state,
    latest_checkpoint,
    remove_checkpoint,
    update_checkpoint_state,
)

FORMAT = "tfcluster-checkpoint-v1"


class _Saveable:
    """One variable under its checkpoint key: how to read it and how to assign it."""

    def __init__(self, key: str, var: Any) -> None:
        self.key = key
        self.var = var
        ref = var._ref() if hasattr(var, "_ref") else var
        if not isinstance(ref, Tensor):
            raise TypeError(f"Saver can only save variables or tensors, got {var!r}")
        self.ref = ref
        self.dtype: dtypes.DType = ref.dtype.base_dtype
        self.value: Tensor = var.value() if hasattr(var, "value") else ref
        self.placeholder: Tensor | None = None
        self.assign: Operation | None = None


class _SlicedSaveable:
    """The shards of a partitioned variable, saved as one tensor of the full shape under the
    full name (as TF's checkpoints hold them) and restored shard by shard."""

    def __init__(self, key: str, shards: Sequence[Any]) -> None:
        self.key = key
        self.parts = [_Saveable(f"{key}@{i}", v) for i, v in enumerate(shards)]
        infos = [v._get_save_slice_info() for v in shards]
        self.full_shape = list(infos[0].full_shape)
        if any(list(i.full_shape) != self.full_shape for i in infos):
            raise ValueError(f"The slices of {key} disagree on its full shape")
        self.slices = [
            tuple(slice(o, o + n) for o, n in zip(i.var_offset, i.var_shape)) for i in infos
        ]
        self.dtype = self.parts[0].dtype

    def assemble(self, values: Sequence[Any]) -> np.ndarray:
        full = np.empty(self.full_shape, dtype=np.asarray(values[0]).dtype)
        for where, value in zip(self.slices, values):
            full[where] = value
        return full


def _op_list_to_dict(var_list: Any) -> dict[str, Any]:
    """checkpoint key -> a variable, or the list of shards of a partitioned variable (keyed by
    the full name in their save_slice_info, or given as a PartitionedVariable)."""
    if isinstance(var_list, Mapping):
        return {
            str(k): list(v) if isinstance(v, PartitionedVariable) else v
            for k, v in var_list.items()
        }
    out: dict[str, Any] = {}
    for v in var_list:
        shards = list(v) if isinstance(v, PartitionedVariable) else None
        info = v._get_save_slice_info() if hasattr(v, "_get_save_slice_info") else None
        if shards is not None:
            name = v.name
        elif info is not None:
            name, shards = info.full_name, [v]
        else:
            name = v.op.name
        if shards is not None:
            existing = out.setdefault(name, [])
            if not isinstance(existing, list):
                raise ValueError(f"Mixing slices and non-slices with the same name: {name}")
            existing.extend(s for s in shards if s not in existing)
            continue
        if name in out:
            raise ValueError(f"At least two variables have the same name: {name}")
        out[name] = v
    return out


def _encode(arrays: Mapping[str, np.ndarray]) -> tuple[bytes, dict[str, Any]]:
    """npz bytes of the tensors (strings as blob + lengths: no pickle) and their index entries."""
    payload: dict[str, np.ndarray] = {}
    entries: dict[str, Any] = {}
    for i, (key, value) in enumerate(arrays.items()):
        arr = np.asarray(value)
        entry: dict[str, Any] = {"slot": f"t{i}", "shape": list(arr.shape)}
        if arr.dtype == object:
            flat = [x if isinstance(x, bytes) else str(x).encode() for x in arr.reshape(-1)]
            payload[f"t{i}"] = np.frombuffer(b"".join(flat), dtype=np.uint8)
            payload[f"t{i}_len"] = np.array([len(x) for x in flat], dtype=np.int64)
            entry["dtype"] = "string"
        else:
            payload[f"t{i}"] = arr
            entry["dtype"] = dtypes.as_dtype(arr.dtype).name
        entries[key] = entry
    buf = io.BytesIO()
    np.savez(buf, **payload)  # type: ignore[arg-type]
    return buf.getvalue(), entries


def _decode(entry: Mapping[str, Any], data: Any) -> np.ndarray:
    slot = entry["slot"]
    if entry["dtype"] == "string":
        blob = data[slot].tobytes()
        lengths = data[slot + "_len"]
        out = np.empty(len(lengths), dtype=object)
        pos = 0
        for i, n in enumerate(lengths):
            out[i] = blob[pos : pos + int(n)]
            pos += int(n)
        return out.reshape(entry["shape"])
    return np.asarray(data[slot]).reshape(entry["shape"])


class CheckpointReader:
    """Reads one checkpoint (tf.train.NewCheckpointReader)."""

    def __init__(self, prefix: str) -> None:
        if not checkpoint_exists(prefix):
            raise errors.NotFoundError(
                None, None, f"Unsuccessful TensorSliceReader constructor: no checkpoint at {prefix}"
            )
        with open(prefix + cm.INDEX_SUFFIX, encoding="utf-8") as f:
            self._index = json.load(f)
        if self._index.get("format") != FORMAT:
            raise errors.DataLossError(
                None, None, f"{prefix}{cm.INDEX_SUFFIX} is not a tfcluster checkpoint index"
            )
        with open(prefix + cm.DATA_SUFFIX, "rb") as f:
            raw = f.read()
        if hashlib.sha256(raw).hexdigest() != self._index.get("data_sha256"):
            raise errors.DataLossError(
                None, None, f"Checksum mismatch in {prefix}{cm.DATA_SUFFIX}: the file is corrupt"
            )
        self._data = np.load(io.BytesIO(raw), allow_pickle=False)
        self._prefix = prefix

    def has_tensor(self, name: str) -> bool:
        return name in self._index["tensors"]

    def get_tensor(self, name: str) -> np.ndarray:
        entry = self._index["tensors"].get(name)
        if entry is None:
            raise errors.NotFoundError(
                None, None, f"Key {name} not found in checkpoint {self._prefix}"
            )
        return _decode(entry, self._data)

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        return {k: list(e["shape"]) for k, e in self._index["tensors"].items()}

    def get_variable_to_dtype_map(self) -> dict[str, dtypes.DType]:
        return {k: dtypes.as_dtype(e["dtype"]) for k, e in self._index["tensors"].items()}


def NewCheckpointReader(filepattern: str) -> CheckpointReader:
    return CheckpointReader(filepattern)


def _resolve(ckpt_dir_or_file: str) -> str:
    if os.path.isdir(ckpt_dir_or_file):
        found = latest_checkpoint(ckpt_dir_or_file)
        if found is None:
            raise ValueError(
                f"Couldn't find 'checkpoint' file or checkpoints in {ckpt_dir_or_file}"
            )
        return found
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return sorted(shapes.items())


class Saver:
    """Saves and restores variables; keeps the newest `max_to_keep` checkpoints."""

    def __init__(
        self,
        var_list: Any = None,
        reshape: bool = False,
        sharded: bool = False,
        max_to_keep: int | None = 5,
        keep_checkpoint_every_n_hours: float = 10000.0,
        name: str | None = None,
        restore_sequentially: bool = False,
        saver_def: Any = None,
        builder: Any = None,
        defer_build: bool = False,
        allow_empty: bool = False,
        write_version: Any = None,
        pad_step_number: bool = False,
        save_relative_paths: bool = False,
        filename: str | None = None,
    ) -> None:
        self._var_list = var_list
        self._max_to_keep = max_to_keep
        self._keep_every_secs = keep_checkpoint_every_n_hours * 3600.0
        self._next_keep_time = time.time() + self._keep_every_secs
        self._name = name
        self._allow_empty = allow_empty
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._filename = filename
        self._last_checkpoints: list[tuple[str, float]] = []
        self._to_delete: list[tuple[str, float]] = []
        self._saveables: list[_Saveable] = []
        self._sliced: list[_SlicedSaveable] = []
        self._restore_op: Operation | None = None
        self._graph: Any = None
        self._is_empty = False
        self._built = False
        if not defer_build:
            self.build()

    # ---- graph -----------------------------------------------------------------------
    def build(self) -> None:
        """Makes the restore ops (a feed and a colocated Assign per variable), once."""
        if self._built:
            return

        graph = get_default_graph()
        var_list = self._var_list
        if var_list is None:
            var_list = global_variables() + graph.get_collection(GraphKeys.SAVEABLE_OBJECTS)
        named = _op_list_to_dict(var_list)
        if not named:
            if not self._allow_empty:
                raise ValueError("No variables to save")
            self._is_empty = True
        self._sliced = [
            _SlicedSaveable(k, v) for k, v in sorted(named.items()) if isinstance(v, list)
        ]
        self._saveables = [
            _Saveable(k, v) for k, v in sorted(named.items()) if not isinstance(v, list)
        ]
        self._saveables += [part for sliced in self._sliced for part in sliced.parts]
        with name_scope(self._name, "save"):
            assigns = []
            for i, s in enumerate(self._saveables):
                with colocate_with(s.ref.op):
                    s.placeholder = array_ops.placeholder(
                        s.dtype, shape=s.ref.shape, name=f"restore_value_{i}"
                    )
                    s.assign = state_ops.assign(
                        s.ref, s.placeholder, validate_shape=s.ref.shape.is_fully_defined()
                    ).op
                assigns.append(s.assign)
            self._restore_op = (
                group(*assigns, name="restore_all") if assigns else no_op(name="restore_all")
            )
        self._graph = graph
        self._built = True

    @property
    def saver_def(self) -> Any:
        return None

    # ---- checkpoints -------------------------------------------------------------------
    @property
    def last_checkpoints(self) -> list[str]:
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints: Sequence[str]) -> None:
        if not isinstance(last_checkpoints, (list, tuple)):
            raise TypeError("last_checkpoints must be a list or a tuple")
        self._last_checkpoints = [(p, float("inf")) for p in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: Sequence[Any]) -> None:
        self._last_checkpoints = [(p, float(t)) for p, t in last_checkpoints_with_time]

    def recover_last_checkpoints(self, checkpoint_paths: Sequence[str]) -> None:
        existing = [p for p in checkpoint_paths if checkpoint_exists(p)]
        self.set_last_checkpoints_with_time(list(zip(existing, get_checkpoint_mtimes(existing))))

    def save(
        self,
        sess: Any,
        save_path: str,
        global_step: Any = None,
        latest_filename: str | None = None,
        meta_graph_suffix: str = "meta",
        write_meta_graph: bool = True,
        write_state: bool = True,
        strip_default_attrs: bool = False,
        save_debug_info: bool = False,
    ) -> str | None:
        """Writes a checkpoint at save_path (-global_step); returns its prefix."""
        self.build()
        if latest_filename is None:
            latest_filename = cm.STATE_FILENAME
        elif os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        if global_step is not None:
            step = (
                global_step if isinstance(global_step, (int, np.integer)) else sess.run(global_step)
            )
            fmt = "%s-%08d" if self._pad_step_number else "%s-%d"
            prefix = fmt % (save_path, int(step))
        else:
            prefix = save_path
        parent = os.path.dirname(save_path)
        if parent and not os.path.isdir(parent):
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        if self._is_empty:
            return None
        values = sess.run({s.key: s.value for s in self._saveables})
        for sliced in self._sliced:
            values[sliced.key] = sliced.assemble([values.pop(p.key) for p in sliced.parts])
        self._write(prefix, dict(sorted(values.items())))
        if write_meta_graph:
            cm.atomic_write(
                f"{prefix}.{meta_graph_suffix}",
                self._graph.as_graph_def().SerializeToString(),
            )
        if write_state:
            self._record_last_checkpoint(prefix)
            update_checkpoint_state(
                parent or ".",
                prefix,
                self.last_checkpoints,
                latest_filename,
                [t for _, t in self._last_checkpoints],
            )
            self._delete_old_checkpoints(meta_graph_suffix)
        return prefix

    def _write(self, prefix: str, values: Mapping[str, Any]) -> None:
        data, entries = _encode(values)
        index = {
            "format": FORMAT,
            "data_sha256": hashlib.sha256(data).hexdigest(),
            "tensors": entries,
        }
        # Data first, index last: the index is what makes the checkpoint exist.
        cm.atomic_write(prefix + cm.DATA_SUFFIX, data)
        cm.atomic_write(prefix + cm.INDEX_SUFFIX, json.dumps(index).encode())

    def _record_last_checkpoint(self, prefix: str) -> None:
        """Appends prefix; what falls off the end of max_to_keep is queued for deletion."""
        if not self._max_to_keep:
            self._last_checkpoints = [(prefix, time.time())]
            return
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != prefix]
        self._last_checkpoints.append((prefix, time.time()))
        while len(self._last_checkpoints) > self._max_to_keep:
            self._to_delete.append(self._last_checkpoints.pop(0))

    def _delete_old_checkpoints(self, meta_graph_suffix: str) -> None:
        """Deletes the queued checkpoints (after the state file stopped naming them)."""
        while self._to_delete:
            p, t = self._to_delete.pop(0)
            # Every keep_checkpoint_every_n_hours one checkpoint is kept for good.
            if t > self._next_keep_time:
                self._next_keep_time += self._keep_every_secs
                continue
            remove_checkpoint(p, meta_graph_suffix)

    def restore(self, sess: Any, save_path: str | None) -> None:
        """Assigns every variable its value from the checkpoint at save_path."""
        self.build()
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if not checkpoint_exists(save_path):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        if self._is_empty:
            return
        reader = CheckpointReader(save_path)
        feeds: dict[Tensor, Any] = {}
        stored = {s.key: reader.get_tensor(s.key) for s in self._saveables if "@" not in s.key}
        for sliced in self._sliced:
            full = reader.get_tensor(sliced.key)
            if list(full.shape) != sliced.full_shape:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Restoring from checkpoint failed: the shape of {sliced.key} in the "
                    f"checkpoint {list(full.shape)} does not match the partitioned variable's "
                    f"shape {sliced.full_shape}",
                )
            for part, where in zip(sliced.parts, sliced.slices):
                stored[part.key] = full[where]
        for s in self._saveables:
            value = stored[s.key]
            want = s.ref.shape
            if want.is_fully_defined() and list(value.shape) != want.as_list():
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Restoring from checkpoint failed: the shape of {s.key} in the checkpoint "
                    f"{list(value.shape)} does not match the variable's shape {want.as_list()}",
                )
            if s.dtype is not dtypes.string:
                value = value.astype(s.dtype.as_numpy_dtype, copy=False)
            assert s.placeholder is not None
            feeds[s.placeholder] = value
        sess.run(self._restore_op, feed_dict=feeds)


def _get_saver_or_default() -> Saver | None:
    """The graph's one Saver in the SAVERS collection, or a new one added there."""
    savers = get_default_graph().get_collection(GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(
                "More than one item in collection savers. Please indicate which one to use by "
                "passing it to the constructor."
            )
        return savers[0]  # type: ignore[no-any-return]
    saver = Saver(sharded=True, allow_empty=True)
    get_default_graph().add_to_collection(GraphKeys.SAVERS, saver)
    return saver


__all__ = [
    "CheckpointReader",
    "NewCheckpointReader",
    "Saver",
    "checkpoint_exists",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "remove_checkpoint",
    "update_checkpoint_state",
]
