"""Op definitions of TF's V1 checkpoint ops (kernels/checkpoint_v1.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_bundle import slices
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs


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
