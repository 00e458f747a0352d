"""GPU comparison cases for the image kernels written over xp (resizes and their gradients,
colour, crop_and_resize and its gradients); gpu_op_cases imports them into CASES."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tfcluster as tf


def _images(seed: int = 11) -> Any:
    rng = np.random.default_rng(seed)
    return tf.constant(rng.uniform(0.0, 1.0, (2, 5, 6, 3)).astype(np.float32))


def _weighted_grad(y: Any, x: Any) -> Any:
    w = np.random.default_rng(3).uniform(0.5, 1.5, y.shape.as_list()).astype(np.float32)
    return tf.gradients(tf.reduce_sum(y * tf.constant(w)), x)[0]


def _resize(fn: Callable[..., Any]) -> Callable[[], Any]:
    def build() -> Any:
        from support.gpu_op_cases import Build

        x = _images()
        outs = [
            fn(x, [7, 4]),
            fn(x, [3, 9], align_corners=True),
        ]
        if fn is not tf.image.resize_area:
            outs.append(fn(x, [8, 8], half_pixel_centers=True))
            outs.append(_weighted_grad(outs[0], x))
            outs.append(_weighted_grad(outs[2], x))
        return Build(outs)

    return build


def _colour() -> Any:
    from support.gpu_op_cases import Build

    x = _images(5)
    return Build(
        [
            tf.image.rgb_to_hsv(x),
            tf.image.hsv_to_rgb(x),
            tf.image.adjust_hue(x, 0.3),
            tf.image.adjust_saturation(x, 1.7),
            tf.image.adjust_contrast(x, 0.6),
        ]
    )


def _crop_and_resize() -> Any:
    from support.gpu_op_cases import Build

    x = _images(9)
    boxes = tf.constant(np.array([[0, 0, 1, 1], [0.1, 0.2, 0.7, 1.2]], np.float32))
    y = tf.image.crop_and_resize(x, boxes, [0, 1], [4, 3], extrapolation_value=-1.0)
    nearest = tf.image.crop_and_resize(x, boxes, [1, 0], [2, 5], method="nearest")
    gx, gb = tf.gradients(tf.reduce_sum(y * y), [x, boxes])
    return Build([y, nearest, gx, gb])


def _patches() -> Any:
    from support.gpu_op_cases import Build

    x = _images(13)
    return Build(
        [
            tf.image.extract_image_patches(x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME"),
            tf.image.extract_image_patches(x, [1, 3, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "VALID"),
        ]
    )


CASES_IMAGE: dict[str, Callable[[], Any]] = {
    "ExtractImagePatches": _patches,
    "ResizeBilinear": _resize(tf.image.resize_bilinear),
    "ResizeBilinearGrad": _resize(tf.image.resize_bilinear),
    "ResizeNearestNeighbor": _resize(tf.image.resize_nearest_neighbor),
    "ResizeNearestNeighborGrad": _resize(tf.image.resize_nearest_neighbor),
    "ResizeBicubic": _resize(tf.image.resize_bicubic),
    "ResizeBicubicGrad": _resize(tf.image.resize_bicubic),
    "ResizeArea": _resize(tf.image.resize_area),
    "RGBToHSV": _colour,
    "HSVToRGB": _colour,
    "AdjustHue": _colour,
    "AdjustSaturation": _colour,
    "AdjustContrastv2": _colour,
    "CropAndResize": _crop_and_resize,
    "CropAndResizeGradImage": _crop_and_resize,
    "CropAndResizeGradBoxes": _crop_and_resize,
}
