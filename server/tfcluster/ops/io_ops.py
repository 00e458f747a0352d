"""The checkpoint ops of TF's gen_io_ops (SaveV2, RestoreV2, MergeV2Checkpoints,
ShardedFilename); StringJoin, which the Saver's sharded save path uses, is string_ops'.

Their graph shape is TensorFlow's: a Saver's `save/` scope holds these nodes, named as TF
names them, so that a MetaGraphDef's SaverDef works in TensorFlow (and TF's in tfcluster).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import string_ops
from tfcluster.ops.op_util import Outputs, make_op


def _restore_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dt, TensorShape(None)) for dt in attrs["dtypes"]]


def _string_scalar(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.string, TensorShape([]))]


op_def_registry.register("SaveV2", op_def_registry.no_outputs, stateful=True)
op_def_registry.register("RestoreV2", _restore_infer, stateful=True)
op_def_registry.register("MergeV2Checkpoints", op_def_registry.no_outputs, stateful=True)
op_def_registry.register("ShardedFilename", _string_scalar)


def _strings(value: Any, name: str) -> Tensor:
    return convert_to_tensor(value, dtype=dtypes.string, name=name)


def save_v2(
    prefix: Any,
    tensor_names: Any,
    shape_and_slices: Any,
    tensors: Sequence[Any],
    name: str | None = None,
) -> Operation:
    with name_scope(name, "SaveV2") as scope:
        prefix_t = _strings(prefix, "prefix")
        names_t = _strings(tensor_names, "tensor_names")
        slices_t = _strings(shape_and_slices, "shape_and_slices")
        values = [convert_to_tensor(t) for t in tensors]
        attrs = {"dtypes": [t.dtype.base_dtype for t in values]}
        return make_op("SaveV2", [prefix_t, names_t, slices_t, *values], attrs, name=scope)


def restore_v2(
    prefix: Any,
    tensor_names: Any,
    shape_and_slices: Any,
    dtypes_: Sequence[Any],
    name: str | None = None,
) -> list[Tensor]:
    with name_scope(name, "RestoreV2") as scope:
        prefix_t = _strings(prefix, "prefix")
        names_t = _strings(tensor_names, "tensor_names")
        slices_t = _strings(shape_and_slices, "shape_and_slices")
        attrs = {"dtypes": [dtypes.as_dtype(d).base_dtype for d in dtypes_]}
        return make_op("RestoreV2", [prefix_t, names_t, slices_t], attrs, name=scope).outputs


def merge_v2_checkpoints(
    checkpoint_prefixes: Any,
    destination_prefix: Any,
    delete_old_dirs: bool = True,
    name: str | None = None,
) -> Operation:
    from tfcluster.ops import array_ops

    with name_scope(name, "MergeV2Checkpoints") as scope:
        if isinstance(checkpoint_prefixes, (list, tuple)) and any(
            isinstance(p, Tensor) for p in checkpoint_prefixes
        ):
            prefixes = array_ops.stack(list(checkpoint_prefixes), name="checkpoint_prefixes")
        else:
            prefixes = _strings(checkpoint_prefixes, "checkpoint_prefixes")
        dest = _strings(destination_prefix, "destination_prefix")
        attrs = {"delete_old_dirs": bool(delete_old_dirs)}
        return make_op("MergeV2Checkpoints", [prefixes, dest], attrs, name=scope)


def sharded_filename(basename: Any, shard: Any, num_shards: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "ShardedFilename") as scope:
        base = _strings(basename, "basename")
        shard_t = convert_to_tensor(shard, dtype=dtypes.int32, name="shard")
        num_t = convert_to_tensor(num_shards, dtype=dtypes.int32, name="num_shards")
        return make_op("ShardedFilename", [base, shard_t, num_t], {}, name=scope).outputs[0]


def static_regex_full_match(input: Any, pattern: str, name: str | None = None) -> Tensor:
    # TF 2.x's sharded Saver graph tests the prefix for "s3://" with StaticRegexFullMatch.
    return string_ops.regex_full_match(input, pattern, name=name)


def string_join(inputs: Sequence[Any], separator: str = "", name: str | None = None) -> Tensor:
    return string_ops.string_join(inputs, separator=separator, name=name)
