"""ScaleAndTranslate and its gradient (what tf.image.resize's lanczos / gaussian / cubic
methods and scale_and_translate build): each output pixel is a normalised, kernel-weighted sum
of the input pixels around the point it maps back to, separately along height and width. The
weights of one axis form a matrix (output x input), so the op is W_h . image . W_w^T per channel
and its gradient W_h^T . grad . W_w."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels.common import host_array, invalid, shape_str
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def _lanczos(radius: float) -> Callable[[np.ndarray], np.ndarray]:
    def f(x: np.ndarray) -> np.ndarray:
        px = np.float32(np.pi) * x
        with np.errstate(divide="ignore", invalid="ignore"):
            v = radius * np.sin(px) * np.sin(px / radius) / (px * px)
        v = np.where(x <= 1e-3, 1.0, v)
        return np.where(x > radius, 0.0, v)

    return f


def _gaussian(x: np.ndarray) -> np.ndarray:
    # Radius 1.5, a third of it the standard deviation.
    sigma = 0.5
    return np.where(x >= 1.5, 0.0, np.exp(-x * x / (2.0 * sigma * sigma)))


def _box(x: np.ndarray) -> np.ndarray:
    return np.where(x < 0.5, 1.0, np.where(x == 0.5, 0.5, 0.0))


def _triangle(x: np.ndarray) -> np.ndarray:
    return np.where(x < 1.0, 1.0 - x, 0.0)


def _keys_cubic(x: np.ndarray) -> np.ndarray:
    near = ((1.5 * x - 2.5) * x) * x + 1.0
    far = ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return np.where(x >= 2.0, 0.0, np.where(x >= 1.0, far, near))


def _mitchell_cubic(x: np.ndarray) -> np.ndarray:
    near = (7.0 / 6.0 * x - 2.0) * x * x + 8.0 / 9.0
    far = ((-7.0 / 18.0 * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0
    return np.where(x >= 2.0, 0.0, np.where(x >= 1.0, far, near))


# kernel_type -> (function of |distance|, radius)
KERNELS: dict[str, tuple[Callable[[np.ndarray], np.ndarray], float]] = {
    "lanczos1": (_lanczos(1.0), 1.0),
    "lanczos3": (_lanczos(3.0), 3.0),
    "lanczos5": (_lanczos(5.0), 5.0),
    "gaussian": (_gaussian, 1.5),
    "box": (_box, 1.0),
    "triangle": (_triangle, 1.0),
    "keyscubic": (_keys_cubic, 2.0),
    "mitchellcubic": (_mitchell_cubic, 2.0),
}


def _kernel_of(node: Any) -> tuple[Callable[[np.ndarray], np.ndarray], float]:
    name = node.attrs.get("kernel_type", "lanczos3")
    name = name.decode() if isinstance(name, bytes) else str(name)
    if name not in KERNELS:
        raise invalid(f"Unrecognized kernel type: {name}")
    return KERNELS[name]


@functools.lru_cache(maxsize=64)  # one step's shapes and scales recur every step
def weights(
    fn: Callable[[np.ndarray], np.ndarray],
    radius: float,
    out_size: int,
    in_size: int,
    scale: float,
    translate: float,
    antialias: bool,
) -> np.ndarray:
    """The (out_size, in_size) float32 matrix of one axis, as TF's span computation makes it:
    each output point maps back to sample = (x + 0.5) / scale - translate / scale; the inputs
    within the (downscaling-widened) radius are weighted and the weights normalised."""
    f32 = np.float32
    inv_scale = f32(1.0) / f32(scale)
    inv_translate = -inv_scale * f32(translate)
    kernel_scale = max(inv_scale, f32(1.0)) if antialias else f32(1.0)
    reach = f32(radius) * kernel_scale
    out = np.zeros((out_size, in_size), np.float32)
    for x in range(out_size):
        sample = (f32(x) + f32(0.5)) * inv_scale + inv_translate
        if sample < 0 or sample > in_size:
            continue
        start = math.ceil(sample - reach - f32(0.5))
        end = math.floor(sample + reach - f32(0.5))
        start = min(max(start, 0), in_size - 1)
        end = min(max(end, 0), in_size - 1) + 1
        pos = np.arange(start, end, dtype=np.float32) + f32(0.5) - sample
        w = fn(np.abs(pos * (f32(1.0) / kernel_scale)).astype(np.float32)).astype(np.float32)
        total = f32(0.0)
        for v in w:  # float32 sum in order, as TF's loop
            total = f32(total + v)
        if abs(total) >= 1000.0 * np.finfo(np.float32).tiny:
            out[x, start:end] = w * (f32(1.0) / total)
    return out


def _pair(value: Any, what: str) -> tuple[float, float]:
    v = host_array(value).reshape(-1)
    if v.size != 2:
        raise invalid(f"{what} must be a 1-D tensor of 2 elements: {shape_str(np.shape(value))}")
    return float(v[0]), float(v[1])


def _axis_weights(
    node: Any, out_hw: tuple[int, int], in_hw: tuple[int, int], ins: list[Any]
) -> Any:
    fn, radius = _kernel_of(node)
    antialias = bool(node.attrs.get("antialias", True))
    sy, sx = _pair(ins[0], "scale")
    ty, tx = _pair(ins[1], "translation")
    if sy <= 0 or sx <= 0:
        raise invalid(f"Scale must be greater than zero: [{sy}, {sx}]")
    wy = weights(fn, radius, out_hw[0], in_hw[0], sy, ty, antialias)
    wx = weights(fn, radius, out_hw[1], in_hw[1], sx, tx, antialias)
    return wy, wx


@kernel("ScaleAndTranslate", host=[1, 2, 3])
def scale_and_translate(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        images = xp.asarray(ins[0])
        if images.ndim != 4:
            raise invalid(f"input must be 4-dimensional{shape_str(images.shape)}")
        size = host_array(ins[1]).reshape(-1)
        if size.size != 2:
            raise invalid(f"shape_t must be 1-dimensional{shape_str(np.shape(ins[1]))}")
        out_h, out_w = int(size[0]), int(size[1])
        if out_h <= 0 or out_w <= 0:
            raise invalid("output dimensions must be positive")
        wy, wx = _axis_weights(node, (out_h, out_w), images.shape[1:3], ins[2:])
        x = images.astype(np.float32)
        out = xp.einsum("yh,bhwc,xw->byxc", xp.asarray(wy), x, xp.asarray(wx))
        return (out.astype(np.float32),)

    return compute


@kernel("ScaleAndTranslateGrad", host=[1, 2, 3])  # only the original image's shape is read
def scale_and_translate_grad(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        grads, original = xp.asarray(ins[0]), ins[1]
        if grads.ndim != 4 or len(np.shape(original)) != 4:
            raise invalid("input_grad and original_image must be 4-dimensional")
        in_hw = tuple(np.shape(original)[1:3])
        wy, wx = _axis_weights(node, grads.shape[1:3], in_hw, ins[2:])
        out = xp.einsum(
            "yh,byxc,xw->bhwc", xp.asarray(wy), grads.astype(np.float32), xp.asarray(wx)
        )
        return (out.astype(np.float32),)

    return compute
