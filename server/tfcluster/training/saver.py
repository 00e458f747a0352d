"""tf.train.Saver: TF 1.x checkpoints (format V2) of variables that may live on any task.

The graph a Saver adds is TensorFlow's, node for node (save/Const, save/SaveV2,
save/RestoreV2, save/Assign, save/restore_all, and for sharded=True one SaveV2 per device
and MergeV2Checkpoints), and its SaverDef names them: a MetaGraphDef written here works in
TensorFlow, and one written by TensorFlow works here.

How tfcluster runs them (client side): `save` reads the SaveV2 ops' inputs through the
session (the reads run where the variables live, on the ps) and writes the checkpoint from
the client process, byte for byte what SaveV2 + MergeV2Checkpoints would write; `restore`
reads the checkpoint in the client and feeds each RestoreV2 output, so the Assign ops run on
the tasks that hold the variables, in one step. Both work from any SaverDef, a Saver built
here or one imported with a MetaGraphDef. Files go to temporary names first and the index
last, and the `checkpoint` state file is updated after that: a crash at any point leaves the
previous checkpoint intact.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfcluster.framework import device_spec, dtypes, errors, internal_deprecations
from tfcluster.framework import meta_graph as meta_graph_lib
from tfcluster.framework.graph import (
    Graph,
    GraphKeys,
    Operation,
    Tensor,
    control_dependencies,
    convert_to_tensor,
    device,
    get_default_graph,
    name_scope,
)
from tfcluster.framework.proto_functions import register_proto_function
from tfcluster.framework.tensor_bundle import bundle, open_checkpoint, slices, v1_table
from tfcluster.protos import meta_graph_pb2, saver_pb2
from tfcluster.training import checkpoint_management as cm
from tfcluster.training.checkpoint_management import (
    checkpoint_exists,
    generate_checkpoint_state_proto,
    get_checkpoint_mtimes,
    get_checkpoint_state,
    latest_checkpoint,
    remove_checkpoint,
    update_checkpoint_state,
)
from tfcluster.training.checkpoint_utils import (
    NewCheckpointReader,
    list_variables,
    load_checkpoint,
    load_variable,
)

_log = logging.getLogger("tensorflow")
# What TF 1.15 logs at every save in the V1 checkpoint format.
_V1_FORMAT_DEPRECATION = (
    "*******************************************************",
    "TensorFlow's V1 checkpoint format has been deprecated.",
    "Consider switching to the more efficient V2 format:",
    "   `tf.train.Saver(write_version=tf.train.SaverDef.V2)`",
    "now on by default.",
    "*******************************************************",
)

_VARIABLE_OPS = ("Variable", "VariableV2", "AutoReloadVariable")


# ---- what a Saver saves ---------------------------------------------------------------------
@dataclass
class SaveSpec:
    """One tensor of a checkpoint: what to save, its key and slice spec ("" = whole)."""

    tensor: Tensor
    slice_spec: str
    name: str
    dtype: dtypes.DType
    device: str


class SaveableObject:
    """Something saved as one or more tensors and restored from them (a variable, or a
    partition of one)."""

    def __init__(self, op: Any, specs: Sequence[SaveSpec], name: str) -> None:
        self.op = op
        self.specs = list(specs)
        self.name = name

    @property
    def device(self) -> str:
        return self.specs[0].device

    def restore(self, restored_tensors: Sequence[Tensor], restored_shapes: Any) -> Operation:
        raise NotImplementedError


class ReferenceVariableSaveable(SaveableObject):
    """A TF1 (reference) variable or a slice of a partitioned one."""

    def __init__(self, var: Any, slice_spec: str, name: str) -> None:
        tensor = var if isinstance(var, Tensor) else convert_to_tensor(var)
        ref = var if isinstance(var, Tensor) else var._ref()
        spec = SaveSpec(tensor, slice_spec, name, ref.dtype.base_dtype, ref.device)
        super().__init__(var, [spec], name)
        self._ref = ref

    def restore(self, restored_tensors: Sequence[Tensor], restored_shapes: Any) -> Operation:
        from tfcluster.ops import array_ops, state_ops

        value = restored_tensors[0]
        if restored_shapes is not None:
            value = array_ops.reshape(value, restored_shapes[0])
        validate = restored_shapes is None and self._ref.shape.is_fully_defined()
        return state_ops.assign(self._ref, value, validate_shape=validate).op


class ResourceVariableSaveable(SaveableObject):
    """A resource variable: saved from a read of it, restored with AssignVariableOp (TF's
    ResourceVariableSaveable)."""

    def __init__(self, var: Any, slice_spec: str, name: str, copied_to_cpu: bool = False) -> None:
        handle = var._ref()
        # The variable's own read (TF saves its graph element), no new op.
        tensor = var._as_graph_element()
        # A partition's slice TF saves from a copy on its machine's CPU: a sharded Saver puts
        # it in that device's shard (apart from whole variables on no device).
        where = _set_cpu0(handle.device) if copied_to_cpu else handle.device
        spec = SaveSpec(tensor, slice_spec, name, var.dtype.base_dtype, where)
        super().__init__(var, [spec], name)
        self._var = var

    def restore(self, restored_tensors: Sequence[Tensor], restored_shapes: Any) -> Operation:
        from tfcluster.ops import array_ops

        value = restored_tensors[0]
        if restored_shapes is not None:
            value = array_ops.reshape(value, restored_shapes[0])
        with _on(self._var._ref().device):
            value = array_ops.identity(value)
            return self._var.assign(value, read_value=False)  # type: ignore[no-any-return]


def _on(device_name: str) -> Any:
    return device(device_name) if device_name else contextlib.nullcontext()


def _saveable_of(var: Any, slice_spec: str, name: str) -> SaveableObject:
    """The saveable of one partition of a partitioned variable."""
    if getattr(var, "_is_resource_variable", False):
        return ResourceVariableSaveable(var, slice_spec, name, copied_to_cpu=True)
    return ReferenceVariableSaveable(var, slice_spec, name)


def _is_variable(x: Any) -> bool:
    return hasattr(x, "_ref") and callable(x._ref) and hasattr(x, "initializer")


def _partitions(x: Any) -> list[Any] | None:
    """The variables of a partitioned variable (an object listing its parts), else None."""
    if hasattr(x, "_get_variable_list"):
        return list(x._get_variable_list())
    return None


def _tensor_comes_from_variable(t: Any) -> bool:
    return isinstance(t, Tensor) and t.op.type in _VARIABLE_OPS


def op_list_to_dict(op_list: Any, convert_variable_to_tensor: bool = True) -> dict[str, Any]:
    """Variables (a list) -> {checkpoint key: variable}: a variable's op name, a partitioned
    variable's full name for all its parts."""
    if not isinstance(op_list, (list, tuple, set)):
        raise TypeError(f"Variables to save should be passed in a dict or a list: {op_list}")
    out: dict[str, Any] = {}
    for var in sorted(op_list, key=lambda x: x.name):
        if isinstance(var, SaveableObject):
            out[var.name] = var
        elif hasattr(var, "_to_saveable") and not var._get_save_slice_info():
            # A variable with copies (tf.distribute's MirroredVariable): saved once, restored
            # into every copy.
            saveable = var._to_saveable()
            if saveable.name in out:
                raise ValueError(f"At least two variables have the same name: {saveable.name}")
            out[saveable.name] = saveable
        elif _partitions(var) is not None:
            if var.name in out:
                raise ValueError(f"At least two variables have the same name: {var.name}")
            out[var.name] = var
        elif _is_variable(var) and getattr(var, "_save_slice_info", None):
            full = var._save_slice_info.full_name
            if full in out:
                if not isinstance(out[full], list):
                    raise ValueError(f"Mixing slices and non-slices with the same name: {full}")
                out[full].append(var)
            else:
                out[full] = [var]
        elif getattr(var, "_is_resource_variable", False):
            name = var.op.name
            if name in out:
                raise ValueError(f"At least two variables have the same name: {name}")
            out[name] = var
        else:
            t = var._ref() if _is_variable(var) else var
            if convert_variable_to_tensor and not _tensor_comes_from_variable(t):
                raise TypeError(f"Variable to save is not a Variable: {var}")
            name = t.op.name
            if name in out:
                raise ValueError(f"At least two variables have the same name: {name}")
            out[name] = t
    return out


