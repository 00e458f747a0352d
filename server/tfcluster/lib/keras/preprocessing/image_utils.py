"""Images to and from arrays and files for tf.keras.preprocessing.image (keras_preprocessing 1.1
through TF 1.15's wrappers): load_img, img_to_array, array_to_img, save_img, and the directory
listing DirectoryIterator uses. Pillow does the decoding, resizing and encoding."""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Iterator as PyIterator
from typing import Any

import numpy as np
from PIL import Image

_RESAMPLE = {
    "nearest": Image.Resampling.NEAREST,
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "hamming": Image.Resampling.HAMMING,
    "box": Image.Resampling.BOX,
    "lanczos": Image.Resampling.LANCZOS,
}
_DATA_FORMATS = ("channels_first", "channels_last")


def _default_format(data_format: str | None) -> str:
    if data_format is None:
        from tfcluster.lib.keras import backend

        return backend.image_data_format()
    return data_format


def _default_dtype(dtype: Any) -> Any:
    if dtype is None:
        from tfcluster.lib.keras import backend

        return backend.floatx()
    return dtype


def array_to_img(
    x: Any, data_format: str | None = None, scale: bool = True, dtype: Any = None
) -> Image.Image:
    """One rank-3 array as a PIL image (L, I, RGB or RGBA), scaled to 0..255 unless scale=False."""
    data_format = _default_format(data_format)
    x = np.asarray(x, dtype=_default_dtype(dtype))
    if x.ndim != 3:
        raise ValueError(
            f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}"
        )
    if data_format not in _DATA_FORMATS:
        raise ValueError(f"Invalid data_format: {data_format}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        peak = np.max(x)
        if peak != 0:
            x /= peak
        x *= 255
    channels = x.shape[2]
    if channels == 4:
        return Image.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return Image.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:
            # 32-bit grayscale keeps values a uint8 would wrap.
            return Image.fromarray(x[:, :, 0].astype("int32"), "I")
        return Image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {channels}")


def img_to_array(img: Any, data_format: str | None = None, dtype: Any = None) -> np.ndarray:
    """A PIL image as a rank-3 array (a grayscale image gets a channel axis of 1)."""
    data_format = _default_format(data_format)
    if data_format not in _DATA_FORMATS:
        raise ValueError(f"Unknown data_format: {data_format}")
    x = np.asarray(img, dtype=_default_dtype(dtype))
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if data_format == "channels_first" else x
    if x.ndim == 2:
        shape = (1, *x.shape) if data_format == "channels_first" else (*x.shape, 1)
        return x.reshape(shape)
    raise ValueError(f"Unsupported image shape: {x.shape}")


def save_img(
    path: Any,
    x: Any,
    data_format: str | None = None,
    file_format: str | None = None,
    scale: bool = True,
    **kwargs: Any,
) -> None:
    img = array_to_img(x, data_format=_default_format(data_format), scale=scale, dtype="float32")
    if img.mode == "RGBA" and file_format in ("jpg", "jpeg"):
        warnings.warn(
            "The JPG format does not support RGBA images, converting to RGB.", stacklevel=2
        )
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


def load_img(
    path: Any,
    grayscale: bool = False,
    color_mode: str = "rgb",
    target_size: Any = None,
    interpolation: str = "nearest",
) -> Image.Image:
    """A PIL image read from path, converted to color_mode and resized (PIL's resample) to
    target_size = (height, width) when it differs."""
    if grayscale is True:
        warnings.warn('grayscale is deprecated. Please use color_mode = "grayscale"', stacklevel=2)
        color_mode = "grayscale"
    with open(path, "rb") as f:
        img: Image.Image = Image.open(io.BytesIO(f.read()))
    if color_mode == "grayscale":
        # 16- and 32-bit grayscale stay as they are.
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode == "rgba":
        if img.mode != "RGBA":
            img = img.convert("RGBA")
    elif color_mode == "rgb":
        if img.mode != "RGB":
            img = img.convert("RGB")
    else:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if target_size is not None:
        size = (target_size[1], target_size[0])
        if img.size != size:
            if interpolation not in _RESAMPLE:
                raise ValueError(
                    f"Invalid interpolation method {interpolation} specified. Supported methods "
                    f"are {', '.join(_RESAMPLE)}"
                )
            img = img.resize(size, _RESAMPLE[interpolation])
    return img


def _valid_files(directory: str, formats: tuple[str, ...], follow_links: bool) -> PyIterator:
    """(folder, file name) of every image under directory, folders and names in sorted order."""
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links), key=lambda w: w[0]):
        for fname in sorted(files):
            if fname.lower().endswith(".tiff"):
                warnings.warn(
                    'Using ".tiff" files with multiple bands will cause distortion. Please '
                    "verify your output.",
                    stacklevel=2,
                )
            if fname.lower().endswith(formats):
                yield root, fname


def list_class_files(
    directory: str,
    formats: tuple[str, ...],
    split: tuple[float, float] | None,
    class_index: int,
    follow_links: bool,
) -> tuple[list[int], list[str]]:
    """Labels and paths (relative to the parent, starting with the class folder) of one class's
    images; split keeps the files from int(lo * n) to int(hi * n)."""
    dirname = os.path.basename(directory)
    files = list(_valid_files(directory, formats, follow_links))
    if split:
        n = len(files)
        files = files[int(split[0] * n) : int(split[1] * n)]
    names = [
        os.path.join(dirname, os.path.relpath(os.path.join(root, f), directory))
        for root, f in files
    ]
    return [class_index] * len(names), names
