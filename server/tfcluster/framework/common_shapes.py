"""Shape arithmetic that op shape inference (ops/) and kernels (kernels/) both need.

It sits in framework, below both, as TF keeps GetWindowedOutputSize in its framework's
common shape functions, so a kernel never imports the op-building layer for a formula.
"""

from __future__ import annotations


def windowed_output_size(
    size: int, ksize: int, stride: int, dilation: int, padding: str
) -> tuple[int, int, int]:
    """TF's GetWindowedOutputSize: (output size, padding before, padding after)."""
    eff = (ksize - 1) * dilation + 1
    if padding == "VALID":
        return (size - eff + stride) // stride, 0, 0
    out = (size + stride - 1) // stride
    needed = max((out - 1) * stride + eff - size, 0)
    return out, needed // 2, needed - needed // 2