def _saveables_for(op: Any, name: str) -> list[SaveableObject]:
    if isinstance(op, SaveableObject):
        return [op]
    parts = op if isinstance(op, (list, tuple)) else _partitions(op)
    if parts is not None:
        out: list[SaveableObject] = []
        full_name = None
        for v in parts:
            info = getattr(v, "_save_slice_info", None)
            if not _is_variable(v):
                raise ValueError(f"Slices must all be Variables: {v}")
            if info is None:
                raise ValueError(f"Slices must all be slices: {v}")
            if full_name is None:
                full_name = info.full_name
            elif full_name != info.full_name:
                raise ValueError(
                    f"Slices must all be from the same tensor: {full_name} != {info.full_name}"
                )
            if hasattr(v, "_to_saveable"):  # a part with copies (tf.distribute)
                out.append(v._to_saveable(info.spec, name))
            else:
                out.append(_saveable_of(v, info.spec, name))
        return out
    if getattr(op, "_is_resource_variable", False):
        return [ResourceVariableSaveable(op, "", name)]
    t = op._ref() if _is_variable(op) else convert_to_tensor(op)
    if not _tensor_comes_from_variable(t):
        raise TypeError(
            "names_to_saveables must be a dict mapping string names to Tensors/Variables. "
            f"Not a variable: {t}"
        )
    return [ReferenceVariableSaveable(t, "", name)]


def validate_and_slice_inputs(names_to_saveables: Any) -> list[SaveableObject]:
    """The saveables of a var_list (list or dict), sorted by checkpoint key."""
    if not isinstance(names_to_saveables, Mapping):
        names_to_saveables = op_list_to_dict(names_to_saveables)
    saveables: list[SaveableObject] = []
    seen: set[int] = set()
    for name, op in sorted(names_to_saveables.items(), key=lambda kv: kv[0]):
        for s in _saveables_for(op, str(name)):
            key = id(s.op)
            if key in seen:
                raise ValueError(f"The same saveable will be restored with two names: {s.name}")
            seen.add(key)
            saveables.append(s)
    return saveables


def _set_cpu0(device_string: str) -> str:
    spec = device_spec.DeviceSpec.from_string(device_string)
    return spec.replace(device_type="CPU", device_index=0).to_string()


