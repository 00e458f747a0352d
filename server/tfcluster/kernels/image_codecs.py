"""Image codec kernels (CPU only, as TF): DecodeJpeg, DecodeAndCropJpeg, DecodePng, DecodeGif,
DecodeBmp, DecodeImage, EncodeJpeg, EncodeJpegVariableQuality, EncodePng, ExtractJpegShape.

The pixel work is done by codec libraries (kernels only check arguments, pick the format and
shape the result): JPEG through simplejpeg, which drives libjpeg-turbo with TF's own choices
(TF decodes with the fast integer DCT and fancy upsampling, a combination Pillow cannot ask
for; so decoded pixels are TF's to the bit); PNG, GIF and BMP through Pillow. Like TF 1.15,
DecodeJpeg, DecodePng and DecodeGif decode any of JPEG, PNG and GIF by content. PNGs are written
as TF's libpng writes them (png_writing).
"""

from __future__ import annotations

import io
import struct
import zlib
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import png_writing
from tfcluster.kernels.common import Compute, host_ints, invalid
from tfcluster.kernels.png_rows import decode_png_rows
from tfcluster.kernels.registry import CPU_ONLY, kernel

JPEG_MAGIC = b"\xff\xd8\xff"
PNG_MAGIC = png_writing.PNG_MAGIC
GIF_MAGIC = b"GIF8"
BMP_MAGIC = b"BM"


def _pillow() -> Any:
    from PIL import Image  # imported on first use: task servers that never decode skip it

    return Image


def _simplejpeg() -> Any:
    import simplejpeg

    return simplejpeg


def classify(data: bytes) -> str:
    if data.startswith(JPEG_MAGIC):
        return "JPEG"
    if data.startswith(PNG_MAGIC):
        return "PNG"
    if data.startswith(GIF_MAGIC):
        return "GIF"
    if data.startswith(BMP_MAGIC):
        return "BMP"
    return ""


def describe(data: bytes) -> str:
    """TF's FileFormatString for an unknown format."""
    if not data:
        return "empty file"
    escaped = data[:16].decode("latin-1").encode("unicode_escape").decode("ascii")
    return f"unknown format starting with '{escaped}'"


def _contents(value: Any) -> bytes:
    arr = np.asarray(value, dtype=object)
    if arr.ndim != 0:
        raise invalid(f"contents must be scalar, got shape {list(arr.shape)}")
    data = arr.item()
    return data.encode() if isinstance(data, str) else bytes(data)


def _channels(node: Any) -> int:
    channels = int(node.attrs.get("channels", 0))
    if channels not in (0, 1, 3, 4):
        raise invalid(f"channels must be 0, 1, 3, or 4, got {channels}")
    return channels


def _str_attr(node: Any, name: str, default: str = "") -> str:
    value = node.attrs.get(name, default)
    return value.decode() if isinstance(value, bytes) else str(value)


# ---- JPEG ----------------------------------------------------------------------------------
class JpegFlags:
    """TF's UncompressFlags, read from a node's attrs."""

    def __init__(self, node: Any, channels: int) -> None:
        self.channels = channels
        self.ratio = int(node.attrs.get("ratio", 1))
        if self.ratio not in (1, 2, 4, 8):
            raise invalid(f"ratio must be 1, 2, 4, or 8, got {self.ratio}")
        self.fancy = bool(node.attrs.get("fancy_upscaling", True))
        self.recover = bool(node.attrs.get("try_recover_truncated", False))
        dct = _str_attr(node, "dct_method")
        if dct not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
            raise invalid("dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}")
        self.fast_dct = dct != "INTEGER_ACCURATE"  # TF's default is the fast integer DCT


