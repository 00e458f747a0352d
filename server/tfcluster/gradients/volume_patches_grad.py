"""The gradient of ExtractVolumePatches: every patch element added back to the voxel it came
from. The patches of a volume of voxel numbers (0 for padding) say where; one ScatterNd sums."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.volume_patches_ops import extract_volume_patches


@RegisterGradient("ExtractVolumePatches")
def _extract_volume_patches_grad(op: Operation, grad: Tensor) -> Any:
    x = op.inputs[0]
    shape = array_ops.shape(x)
    batch, planes, rows, cols, depth = (shape[i] for i in range(5))
    count = planes * rows * cols
    numbers = array_ops.reshape(
        math_ops.range_cast_to(1, count + 1, dtype=dtypes.int64),
        array_ops.stack([1, planes, rows, cols, 1]),
    )
    where = extract_volume_patches(
        numbers, op._get_attr("ksizes"), op._get_attr("strides"), op._get_attr("padding")
    )
    where = array_ops.reshape(where, [-1, 1])
    per_patch = array_ops.transpose(
        array_ops.reshape(grad, array_ops.stack([batch, -1, depth])), [1, 0, 2]
    )
    target = array_ops.stack(
        [
            math_ops.cast(count, dtypes.int64) + 1,
            math_ops.cast(batch, dtypes.int64),
            math_ops.cast(depth, dtypes.int64),
        ]
    )
    summed = array_ops.scatter_nd(where, per_patch, target)
    # Row 0 gathered the padding; the rest are the voxels in order.
    voxels = array_ops.transpose(summed[1:], [1, 0, 2])
    return [array_ops.reshape(voxels, shape)]