# ---- the graph of a Saver ---------------------------------------------------------------------
class BaseSaverBuilder:
    """Adds the save and restore ops of a Saver to the graph, as TF's builder does."""

    def __init__(self, write_version: int = saver_pb2.SaverDef.V2) -> None:
        if write_version not in (saver_pb2.SaverDef.V1, saver_pb2.SaverDef.V2):
            raise ValueError(f"Unexpected write_version: {write_version}")
        self._write_version = write_version

    def save_op(self, filename_tensor: Tensor, saveables: Sequence[SaveableObject]) -> Operation:
        from tfcluster.ops import io_ops

        specs = [spec for s in saveables for spec in s.specs]
        if self._write_version == saver_pb2.SaverDef.V1:
            from tfcluster.ops.checkpoint_v1_ops import save_slices

            return save_slices(
                filename_tensor,
                [s.name for s in specs],
                [s.slice_spec for s in specs],
                [s.tensor for s in specs],
            )
        return io_ops.save_v2(
            filename_tensor,
            [s.name for s in specs],
            [s.slice_spec for s in specs],
            [s.tensor for s in specs],
        )

    def bulk_restore(
        self,
        filename_tensor: Tensor,
        saveables: Sequence[SaveableObject],
        preferred_shard: int,
        restore_sequentially: bool,
    ) -> list[Tensor]:
        from tfcluster.ops import io_ops

        specs = [spec for s in saveables for spec in s.specs]
        # All read on CPU 0 of the device, as TF's BulkSaverBuilder does.
        with device("cpu:0"):
            return io_ops.restore_v2(
                filename_tensor,
                [s.name for s in specs],
                [s.slice_spec for s in specs],
                [s.dtype for s in specs],
            )

    def sharded_filename(self, filename_tensor: Tensor, shard: int, num_shards: Tensor) -> Tensor:
        from tfcluster.ops import io_ops

        return io_ops.sharded_filename(filename_tensor, shard, num_shards)

    def _add_save_ops(self, filename_tensor: Tensor, saveables: Sequence[SaveableObject]) -> Tensor:
        from tfcluster.ops.control_flow_ops import with_dependencies

        save = self.save_op(filename_tensor, saveables)
        return with_dependencies([save], filename_tensor)  # type: ignore[no-any-return]

    def _add_sharded_save_ops(
        self, checkpoint_prefix: Tensor, per_device: Sequence[tuple[str, list[SaveableObject]]]
    ) -> Tensor:
        from tfcluster.ops import array_ops, io_ops
        from tfcluster.ops.constant_op import constant

        if self._write_version == saver_pb2.SaverDef.V1:
            return self._add_sharded_v1_save_ops(checkpoint_prefix, per_device)
        # Shards go to <prefix>_temp_<uuid>/part-*, then MergeV2Checkpoints renames them.
        tmp_prefix = io_ops.string_join([checkpoint_prefix, f"_temp_{uuid.uuid4().hex}/part"])
        num_shards = constant(len(per_device), name="num_shards")
        sharded_saves = []
        sharded_prefixes = []
        last_device = ""
        for shard, (dev, saveables) in enumerate(per_device):
            last_device = dev
            with device(_set_cpu0(dev)):
                filename = self.sharded_filename(tmp_prefix, shard, num_shards)
                sharded_prefixes.append(filename)
                sharded_saves.append(self._add_save_ops(filename, saveables))
        with control_dependencies([x.op for x in sharded_saves]), device(_set_cpu0(last_device)):
            merge = io_ops.merge_v2_checkpoints(
                sharded_prefixes, checkpoint_prefix, delete_old_dirs=True
            )
            with control_dependencies([merge]):
                return array_ops.identity(checkpoint_prefix)

    def _add_sharded_v1_save_ops(
        self, filename_tensor: Tensor, per_device: Sequence[tuple[str, list[SaveableObject]]]
    ) -> Tensor:
        """V1: each device's shard is its own file <prefix>-0000i-of-0000n; the save tensor is
        their pattern (ShardedFilespec), as TF 1.15's builder makes it."""
        from tfcluster.ops.checkpoint_v1_ops import sharded_filespec
        from tfcluster.ops.constant_op import constant

        num_shards = constant(len(per_device), name="num_shards")
        saves = []
        for shard, (dev, saveables) in enumerate(per_device):
            with device(dev):
                filename = self.sharded_filename(filename_tensor, shard, num_shards)
                saves.append(self._add_save_ops(filename, saveables))
        with control_dependencies([x.op for x in saves]):
            return sharded_filespec(filename_tensor, num_shards)

    def _add_restore_ops(
        self,
        filename_tensor: Tensor,
        saveables: Sequence[SaveableObject],
        restore_sequentially: bool,
        reshape: bool,
        preferred_shard: int = -1,
        name: str = "restore_all",
    ) -> Operation:
        from tfcluster.ops import array_ops
        from tfcluster.ops.control_flow_ops import group

        all_tensors = self.bulk_restore(
            filename_tensor, saveables, preferred_shard, restore_sequentially
        )
        assigns = []
        i = 0
        for s in saveables:
            shapes = None
            if reshape:
                shapes = [
                    spec.tensor.shape
                    if spec.tensor.shape.is_fully_defined()
                    else array_ops.shape(spec.tensor)
                    for spec in s.specs
                ]
            assigns.append(s.restore(all_tensors[i : i + len(s.specs)], shapes))
            i += len(s.specs)
        return group(*assigns, name=name)

    def _add_sharded_restore_ops(
        self,
        filename_tensor: Tensor,
        per_device: Sequence[tuple[str, list[SaveableObject]]],
        restore_sequentially: bool,
        reshape: bool,
    ) -> Operation:
        from tfcluster.ops.control_flow_ops import group

        restores = []
        for shard, (dev, saveables) in enumerate(per_device):
            with device(dev):
                restores.append(
                    self._add_restore_ops(
                        filename_tensor,
                        saveables,
                        restore_sequentially,
                        reshape,
                        preferred_shard=shard,
                        name="restore_shard",
                    )
                )
        return group(*restores, name="restore_all")

    @staticmethod
    def _group_by_devices(
        saveables: Sequence[SaveableObject],
    ) -> list[tuple[str, list[SaveableObject]]]:
        per_device: dict[str, list[SaveableObject]] = {}
        for s in saveables:
            devices = {device_spec.canonical_name(spec.device) for spec in s.specs}
            if len(devices) != 1:
                raise ValueError(
                    f"All tensors of a saveable object must be on the same device: {s.name}"
                )
            per_device.setdefault(devices.pop(), []).append(s)
        return sorted(per_device.items(), key=lambda kv: kv[0])

    def build(
        self,
        names_to_saveables: Any,
        reshape: bool = False,
        sharded: bool = False,
        max_to_keep: int | None = 5,
        keep_checkpoint_every_n_hours: float = 10000.0,
        name: str | None = None,
        restore_sequentially: bool = False,
        filename: str = "model",
    ) -> saver_pb2.SaverDef:
        return self._build_internal(
            names_to_saveables,
            reshape=reshape,
            sharded=sharded,
            max_to_keep=max_to_keep,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            name=name,
            restore_sequentially=restore_sequentially,
            filename=filename,
        )

    def _build_internal(
        self,
        names_to_saveables: Any,
        reshape: bool = False,
        sharded: bool = False,
        max_to_keep: int | None = 5,
        keep_checkpoint_every_n_hours: float = 10000.0,
        name: str | None = None,
        restore_sequentially: bool = False,
        filename: str | None = "model",
        build_save: bool = True,
        build_restore: bool = True,
    ) -> saver_pb2.SaverDef:
        from tfcluster.ops import array_ops

        saveables = validate_and_slice_inputs(names_to_saveables)
        if max_to_keep is None:
            max_to_keep = 0
        with name_scope(name, "save", [s.op for s in saveables]):
            filename_tensor = array_ops.placeholder_with_default(
                filename or "model", shape=(), name="filename"
            )
            # TF keeps the name "Const" for the fed filename, for old SaverDefs.
            filename_tensor = array_ops.placeholder_with_default(
                filename_tensor, shape=(), name="Const"
            )
            if sharded:
                per_device = self._group_by_devices(saveables)
                save_tensor = self._add_sharded_save_ops(filename_tensor, per_device)
                restore_op = self._add_sharded_restore_ops(
                    filename_tensor, per_device, restore_sequentially, reshape
                )
            else:
                save_tensor = self._add_save_ops(filename_tensor, saveables)
                restore_op = self._add_restore_ops(
                    filename_tensor, saveables, restore_sequentially, reshape
                )
        return saver_pb2.SaverDef(
            filename_tensor_name=filename_tensor.name,
            save_tensor_name=save_tensor.name,
            restore_op_name=restore_op.name,
            max_to_keep=max_to_keep,
            sharded=sharded,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            version=self._write_version,
        )


