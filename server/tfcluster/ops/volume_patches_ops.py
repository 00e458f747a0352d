"""tf.extract_volume_patches: extract_image_patches one dimension up. Each output voxel of a
[batch, planes, rows, cols, depth] input holds the window around it, flattened as
(plane tap, row tap, column tap, depth)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import op_def_registry
from tfcluster.framework.common_shapes import windowed_output_size
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.image_shapes import rank_dims
from tfcluster.ops.op_util import Outputs, make_op

_OP = "ExtractVolumePatches"


def window(values: Sequence[Any], key: str) -> tuple[int, int, int]:
    """The (planes, rows, cols) of a [1, p, r, c, 1] attribute (windows over batch or depth
    fail when the op runs, as TF's)."""
    ints = [int(v) for v in values]
    if len(ints) != 5:
        raise ValueError(f"{_OP}: {key} must have 5 entries, got {ints}")
    return ints[1], ints[2], ints[3]


def _infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    b, planes, rows, cols, depth = rank_dims(inputs[0].shape, 5, _OP, "input")
    k = window(attrs["ksizes"], "ksizes")
    s = window(attrs["strides"], "strides")
    padding = attrs["padding"]
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Unknown padding {padding!r} ({_OP})")
    out: list[int | None] = []
    for size, kk, ss in zip((planes, rows, cols), k, s):
        if size is None:
            out.append(None)
            continue
        n = windowed_output_size(size, kk, ss, 1, padding)[0]
        if n <= 0:
            raise ValueError(f"Negative dimension size caused by the window of {_OP} on {size}")
        out.append(n)
    patch = None if depth is None else k[0] * k[1] * k[2] * depth
    return [(inputs[0].dtype.base_dtype, TensorShape([b, *out, patch]))]


op_def_registry.register(_OP, _infer)


def extract_volume_patches(
    input: Any, ksizes: Any, strides: Any, padding: Any, name: str | None = None
) -> Tensor:
    """[batch, out_planes, out_rows, out_cols, kp * kr * kc * depth] patches of a 5-D input."""
    with name_scope(name, _OP, [input]) as scope:
        x = convert_to_tensor(input, name="input")
        pad = padding.decode() if isinstance(padding, bytes) else str(padding)
        attrs = {
            "T": x.dtype.base_dtype,
            "ksizes": [int(v) for v in ksizes],
            "strides": [int(v) for v in strides],
            "padding": pad,
        }
        return make_op(_OP, [x], attrs, name=scope).outputs[0]


__all__ = ["extract_volume_patches"]