def decode_jpeg(data: bytes, flags: JpegFlags, crop: list[int] | None = None) -> np.ndarray:
    if flags.channels not in (0, 1, 3):
        raise invalid(f"channels must be 0, 1, or 3 for JPEG, got {flags.channels}")
    sj = _simplejpeg()
    failed = invalid(f"Invalid JPEG data or crop window, data size {len(data)}")
    try:
        height, width, space, _ = sj.decode_jpeg_header(data)
    except ValueError:
        raise failed from None
    channels = flags.channels or (1 if space == "Gray" else 3)
    out_h = -(-height // flags.ratio)
    out_w = -(-width // flags.ratio)
    options = {
        "colorspace": "GRAY" if channels == 1 else "RGB",
        "fastdct": flags.fast_dct,
        "fastupsample": not flags.fancy,
        "min_height": out_h,
        "min_width": out_w,
    }
    try:
        image = sj.decode_jpeg(data, strict=True, **options)
    except ValueError as e:
        # Warnings (corrupt data, premature end) fail only a truncated file that may not be
        # recovered, as TF; libjpeg fills what is missing as TF's recovery does.
        if "Premature end" in str(e) and not flags.recover:
            raise failed from None
        try:
            image = sj.decode_jpeg(data, strict=False, **options)
        except ValueError:
            raise failed from None
    if image.shape[:2] != (out_h, out_w):
        raise errors.InternalError(
            None, None, f"JPEG scaled to {image.shape[:2]}, not 1/{flags.ratio}"
        )
    image = image.reshape(out_h, out_w, channels)
    if crop is not None:
        y, x, h, w = crop
        if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > out_h or x + w > out_w:
            raise failed
        image = image[y : y + h, x : x + w]
    return np.ascontiguousarray(image)


def jpeg_shape(data: bytes) -> list[int]:
    try:
        height, width, space, _ = _simplejpeg().decode_jpeg_header(data)
    except ValueError:
        raise invalid(f"Invalid JPEG data, size {len(data)}") from None
    components = {"Gray": 1, "CMYK": 4, "YCCK": 4}.get(space, 3)
    return [height, width, components]


# ---- PNG, GIF, BMP -------------------------------------------------------------------------
_PNG_CHANNELS = {"1": 1, "L": 1, "LA": 2, "La": 2, "RGB": 3, "RGBA": 4, "I;16": 1, "I;16B": 1}


def _to_channels(image: np.ndarray, channels: int) -> np.ndarray:
    """libpng's conversions: gray <-> RGB by replicating / weighting, alpha added opaque."""
    have = image.shape[2]
    if channels in (0, have):
        return image
    top = np.iinfo(image.dtype).max
    color = image[..., :3] if have >= 3 else image[..., :1]
    alpha = image[..., have - 1 : have] if have in (2, 4) else None
    if channels in (1, 2) and color.shape[2] == 3:
        # libpng's rgb_to_gray as TF sets it up (0.299, 0.587 in 1/32768ths, truncated);
        # libpng rounds at 16 bits, truncates at 8.
        weights = np.array([9797, 19234, 3737], np.int64)
        rounding = 16384 if image.dtype == np.uint16 else 0
        gray = (color.astype(np.int64) @ weights + rounding) >> 15
        color = gray.astype(image.dtype)[..., None]
    elif channels in (3, 4) and color.shape[2] == 1:
        color = np.repeat(color, 3, axis=2)
    parts = [color]
    if channels in (2, 4):
        parts.append(
            alpha if alpha is not None else np.full((*color.shape[:2], 1), top, image.dtype)
        )
    return np.ascontiguousarray(np.concatenate(parts, axis=2))


def decode_png(data: bytes, channels: int, dtype: np.dtype[Any]) -> np.ndarray:
    header_error = invalid(f"Invalid PNG header, data size {len(data)}")
    if not data.startswith(PNG_MAGIC):
        raise header_error
    try:
        image = _pillow().open(io.BytesIO(data))
        mode, bits = image.mode, _png_bit_depth(data)
        if bits == 16 and mode not in ("I;16", "I;16B", "I"):
            pixels = decode_png_rows(data)  # colour at 16 bits: Pillow keeps only 8
        else:
            if mode == "P" or mode == "PA":
                has_alpha = "transparency" in image.info or mode == "PA"
                image = image.convert("RGBA" if has_alpha else "RGB")
            elif mode == "1":
                image = image.convert("L")
            elif mode == "LA" or mode == "La" or (mode == "L" and "transparency" in image.info):
                image = image.convert("LA")
            elif mode == "RGB" and "transparency" in image.info:
                image = image.convert("RGBA")
            pixels = np.asarray(image)
            if pixels.ndim == 2:
                pixels = pixels[..., None]
            if mode in ("I;16", "I;16B", "I"):
                pixels = pixels.astype(np.uint16)
    except (OSError, ValueError, SyntaxError, zlib.error, struct.error):
        raise invalid(f"Invalid PNG data, size {len(data)}") from None
    pixels = _to_channels(pixels, channels)
    if pixels.dtype == np.uint16 and dtype == np.uint8:
        pixels = (pixels >> 8).astype(np.uint8)  # libpng's png_set_strip_16
    elif pixels.dtype == np.uint8 and dtype == np.uint16:
        pixels = pixels.astype(np.uint16) * 257  # png_set_expand_16 scaling
    return np.ascontiguousarray(pixels)


def _png_bit_depth(data: bytes) -> int:
    # IHDR is the first chunk: length(4) type(4) width(4) height(4) bit depth(1).
    return data[24] if len(data) > 24 else 8


def decode_gif(data: bytes) -> np.ndarray:
    """[frames, height, width, 3]: each frame drawn over the previous one (transparent pixels
    keep it; transparent in the first frame is black), as TF's giflib decoder."""
    try:
        image = _pillow().open(io.BytesIO(data))
        frames = []
        for index in range(getattr(image, "n_frames", 1)):
            image.seek(index)
            rgba = np.asarray(image.convert("RGBA"))
            frames.append(np.where(rgba[..., 3:] == 0, 0, rgba[..., :3]).astype(np.uint8))
    except (OSError, ValueError, EOFError, SyntaxError) as e:
        raise invalid(f"Invalid GIF data (size {len(data)}), {e}") from None
    return np.stack(frames)


def decode_bmp(data: bytes, channels: int) -> np.ndarray:
    """TF's own BMP reader: uncompressed 8/24/32-bit rows (bottom-up unless the height is
    negative, padded to 4 bytes), BGR(A) to RGB(A), at the file's own channel count."""
    if channels not in (0, 1, 3, 4):
        raise invalid(f"channels must be 0, 1, 3 or 4, got {channels}")
    if len(data) < 30 or not data.startswith(BMP_MAGIC):
        raise invalid(f"Invalid BMP data, size {len(data)}")
    offset, width, height = (
        struct.unpack_from("<iii", data, 10)[0],
        *struct.unpack_from("<ii", data, 18),
    )
    bpp = struct.unpack_from("<H", data, 28)[0]
    have = bpp // 8
    if channels and channels != have:  # TF 1.15 decodes a BMP at its own channel count only
        raise invalid(
            f"channels attribute {channels} does not match bits per pixel from file {have}"
        )
    if have not in (1, 3, 4):
        raise invalid(f"Number of channels must be 1, 3 or 4, was {have}")
    rows, row_size = abs(height), (have * width + 3) // 4 * 4
    if width <= 0 or offset < 0 or offset + rows * row_size > len(data):
        raise invalid(f"Invalid BMP data, size {len(data)}")
    raw = np.frombuffer(data, np.uint8, rows * row_size, offset).reshape(rows, row_size)
    pixels = raw[:, : width * have].reshape(rows, width, have)
    if height > 0:
        pixels = pixels[::-1]
    if have >= 3:
        pixels = pixels[..., [2, 1, 0, 3][:have]]
    return np.ascontiguousarray(pixels)


# ---- the decode kernels --------------------------------------------------------------------
def _decode_by_content(
    data: bytes, op: str, channels: int, jpeg: JpegFlags | None, png_dtype: Any
) -> np.ndarray:
    """TF 1.15's DecodeImageOp behind DecodeJpeg/DecodePng/DecodeGif: JPEG, PNG or GIF."""
    kind = classify(data)
    if kind not in ("JPEG", "PNG", "GIF"):
        raise invalid(f"Expected image (JPEG, PNG, or GIF), got {kind or describe(data)}")
    if kind != "PNG" and png_dtype == np.uint16:
        raise invalid(f"{kind} does not support uint16 output")
    if kind in ("JPEG", "PNG"):
        if kind == "JPEG":
            image = decode_jpeg(data, jpeg or JpegFlags(_Defaults(), channels))
        else:
            image = decode_png(data, channels, np.dtype(png_dtype))
        # DecodeGif gives a still image as one frame, [1, height, width, channels].
        return image[None] if op == "DecodeGif" else image
    if op != "DecodeGif" and channels not in (0, 3):
        raise invalid(f"channels must be 0 or 3 for GIF, got {channels}")
    frames = decode_gif(data)
    if op == "DecodeGif":
        return frames
    if frames.shape[0] != 1:
        raise invalid(
            f"Got {frames.shape[0]} frames, but animated gifs can only be decoded by "
            "tf.image.decode_gif or tf.image.decode_image"
        )
    return frames[0]


class _Defaults:
    attrs: dict[str, Any] = {}


def _decode_kernel(op: str) -> None:
    @kernel(op, devices=CPU_ONLY)
    def factory(node: Any, xp: Any) -> Compute:
        channels = 3 if op == "DecodeGif" else _channels(node)
        flags = None if op in ("DecodePng", "DecodeGif") else JpegFlags(node, channels)
        png_dtype = np.dtype(node.attrs["dtype"].as_numpy_dtype) if op == "DecodePng" else np.uint8
        if png_dtype not in (np.uint8, np.uint16):
            raise invalid(f"Type must be uint8 or uint16, got {png_dtype}")

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            data = _contents(ins[0])
            if op == "DecodeAndCropJpeg":
                window = np.asarray(ins[1])
                if window.ndim != 1:
                    raise invalid(f"crop_window must be 1-D, got shape {list(window.shape)}")
                if window.shape[0] != 4:
                    raise invalid(f"crop_size must have four elements {list(window.shape)}")
                if classify(data) != "JPEG":
                    raise invalid(
                        "Expected image (JPEG, PNG, or GIF), got "
                        f"{classify(data) or describe(data)}"
                    )
                assert flags is not None
                return (decode_jpeg(data, flags, host_ints(window)),)
            return (_decode_by_content(data, op, channels, flags, png_dtype),)

        return compute


for _op in ("DecodeJpeg", "DecodePng", "DecodeGif", "DecodeAndCropJpeg"):
    _decode_kernel(_op)


@kernel("DecodeBmp", devices=CPU_ONLY)
def decode_bmp_kernel(node: Any, xp: Any) -> Compute:
    channels = int(node.attrs.get("channels", 0))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (decode_bmp(_contents(ins[0]), channels),)

    return compute


@kernel("DecodeImage", devices=CPU_ONLY)
def decode_image_kernel(node: Any, xp: Any) -> Compute:
    """tf.image.decode_image as TF 1.15 composes it: JPEG, PNG, GIF or else BMP by content,
    each with its channel rules, converted to the dtype by convert_image_dtype's rules."""
    channels = _channels(node)
    dtype = np.dtype(node.attrs["dtype"].as_numpy_dtype)
    expand = bool(node.attrs.get("expand_animations", True))
    flags = JpegFlags(_Defaults(), 0 if channels == 4 else channels)

    def refuse(kinds: str, what: str) -> errors.OpError:
        return invalid(f"assertion failed: [Channels must be in {kinds} when decoding {what}]")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _contents(ins[0])
        kind = classify(data)
        if kind == "JPEG":
            if channels == 4:
                raise refuse("(None, 0, 1, 3)", "JPEG images")
            image = decode_jpeg(data, flags)
        elif kind == "PNG":
            image = decode_png(
                data, channels, np.dtype(np.uint8 if dtype == np.uint8 else np.uint16)
            )
        elif kind == "GIF":
            if channels in (1, 4):
                raise refuse("(None, 0, 3)", "GIF images")
            frames = decode_gif(data)
            image = frames if expand else frames[0]
        else:
            if kind != "BMP":
                raise invalid(
                    "assertion failed: [Unable to decode bytes as JPEG, PNG, GIF, or BMP]"
                )
            if channels == 1:
                raise refuse("(None, 0, 3)", "BMP images")
            image = decode_bmp(data, 0)
        return (convert_pixels(image, dtype),)

    return compute


def convert_pixels(image: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """convert_image_dtype's rules for decoded (unsigned integer) pixels: to floats by
    1/max of the source type, to other integers by powers of two."""
    if image.dtype == dtype:
        return image
    top = int(np.iinfo(image.dtype).max)
    if dtype.kind == "f":
        return image.astype(dtype) * dtype.type(1.0 / top)
    if dtype.kind not in "iu":
        raise invalid(f"dtype must be either floating point or integer, got {dtype}")
    out_top = int(np.iinfo(dtype).max)
    if top > out_top:
        return (image // ((top + 1) // (out_top + 1))).astype(dtype)
    return image.astype(dtype) * dtype.type((out_top + 1) // (top + 1))


# ---- encoders ------------------------------------------------------------------------------
def _image_3d(value: Any, what: str = "image") -> np.ndarray:
    image = np.asarray(value)
    if image.ndim != 3:
        raise invalid(f"{what} must be 3-dimensional{list(image.shape)}")
    return image


def _jfif_density(data: bytes, unit: int, x: int, y: int) -> bytes:
    """Rewrites the JFIF APP0 density fields (units, X, Y) that libjpeg wrote."""
    if data[2:4] != b"\xff\xe0" or data[6:11] != b"JFIF\x00":
        return data
    return data[:13] + struct.pack(">BHH", unit, x, y) + data[18:]


class JpegEncodeFlags:
    def __init__(self, node: Any) -> None:
        self.format = _str_attr(node, "format")
        if self.format not in ("", "grayscale", "rgb"):
            raise invalid(f"format must be '', grayscale or rgb, got {self.format}")
        self.quality = int(node.attrs.get("quality", 95))
        if not 0 <= self.quality <= 100:
            raise invalid(f"quality must be in [0,100], got {self.quality}")
        self.progressive = bool(node.attrs.get("progressive", False))
        self.optimize = bool(node.attrs.get("optimize_size", False))
        self.chroma = bool(node.attrs.get("chroma_downsampling", True))
        unit = _str_attr(node, "density_unit", "in")
        if unit not in ("in", "cm"):
            raise invalid(f"density_unit must be 'in' or 'cm', got {unit}")
        self.unit = 1 if unit == "in" else 2
        self.x_density = int(node.attrs.get("x_density", 300))
        self.y_density = int(node.attrs.get("y_density", 300))
        self.xmp = _str_attr(node, "xmp_metadata")


def encode_jpeg(image: np.ndarray, flags: JpegEncodeFlags, quality: int | None = None) -> bytes:
    channels = image.shape[2]
    if flags.format == "grayscale":
        want = 1
    elif flags.format == "rgb":
        want = 3
    else:
        if channels not in (1, 3):
            raise invalid(f"image must have 1 or 3 channels, got {list(image.shape)}")
        want = channels
    if channels != want:
        raise invalid(f"format {flags.format} expects {want} channels, got {list(image.shape)}")
    if image.shape[0] <= 0 or image.shape[1] <= 0:
        raise invalid(f"image must have positive height and width, got {list(image.shape)}")
    picture = _pillow().fromarray(
        image[..., 0] if want == 1 else image, "L" if want == 1 else "RGB"
    )
    options: dict[str, Any] = {
        "quality": flags.quality if quality is None else quality,
        "progressive": flags.progressive,
        "optimize": flags.optimize,
        "subsampling": 2 if flags.chroma else 0,
        "dpi": (flags.x_density, flags.y_density),
    }
    if flags.xmp:
        options["xmp"] = flags.xmp.encode()
    out = io.BytesIO()
    picture.save(out, "JPEG", **options)
    return _jfif_density(out.getvalue(), flags.unit, flags.x_density, flags.y_density)


@kernel("EncodeJpeg", devices=CPU_ONLY)
def encode_jpeg_kernel(node: Any, xp: Any) -> Compute:
    flags = JpegEncodeFlags(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.asarray(encode_jpeg(_image_3d(ins[0]), flags), dtype=object),)

    return compute


@kernel("EncodeJpegVariableQuality", devices=CPU_ONLY)
def encode_jpeg_variable_quality(node: Any, xp: Any) -> Compute:
    flags = JpegEncodeFlags(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        quality = np.asarray(ins[1])
        if quality.ndim != 0:
            raise invalid(f"quality must be scalar: {list(quality.shape)}")
        q = int(quality)
        if not 0 <= q <= 100:
            raise invalid(f"quality must be in [0,100], got {q}")
        return (np.asarray(encode_jpeg(_image_3d(ins[0], "images"), flags, q), dtype=object),)

    return compute


def encode_png(image: np.ndarray, compression: int) -> bytes:
    """The PNG TF 1.15 writes for an 8- or 16-bit image (png_writing: libpng's filters and
    deflate settings, byte for byte)."""
    channels = image.shape[2]
    if channels not in (1, 2, 3, 4):
        raise invalid(f"image must have 1, 2, 3, or 4 channels, got {channels}")
    return png_writing.encode(image, 6 if compression == -1 else compression)


@kernel("EncodePng", devices=CPU_ONLY)
def encode_png_kernel(node: Any, xp: Any) -> Compute:
    compression = int(node.attrs.get("compression", -1))
    if not -1 <= compression <= 9:
        raise invalid(f"compression should be in [-1,9], got {compression}")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        image = _image_3d(ins[0])
        return (np.asarray(encode_png(image, compression), dtype=object),)

    return compute


@kernel("ExtractJpegShape", devices=CPU_ONLY)
def extract_jpeg_shape(node: Any, xp: Any) -> Compute:
    dtype = np.dtype(node.attrs["output_type"].as_numpy_dtype)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.asarray(jpeg_shape(_contents(ins[0])), dtype),)

    return compute