# TF's aliases on the builder, for code that subclasses it.
BaseSaverBuilder.SaveSpec = SaveSpec  # type: ignore[attr-defined]
BaseSaverBuilder.SaveableObject = SaveableObject  # type: ignore[attr-defined]
BaseSaverBuilder.VariableSaveable = ReferenceVariableSaveable  # type: ignore[attr-defined]
BulkSaverBuilder = BaseSaverBuilder


# ---- reading a SaverDef's ops back from the graph ------------------------------------------
def _const_strings(t: Tensor, what: str) -> list[str]:
    if t.op.type != "Const":
        raise errors.UnimplementedError(
            None, None, f"The {what} of {t.op.name} must be a constant (it is a {t.op.type})"
        )
    values = np.asarray(t.op._get_attr("value"), dtype=object).reshape(-1)
    return [v.decode() if isinstance(v, bytes) else str(v) for v in values]


def _walk(graph: Graph, start: Operation, stop_types: tuple[str, ...]) -> list[Operation]:
    """The ops of types stop_types reachable backwards from `start` (not walked past)."""
    found: list[Operation] = []
    seen = {start}
    stack = [start]
    while stack:
        op = stack.pop()
        if op.type in stop_types:
            found.append(op)
            continue
        for nxt in [t.op for t in op.inputs] + list(op.control_inputs):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return sorted(found, key=lambda o: o.name)


@dataclass
class _SaveShard:
    save_op: Operation
    names: list[str]
    specs: list[str]
    tensors: list[Tensor]


