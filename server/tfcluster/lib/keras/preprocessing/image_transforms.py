"""Array-level image augmentations of tf.keras.preprocessing.image (keras_preprocessing 1.1):
affine warps through scipy.ndimage.affine_transform, channel and brightness shifts.

The random_* functions draw from numpy's global generator in keras_preprocessing's order and
distributions, so a program that seeds np.random gets TF 1.15's images. Like it, they pass only
channel_axis on to apply_affine_transform (whose row/col axes stay 0 and 1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.lib.keras.preprocessing import image_utils


def _centered(matrix: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The transform about the image centre (keras offsets by size / 2 + 0.5)."""
    cx = float(rows) / 2 + 0.5
    cy = float(cols) / 2 + 0.5
    to_centre = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1]])
    from_centre = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]])
    return np.dot(np.dot(to_centre, matrix), from_centre)


def _compose(total: np.ndarray | None, step: np.ndarray) -> np.ndarray:
    return step if total is None else np.dot(total, step)


def apply_affine_transform(
    x: Any,
    theta: float = 0,
    tx: float = 0,
    ty: float = 0,
    shear: float = 0,
    zx: float = 1,
    zy: float = 1,
    row_axis: int = 0,
    col_axis: int = 1,
    channel_axis: int = 2,
    fill_mode: str = "nearest",
    cval: float = 0.0,
    order: int = 1,
) -> Any:
    """Rotates (degrees), shifts (pixels), shears (degrees) and zooms one image, each channel
    resampled by ndimage.affine_transform; returns x itself when every parameter is neutral."""
    total: np.ndarray | None = None
    if theta != 0:
        t = np.deg2rad(theta)
        total = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    if tx != 0 or ty != 0:
        total = _compose(total, np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        s = np.deg2rad(shear)
        total = _compose(total, np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        total = _compose(total, np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if total is None:
        return x
    # An unknown fill_mode is scipy's RuntimeError("boundary mode not supported"), as in keras.
    total = _centered(total, x.shape[row_axis], x.shape[col_axis])
    from scipy import ndimage  # imported on first warp: tf.keras loads without scipy

    channels = np.rollaxis(x, channel_axis, 0)
    warped = [
        ndimage.affine_transform(
            c, total[:2, :2], total[:2, 2], order=order, mode=fill_mode, cval=cval
        )
        for c in channels
    ]
    return np.rollaxis(np.stack(warped, axis=0), 0, channel_axis + 1)


def random_rotation(
    x: Any,
    rg: float,
    row_axis: int = 1,
    col_axis: int = 2,
    channel_axis: int = 0,
    fill_mode: str = "nearest",
    cval: float = 0.0,
    interpolation_order: int = 1,
) -> Any:
    theta = np.random.uniform(-rg, rg)
    return apply_affine_transform(
        x,
        theta=theta,
        channel_axis=channel_axis,
        fill_mode=fill_mode,
        cval=cval,
        order=interpolation_order,
    )


def random_shift(
    x: Any,
    wrg: float,
    hrg: float,
    row_axis: int = 1,
    col_axis: int = 2,
    channel_axis: int = 0,
    fill_mode: str = "nearest",
    cval: float = 0.0,
    interpolation_order: int = 1,
) -> Any:
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return apply_affine_transform(
        x,
        tx=tx,
        ty=ty,
        channel_axis=channel_axis,
        fill_mode=fill_mode,
        cval=cval,
        order=interpolation_order,
    )


def random_shear(
    x: Any,
    intensity: float,
    row_axis: int = 1,
    col_axis: int = 2,
    channel_axis: int = 0,
    fill_mode: str = "nearest",
    cval: float = 0.0,
    interpolation_order: int = 1,
) -> Any:
    shear = np.random.uniform(-intensity, intensity)
    return apply_affine_transform(
        x,
        shear=shear,
        channel_axis=channel_axis,
        fill_mode=fill_mode,
        cval=cval,
        order=interpolation_order,
    )


def random_zoom(
    x: Any,
    zoom_range: Any,
    row_axis: int = 1,
    col_axis: int = 2,
    channel_axis: int = 0,
    fill_mode: str = "nearest",
    cval: float = 0.0,
    interpolation_order: int = 1,
) -> Any:
    if len(zoom_range) != 2:
        raise ValueError(
            f"`zoom_range` should be a tuple or list of two floats. Received: {zoom_range}"
        )
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1.0, 1.0
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return apply_affine_transform(
        x,
        zx=zx,
        zy=zy,
        channel_axis=channel_axis,
        fill_mode=fill_mode,
        cval=cval,
        order=interpolation_order,
    )


def apply_channel_shift(x: Any, intensity: float, channel_axis: int = 0) -> np.ndarray:
    """Adds intensity to every channel, clipped to the image's own min and max."""
    channels = np.rollaxis(x, channel_axis, 0)
    lo, hi = np.min(channels), np.max(channels)
    shifted = np.stack([np.clip(c + intensity, lo, hi) for c in channels], axis=0)
    return np.rollaxis(shifted, 0, channel_axis + 1)


def random_channel_shift(x: Any, intensity_range: float, channel_axis: int = 0) -> np.ndarray:
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


def apply_brightness_shift(x: Any, brightness: float) -> np.ndarray:
    """PIL's ImageEnhance.Brightness on the image scaled to 0..255 (as keras does: the result is
    in that range whatever the input's)."""
    from PIL import ImageEnhance

    img = image_utils.array_to_img(x, data_format="channels_last", dtype="float32")
    img = ImageEnhance.Brightness(img).enhance(brightness)
    return image_utils.img_to_array(img, data_format="channels_last", dtype="float32")


def random_brightness(x: Any, brightness_range: Any) -> np.ndarray:
    if len(brightness_range) != 2:
        raise ValueError(
            f"`brightness_range should be tuple or list of two floats. Received: {brightness_range}"
        )
    u = np.random.uniform(brightness_range[0], brightness_range[1])
    return apply_brightness_shift(x, u)


def flip_axis(x: Any, axis: int) -> np.ndarray:
    return np.asarray(x).swapaxes(axis, 0)[::-1, ...].swapaxes(0, axis)
