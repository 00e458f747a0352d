"""ExtractImagePatches over xp: each output pixel holds the (dilated) window of the input
around it, flattened as (row tap, column tap, depth). The window is walked tap by tap, each
tap one strided slice of the zero-padded input, so every step is one array operation."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.common_shapes import windowed_output_size
from tfcluster.kernels.common import Compute, invalid
from tfcluster.kernels.registry import kernel


def _window(node: Any, key: str) -> tuple[int, int]:
    values = [int(v) for v in node.attrs[key]]
    if len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise invalid(
            f"{key} must be of the form [1, r, c, 1] (batch and depth not supported), got {values}"
        )
    return values[1], values[2]


@kernel("ExtractImagePatches")
def extract_image_patches(node: Any, xp: Any) -> Compute:
    kr, kc = _window(node, "ksizes")
    sr, sc = _window(node, "strides")
    rr, rc = _window(node, "rates")
    padding = str(node.attrs["padding"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        images = xp.asarray(ins[0])
        if images.ndim != 4:
            raise invalid(f"input must be 4-dimensional{list(images.shape)}")
        batch, rows, cols, depth = images.shape
        out_r, top, bottom = windowed_output_size(rows, kr, sr, rr, padding)
        out_c, left, right = windowed_output_size(cols, kc, sc, rc, padding)
        if out_r <= 0 or out_c <= 0:
            shape = (batch, max(out_r, 0), max(out_c, 0), kr * kc * depth)
            return (xp.zeros(shape, images.dtype),)
        padded = xp.pad(images, ((0, 0), (top, bottom), (left, right), (0, 0)))
        taps = []
        for i in range(kr):
            for j in range(kc):
                r0, c0 = i * rr, j * rc
                taps.append(
                    padded[
                        :, r0 : r0 + (out_r - 1) * sr + 1 : sr, c0 : c0 + (out_c - 1) * sc + 1 : sc
                    ]
                )
        out = xp.stack(taps, axis=3)
        return (out.reshape(batch, out_r, out_c, kr * kc * depth),)

    return compute