def _save_shards(graph: Graph, saver_def: Any) -> list[_SaveShard]:
    """The SaveV2 ops of a SaverDef, in shard order (as MergeV2Checkpoints lists them)."""
    start = graph.as_graph_element(saver_def.save_tensor_name)
    start_op = start.op if isinstance(start, Tensor) else start
    found = _walk(graph, start_op, ("SaveV2", "MergeV2Checkpoints", "Save", "SaveSlices"))
    if any(op.type == "Save" for op in found):
        raise errors.UnimplementedError(
            None, None, "a Saver graph saving with Save (not SaveSlices) is not supported"
        )
    v1 = [op for op in found if op.type == "SaveSlices"]
    if v1:
        # V1 shards in the order of their ShardedFilename's shard number (none: one file).
        def shard_number(op: Operation) -> int:
            src = op.inputs[0].op
            if src.type != "ShardedFilename":
                return 0
            return int(_const_strings(src.inputs[1], "shard")[0])

        v1.sort(key=shard_number)
        return [
            _SaveShard(
                op,
                _const_strings(op.inputs[1], "tensor names"),
                _const_strings(op.inputs[2], "shapes_and_slices"),
                list(op.inputs[3:]),
            )
            for op in v1
        ]
    saves = [op for op in found if op.type == "SaveV2"]
    merges = [op for op in found if op.type == "MergeV2Checkpoints"]
    if merges:
        prefixes = merges[0].inputs[0].op
        order = list(prefixes.inputs) if prefixes.type == "Pack" else []

        def shard_of(op: Operation) -> int:
            t = op.inputs[0]
            return order.index(t) if t in order else len(order)

        saves.sort(key=shard_of)
    return [
        _SaveShard(
            op,
            _const_strings(op.inputs[1], "tensor names"),
            _const_strings(op.inputs[2], "shape_and_slices"),
            list(op.inputs[3:]),
        )
        for op in saves
    ]


def _missing_key(reader: Any, name: str, prefix: str) -> str:
    """What TF's reader of that checkpoint format says of a tensor it lacks."""
    if isinstance(reader, v1_table.V1Reader):
        return f'Tensor name "{name}" not found in checkpoint files {prefix}'
    return f"Key {name} not found in checkpoint"


def _restore_ops(graph: Graph, saver_def: Any) -> tuple[Operation, list[Operation]]:
    restore = graph.as_graph_element(saver_def.restore_op_name)
    restore_op = restore.op if isinstance(restore, Tensor) else restore
    found = _walk(graph, restore_op, ("RestoreV2", "Restore", "RestoreSlice"))
    legacy = [op for op in found if op.type != "RestoreV2"]
    if legacy:
        raise errors.UnimplementedError(
            None,
            None,
            f"{legacy[0].name}: a Saver graph restoring with {legacy[0].type} (TF before 1.0) "
            "is not supported; TF 1.x Savers restore with RestoreV2, which reads V1 files too",
        )
    return restore_op, found


def _wrap_restore_error(err: errors.OpError, verbiage: str) -> errors.OpError:
    message = (
        f"Restoring from checkpoint failed. This is most likely due to {verbiage} from the "
        "checkpoint. Please ensure that you have not altered the graph expected based on the "
        f"checkpoint. Original error:\n\n{err.message}"
    )
    return type(err)(err.node_def, err.op, message)


def _shape_checking_assigns(
    graph: Graph, restores: Sequence[Operation]
) -> dict[Tensor, list[Operation]]:
    """RestoreV2 output -> the Assign ops that take it and check shapes (one pass)."""
    outputs = {t for op in restores for t in op.outputs}
    found: dict[Tensor, list[Operation]] = {}
    for op in graph.get_operations():
        if (
            op.type == "Assign"
            and len(op.inputs) == 2
            and op.inputs[1] in outputs
            and op.attrs.get("validate_shape", True)
        ):
            found.setdefault(op.inputs[1], []).append(op)
    return found


def _check_assign_shape(
    assigns: Sequence[Operation], value: np.ndarray, key: str, ckpt: str
) -> None:
    """A value fed to a shape-checking Assign must have its variable's shape: else
    InvalidArgumentError naming the variable (TF names only the save/Assign node)."""
    for consumer in assigns:
        ref = consumer.inputs[0]
        if ref.shape.is_fully_defined() and list(value.shape) != ref.shape.as_list():
            raise errors.InvalidArgumentError(
                None,
                consumer,
                "Assign requires shapes of both tensors to match. lhs shape= "
                f"{ref.shape.as_list()} rhs shape= {list(value.shape)}: variable {ref.op.name} "
                f"has shape {ref.shape.as_list()} but checkpoint {ckpt} holds {key} with shape "
                f"{list(value.shape)} [[node {consumer.name}]]",
            )


