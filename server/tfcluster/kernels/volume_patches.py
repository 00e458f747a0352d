"""ExtractVolumePatches over xp: the window around each output voxel, walked tap by tap, each
tap one strided slice of the zero-padded input."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import errors
from tfcluster.framework.common_shapes import windowed_output_size
from tfcluster.kernels.common import Compute, invalid
from tfcluster.kernels.registry import kernel


def window(values: Any, key: str) -> tuple[int, int, int]:
    ints = [int(v) for v in values]
    if len(ints) != 5:
        raise invalid(f"{key} must have 5 entries, got {ints}")
    if ints[0] != 1 or ints[4] != 1:
        raise errors.UnimplementedError(
            None, None, f"Sliding {key} windows across the batch or depth dimension: {ints}"
        )
    return ints[1], ints[2], ints[3]


@kernel("ExtractVolumePatches")
def extract_volume_patches(node: Any, xp: Any) -> Compute:
    k = window(node.attrs["ksizes"], "ksizes")
    s = window(node.attrs["strides"], "strides")
    padding = str(node.attrs["padding"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        if x.ndim != 5:
            raise invalid(f"input must be 5-dimensional, got shape {list(x.shape)}")
        batch, depth = x.shape[0], x.shape[4]
        sizes = [windowed_output_size(x.shape[1 + d], k[d], s[d], 1, padding) for d in range(3)]
        outs = [n for n, _, _ in sizes]
        if min(outs) <= 0:
            shape = (batch, *(max(n, 0) for n in outs), k[0] * k[1] * k[2] * depth)
            return (xp.zeros(shape, x.dtype),)
        pads = ((0, 0), *((lo, hi) for _, lo, hi in sizes), (0, 0))
        padded = xp.pad(x, pads)
        taps = []
        for p in range(k[0]):
            for r in range(k[1]):
                for c in range(k[2]):
                    taps.append(
                        padded[
                            :,
                            p : p + (outs[0] - 1) * s[0] + 1 : s[0],
                            r : r + (outs[1] - 1) * s[1] + 1 : s[1],
                            c : c + (outs[2] - 1) * s[2] + 1 : s[2],
                        ]
                    )
        out = xp.stack(taps, axis=4)
        return (out.reshape(batch, *outs, k[0] * k[1] * k[2] * depth),)

    return compute
