"""Op definitions of TF's V1 checkpoint ops (kernels/checkpoint_v1.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_bundle import slices
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op


def _restore_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs["dt"], TensorShape(None))]


def _restore_slice_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    spec = tensor_util.constant_value(inputs[2])
    if spec is None:
        return [(attrs["dt"], TensorShape(None))]
    text = spec.item() if hasattr(spec, "item") else spec
    text = text.decode() if isinstance(text, bytes) else str(text)
    parsed = slices.parse_shape_and_slice(text)
    if parsed is None:
        return [(attrs["dt"], TensorShape(None))]
    full, extents = parsed
    return [(attrs["dt"], TensorShape([d if n < 0 else n for d, (_, n) in zip(full, extents)]))]


op_def_registry.register("Save", op_def_registry.no_outputs, stateful=True)
op_def_registry.register("SaveSlices", op_def_registry.no_outputs, stateful=True)
op_def_registry.register("Restore", _restore_infer, stateful=True)
op_def_registry.register("RestoreSlice", _restore_slice_infer, stateful=True)


def save_slices(
    filename: Any,
    tensor_names: Any,
    shapes_and_slices: Any,
    tensors: Sequence[Any],
    name: str | None = None,
) -> Operation:
    """A SaveSlices node: what TF's Saver(write_version=V1) saves with."""
    with name_scope(name, "SaveSlices") as scope:
        inputs = [
            convert_to_tensor(filename, dtype=dtypes.string, name="filename"),
            convert_to_tensor(tensor_names, dtype=dtypes.string, name="tensor_names"),
            convert_to_tensor(shapes_and_slices, dtype=dtypes.string, name="shapes_and_slices"),
        ]
        values = [convert_to_tensor(t) for t in tensors]
        attrs = {"T": [t.dtype.base_dtype for t in values]}
        return make_op("SaveSlices", [*inputs, *values], attrs, name=scope)


def sharded_filespec(basename: Any, num_shards: Any, name: str | None = None) -> Tensor:
    """basename-?????-of-<num_shards>: the name of a V1 checkpoint's shards together."""
    with name_scope(name, "ShardedFilespec") as scope:
        inputs = [
            convert_to_tensor(basename, dtype=dtypes.string, name="basename"),
            convert_to_tensor(num_shards, dtype=dtypes.int32, name="num_shards"),
        ]
        return make_op("ShardedFilespec", inputs, {}, name=scope).outputs[0]