# ---- tf.train.Saver ---------------------------------------------------------------------------
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
        write_version: int = saver_pb2.SaverDef.V2,
        pad_step_number: bool = False,
        save_relative_paths: bool = False,
        filename: str | None = None,
    ) -> None:
        if defer_build and var_list:
            raise ValueError(
                "If `var_list` is provided then build cannot be deferred. Either set "
                "defer_build=False or var_list=None."
            )
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially
        self.saver_def = saver_def
        self._builder = builder
        self._is_built = False
        self._allow_empty = allow_empty
        self._is_empty: bool | None = None
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._last_checkpoints: list[tuple[str, float]] = []
        self._checkpoints_to_be_deleted: list[tuple[str, float]] = []
        self._graph: Graph | None = None
        self._next_checkpoint_time = time.time() + keep_checkpoint_every_n_hours * 3600
        if not defer_build:
            self.build()
        if self.saver_def:
            self._check_saver_def()
            self._write_version = self.saver_def.version
        self._save_relative_paths = save_relative_paths

    # ---- graph -----------------------------------------------------------------------
    def build(self) -> None:
        if self._is_built:
            return
        self._is_built = True
        self._graph = get_default_graph()
        if not self.saver_def:
            if self._builder is None:
                self._builder = BulkSaverBuilder(self._write_version)
            if self._var_list is None:
                from tfcluster.ops.variables import global_variables

                self._var_list = global_variables() + self._graph.get_collection(
                    GraphKeys.SAVEABLE_OBJECTS
                )
            if not self._var_list:
                if self._allow_empty:
                    self._is_empty = True
                    return
                raise ValueError("No variables to save")
            self._is_empty = False
            self.saver_def = self._builder._build_internal(
                self._var_list,
                reshape=self._reshape,
                sharded=self._sharded,
                max_to_keep=self._max_to_keep,
                keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours,
                name=self._name,
                restore_sequentially=self._restore_sequentially,
                filename=self._filename,
            )
        elif self._name:
            sd = self.saver_def
            sd.filename_tensor_name = meta_graph_lib.prepend_name_scope(
                sd.filename_tensor_name, self._name
            )
            sd.save_tensor_name = meta_graph_lib.prepend_name_scope(sd.save_tensor_name, self._name)
            sd.restore_op_name = meta_graph_lib.prepend_name_scope(sd.restore_op_name, self._name)
        self._check_saver_def()
        self._next_checkpoint_time = (
            time.time() + self.saver_def.keep_checkpoint_every_n_hours * 3600
        )

    def _check_saver_def(self) -> None:
        if not isinstance(self.saver_def, saver_pb2.SaverDef):
            raise ValueError(f"saver_def must be a saver_pb2.SaverDef: {self.saver_def}")
        if not self.saver_def.save_tensor_name:
            raise ValueError(f"saver_def must specify the save_tensor_name: {self.saver_def}")
        if not self.saver_def.restore_op_name:
            raise ValueError(f"saver_def must specify the restore_op_name: {self.saver_def}")

    def as_saver_def(self) -> Any:
        return self.saver_def

    def to_proto(self, export_scope: str | None = None) -> Any:
        if export_scope is None:
            return self.saver_def
        sd = self.saver_def
        if not (
            sd.filename_tensor_name.startswith(export_scope)
            and sd.save_tensor_name.startswith(export_scope)
            and sd.restore_op_name.startswith(export_scope)
        ):
            return None
        out = saver_pb2.SaverDef()
        out.CopyFrom(sd)
        out.filename_tensor_name = meta_graph_lib.strip_name_scope(
            out.filename_tensor_name, export_scope
        )
        out.save_tensor_name = meta_graph_lib.strip_name_scope(out.save_tensor_name, export_scope)
        out.restore_op_name = meta_graph_lib.strip_name_scope(out.restore_op_name, export_scope)
        return out

    @staticmethod
    def from_proto(saver_def: Any, import_scope: str | None = None) -> Saver:
        return Saver(saver_def=saver_def, name=import_scope)

    # ---- checkpoints kept --------------------------------------------------------------
    @property
    def last_checkpoints(self) -> list[str]:
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints: Sequence[str]) -> None:
        if not isinstance(last_checkpoints, list):
            raise AssertionError("last_checkpoints must be a list")
        self._last_checkpoints = [(p, float("inf")) for p in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: Sequence[Any]) -> None:
        if not isinstance(last_checkpoints_with_time, list):
            raise AssertionError("last_checkpoints_with_time must be a list")
        self._last_checkpoints = [(p, float(t)) for p, t in last_checkpoints_with_time]

    def recover_last_checkpoints(self, checkpoint_paths: Sequence[str]) -> None:
        found = []
        for p in checkpoint_paths:
            internal_deprecations.called_internally(internal_deprecations.GET_CHECKPOINT_MTIMES)
            mtimes = get_checkpoint_mtimes([p])
            if mtimes:
                found.append((p, mtimes[0]))
        self.set_last_checkpoints_with_time(found)

    def _record_last_checkpoint(self, path: str) -> None:
        if not self.saver_def.max_to_keep:
            return
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != path]
        self._last_checkpoints.append((path, time.time()))
        if len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self, meta_graph_suffix: str = "meta") -> None:
        if not self._checkpoints_to_be_deleted:
            return
        path, t = self._checkpoints_to_be_deleted.pop(0)
        # One checkpoint every keep_checkpoint_every_n_hours is kept for good.
        if t > self._next_checkpoint_time:
            self._next_checkpoint_time += self.saver_def.keep_checkpoint_every_n_hours * 3600
            return
        try:
            internal_deprecations.called_internally(internal_deprecations.REMOVE_CHECKPOINT)
            remove_checkpoint(path, self.saver_def.version, meta_graph_suffix)
        except Exception as e:  # TF 1.15 logs any failure to delete and goes on
            _log.warning("Ignoring: %s", str(e))

    # ---- save ----------------------------------------------------------------------------
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
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = cm.STATE_FILENAME
        if self._write_version != saver_pb2.SaverDef.V2:
            for line in _V1_FORMAT_DEPRECATION:
                _log.warning(line)
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = os.fspath(save_path)
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                from tfcluster.training.training_util import global_step as read_step

                global_step = read_step(sess, global_step)
            step = int(global_step)
            checkpoint_file = (
                f"{save_path}-{step:08d}" if self._pad_step_number else f"{save_path}-{step}"
            )
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError(
                    f"'latest_filename' collides with 'save_path': '{latest_filename}' and "
                    f"'{save_path}'"
                )
        parent = os.path.dirname(save_path)
        model_checkpoint_path = None
        if not self._is_empty:
            self._ensure_directory(parent, save_path)
            model_checkpoint_path = self._write_checkpoint(sess, checkpoint_file)
            if write_state:
                self._record_last_checkpoint(model_checkpoint_path)
                update_checkpoint_state(
                    parent,
                    model_checkpoint_path,
                    self.last_checkpoints,
                    latest_filename,
                    save_relative_paths=self._save_relative_paths,
                )
                self._maybe_delete_old_checkpoints(meta_graph_suffix)
        if write_meta_graph:
            graph = getattr(sess, "graph", None) or get_default_graph()
            with graph.as_default():
                self.export_meta_graph(
                    cm.meta_graph_filename(checkpoint_file, meta_graph_suffix),
                    strip_default_attrs=strip_default_attrs,
                )
        return model_checkpoint_path

    def _ensure_directory(self, parent: str, save_path: str) -> None:
        """TF's SaveV2 makes the checkpoint's own directory (one level) when it is missing;
        a sharded save, or a deeper missing path, fails as TF's does."""
        if not parent or os.path.isdir(parent):
            return
        grandparent = os.path.dirname(parent) or "."
        if not self._sharded and os.path.isdir(grandparent):
            os.makedirs(parent, exist_ok=True)
            return
        raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")

    def _write_checkpoint(self, sess: Any, prefix: str) -> str:
        """Writes the checkpoint's files; returns the path save() reports (for sharded V1,
        the pattern of the shard files)."""
        graph = self._session_graph(sess)
        shards = _save_shards(graph, self.saver_def)
        fetches = [t for shard in shards for t in shard.tensors]
        values = sess.run(fetches) if fetches else []
        if shards and shards[0].save_op.type == "SaveSlices":
            return self._write_v1(prefix, shards, values)
        out: list[list[bundle.TensorToSave]] = []
        i = 0
        for shard in shards:
            tensors = []
            for name, spec in zip(shard.names, shard.specs):
                parsed = slices.parse_shape_and_slice(spec)
                if parsed is None:
                    tensors.append(bundle.TensorToSave(name, values[i]))
                else:
                    tensors.append(bundle.TensorToSave(name, values[i], *parsed))
                i += 1
            out.append(tensors)
        bundle.write_bundle(prefix, out)
        return prefix

    def _write_v1(self, prefix: str, shards: list[_SaveShard], values: list[Any]) -> str:
        sharded = shards[0].save_op.inputs[0].op.type == "ShardedFilename"
        i = 0
        for n, shard in enumerate(shards):
            items = []
            for name, spec in zip(shard.names, shard.specs):
                value = np.asarray(values[i])
                parsed = slices.parse_shape_and_slice(spec)
                if parsed is None:
                    full, extents = list(value.shape), tuple((0, -1) for _ in value.shape)
                else:
                    full, extents = parsed
                items.append(v1_table.SliceToSave(name, list(full), extents, value))
                i += 1
            path = f"{prefix}-{n:05d}-of-{len(shards):05d}" if sharded else prefix
            v1_table.write(path, items)
        return f"{prefix}-?????-of-{len(shards):05d}" if sharded else prefix

    def _session_graph(self, sess: Any) -> Graph:
        graph = getattr(sess, "graph", None)
        return graph if isinstance(graph, Graph) else (self._graph or get_default_graph())

    def export_meta_graph(
        self,
        filename: str | None = None,
        collection_list: Sequence[str] | None = None,
        as_text: bool = False,
        export_scope: str | None = None,
        clear_devices: bool = False,
        clear_extraneous_savers: bool = False,
        strip_default_attrs: bool = False,
        save_debug_info: bool = False,
    ) -> meta_graph_pb2.MetaGraphDef:
        return export_meta_graph(
            filename=filename,
            graph_def=get_default_graph().as_graph_def(add_shapes=True),
            saver_def=self.saver_def,
            collection_list=collection_list,
            as_text=as_text,
            export_scope=export_scope,
            clear_devices=clear_devices,
            clear_extraneous_savers=clear_extraneous_savers,
            strip_default_attrs=strip_default_attrs,
        )

    # ---- restore -------------------------------------------------------------------------
    def restore(self, sess: Any, save_path: str | None) -> None:
        """Assigns every variable of this Saver its value from the checkpoint at save_path."""
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        prefix = os.fspath(save_path)
        if not checkpoint_exists(prefix):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {prefix}")
        _log.info("Restoring parameters from %s", prefix)
        graph = self._session_graph(sess)
        restore_op, restores = _restore_ops(graph, self.saver_def)
        try:
            feeds = self._restore_feeds(graph, restores, prefix)
            sess.run(restore_op, feed_dict=feeds)
        except errors.NotFoundError as err:
            raise _wrap_restore_error(
                err, "a Variable name or other graph key that is missing"
            ) from None
        except errors.InvalidArgumentError as err:
            raise _wrap_restore_error(
                err, "a mismatch between the current graph and the graph"
            ) from None

    def _restore_feeds(
        self, graph: Graph, restores: Sequence[Operation], prefix: str
    ) -> dict[Any, Any]:
        reader = open_checkpoint(prefix)
        feeds: dict[Any, Any] = {}
        filename = self.saver_def.filename_tensor_name
        if filename:
            feeds[graph.as_graph_element(filename)] = prefix
        assigns = _shape_checking_assigns(graph, restores)
        for op in restores:
            names = _const_strings(op.inputs[1], "tensor names")
            specs = _const_strings(op.inputs[2], "shape_and_slices")
            for out, name, spec, dtype in zip(op.outputs, names, specs, op._get_attr("dtypes")):
                parsed = slices.parse_shape_and_slice(spec)
                if not reader.has_tensor(name):
                    raise errors.NotFoundError(
                        None, op, f"{_missing_key(reader, name, prefix)} [[node {op.name}]]"
                    )
                stored = reader.dtype_enum(name)
                if stored != dtype.as_datatype_enum:
                    raise errors.InvalidArgumentError(
                        None,
                        op,
                        f"tensor_name = {name}; expected dtype {dtype.name} does not equal "
                        f"original dtype {bundle.dtype_name(stored)} [[node {op.name}]]",
                    )
                value = (
                    reader.get_tensor(name)
                    if parsed is None
                    else reader.read_slice(name, parsed[1])
                )
                _check_assign_shape(assigns.get(out, ()), value, name, prefix)
                feeds[out] = value
        return feeds


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


# ---- MetaGraphDef --------------------------------------------------------------------------
def export_meta_graph(
    filename: str | None = None,
    meta_info_def: Any = None,
    graph_def: Any = None,
    saver_def: Any = None,
    collection_list: Sequence[str] | None = None,
    as_text: bool = False,
    graph: Graph | None = None,
    export_scope: str | None = None,
    clear_devices: bool = False,
    clear_extraneous_savers: bool = False,
    strip_default_attrs: bool = False,
    save_debug_info: bool = False,
    **kwargs: Any,
) -> meta_graph_pb2.MetaGraphDef:
    """tf.train.export_meta_graph: the graph, its collections and saver as a MetaGraphDef,
    written to `filename` when given."""
    mgd, _ = meta_graph_lib.export_scoped_meta_graph(
        filename=filename,
        meta_info_def=meta_info_def,
        graph_def=graph_def,
        saver_def=saver_def,
        collection_list=collection_list,
        as_text=as_text,
        graph=graph,
        export_scope=export_scope,
        clear_devices=clear_devices,
        clear_extraneous_savers=clear_extraneous_savers,
        strip_default_attrs=strip_default_attrs,
        **kwargs,
    )
    return mgd


def _import_meta_graph_with_return_elements(
    meta_graph_or_file: Any,
    clear_devices: bool = False,
    import_scope: str | None = None,
    return_elements: Sequence[str] | None = None,
    **kwargs: Any,
) -> tuple[Saver | None, list[Any] | None]:
    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        mgd = meta_graph_or_file
    else:
        mgd = meta_graph_lib.read_meta_graph_file(meta_graph_or_file)
    imported_vars, returned = meta_graph_lib.import_scoped_meta_graph_with_return_elements(
        mgd,
        clear_devices=clear_devices,
        import_scope=import_scope,
        return_elements=return_elements,
        **kwargs,
    )
    return _saver_from_imported_meta_graph(mgd, import_scope, imported_vars), returned


def _saver_from_imported_meta_graph(
    mgd: Any, import_scope: str | None, imported_vars: Mapping[str, Any]
) -> Saver | None:
    if mgd.HasField("saver_def"):
        scope = import_scope
        if imported_vars:
            key, var = next(iter(imported_vars.items()))
            scope = var.name[: -len(key)]
        saver_def = saver_pb2.SaverDef()
        saver_def.CopyFrom(mgd.saver_def)
        return Saver(saver_def=saver_def, name=scope)
    from tfcluster.ops.variables import global_variables

    if global_variables(import_scope) or get_default_graph().get_collection(
        GraphKeys.SAVEABLE_OBJECTS, import_scope
    ):
        return Saver()
    return None


def import_meta_graph(
    meta_graph_or_file: Any,
    clear_devices: bool = False,
    import_scope: str | None = None,
    **kwargs: Any,
) -> Saver | None:
    """tf.train.import_meta_graph: adds the MetaGraphDef's graph and collections to the
    default graph; returns a Saver from its saver_def (or over its variables), or None."""
    return _import_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices, import_scope, **kwargs
    )[0]


register_proto_function(
    GraphKeys.SAVERS,
    saver_pb2.SaverDef,
    lambda saver, export_scope=None: saver.to_proto(export_scope=export_scope),
    Saver.from_proto,
)

__all__ = [
    "BaseSaverBuilder",
    "BulkSaverBuilder",
    "NewCheckpointReader",
    "Saver",
    "checkpoint_exists",
    "export_meta_graph",
    "generate_checkpoint_state_proto",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "import_meta_graph",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "remove_checkpoint",
    "update_checkpoint_state",
]
