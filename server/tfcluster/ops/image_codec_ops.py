"""Image codec ops (tf.image and tf.io decoders and encoders, is_jpeg, the jpeg-quality
adjustments), as TF 1.15's gen_image_ops and image_ops_impl build them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.func_graph import builds_v2_control_flow
from tfcluster.framework.graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import math_ops, random_ops, string_ops  # noqa: F401 (Substr is defined there)
from tfcluster.ops.image_ops import convert_image_dtype
from tfcluster.ops.image_shapes import add_node as _node
from tfcluster.ops.image_shapes import int32_tensor as _int32
from tfcluster.ops.image_shapes import is_tensor_like as _is_tensor
from tfcluster.ops.image_shapes import rank_dims as _rank
from tfcluster.ops.image_shapes import string_tensor as _string
from tfcluster.ops.op_util import Outputs

F32 = dtypes.float32


def _scalar_contents(inputs: Sequence[Tensor], op: str) -> None:
    _rank(inputs[0].shape, 0, op, "contents")


def _decode_infer(op: str, rank: int = 3) -> Callable[[Sequence[Tensor], dict[str, Any]], Outputs]:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        _scalar_contents(inputs, op)
        dtype = attrs.get("dtype", dtypes.uint8)
        if op == "DecodeGif":
            return [(dtypes.uint8, TensorShape([None, None, None, 3]))]
        channels = int(attrs.get("channels", 0)) or None
        if op == "DecodeImage":
            # TF 1.15's decode_image merges its four format branches: unknown rank with
            # animations expanded, else rank 3 with every dim unknown (BMP's channels).
            expanded = attrs.get("expand_animations", True)
            return [(dtype, TensorShape(None if expanded else [None, None, None]))]
        return [(dtype, TensorShape([None, None, channels]))]

    return infer


def _encode_infer(op: str) -> Callable[[Sequence[Tensor], dict[str, Any]], Outputs]:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        _rank(inputs[0].shape, 3, op, "image")
        return [(dtypes.string, TensorShape([]))]

    return infer


def _jpeg_shape_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _scalar_contents(inputs, "ExtractJpegShape")
    return [(attrs["output_type"], TensorShape([3]))]


for _type in (
    "DecodeJpeg",
    "DecodeAndCropJpeg",
    "DecodePng",
    "DecodeGif",
    "DecodeBmp",
    "DecodeImage",
):
    op_def_registry.register(_type, _decode_infer(_type))
for _type in ("EncodeJpeg", "EncodeJpegVariableQuality", "EncodePng"):
    op_def_registry.register(_type, _encode_infer(_type))
op_def_registry.register("ExtractJpegShape", _jpeg_shape_infer)


def _jpeg_attrs(
    channels: int,
    ratio: int,
    fancy_upscaling: bool,
    try_recover_truncated: bool,
    acceptable_fraction: float,
    dct_method: str,
) -> dict[str, Any]:
    return {
        "channels": int(channels),
        "ratio": int(ratio),
        "fancy_upscaling": bool(fancy_upscaling),
        "try_recover_truncated": bool(try_recover_truncated),
        "acceptable_fraction": float(acceptable_fraction),
        "dct_method": str(dct_method),
    }


def decode_jpeg(
    contents: Any,
    channels: int = 0,
    ratio: int = 1,
    fancy_upscaling: bool = True,
    try_recover_truncated: bool = False,
    acceptable_fraction: float = 1,
    dct_method: str = "",
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "DecodeJpeg", [contents]) as scope:
        attrs = _jpeg_attrs(
            channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
        )
        return _node("DecodeJpeg", [_string(contents)], attrs, scope).outputs[0]


def decode_and_crop_jpeg(
    contents: Any,
    crop_window: Any,
    channels: int = 0,
    ratio: int = 1,
    fancy_upscaling: bool = True,
    try_recover_truncated: bool = False,
    acceptable_fraction: float = 1,
    dct_method: str = "",
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "DecodeAndCropJpeg", [contents, crop_window]) as scope:
        attrs = _jpeg_attrs(
            channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
        )
        inputs = [_string(contents), _int32(crop_window, "crop_window")]
        return _node("DecodeAndCropJpeg", inputs, attrs, scope).outputs[0]


def decode_png(
    contents: Any, channels: int = 0, dtype: Any = dtypes.uint8, name: str | None = None
) -> Tensor:
    dt = dtypes.as_dtype(dtype).base_dtype
    if dt not in (dtypes.uint8, dtypes.uint16):
        raise TypeError(
            f"Value for attr 'dtype' of {dt.name} is not in the list of allowed values: "
            "uint8, uint16"
        )
    with name_scope(name, "DecodePng", [contents]) as scope:
        attrs = {"channels": int(channels), "dtype": dt}
        return _node("DecodePng", [_string(contents)], attrs, scope).outputs[0]


def decode_gif(contents: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "DecodeGif", [contents]) as scope:
        return _node("DecodeGif", [_string(contents)], {}, scope).outputs[0]


def decode_bmp(contents: Any, channels: int = 0, name: str | None = None) -> Tensor:
    with name_scope(name, "DecodeBmp", [contents]) as scope:
        attrs = {"channels": int(channels)}
        return _node("DecodeBmp", [_string(contents)], attrs, scope).outputs[0]


def decode_image(
    contents: Any,
    channels: int | None = None,
    dtype: Any = dtypes.uint8,
    name: str | None = None,
    expand_animations: bool = True,
) -> Tensor:
    """Any of JPEG, PNG, GIF and BMP, by content, in dtype: TF 1.15's pixels and rules (PNG
    read at 16 bits for any dtype but uint8, then TF's dtype conversion; BMP at its own
    channel count; GIF and JPEG refusing the channel counts they cannot give) in one
    DecodeImage op where 1.15 chains conds over Substr."""
    if channels not in (None, 0, 1, 3, 4):
        raise ValueError("channels must be in (None, 0, 1, 3, 4)")
    dt = dtypes.as_dtype(dtype).base_dtype
    graph = get_default_graph()
    start = graph._op_count()
    # TF 1.15 chains conds: TF1's Switch / Merge ones in a graph, cond_v2 in a function
    # (a Dataset.map function), whose branches count their ops apart.
    v2 = builds_v2_control_flow(graph)
    with name_scope(name, "decode_image"):
        attrs = {
            "channels": int(channels or 0),
            "dtype": dt,
            "expand_animations": bool(expand_animations),
        }
        # Named as TF 1.15's result, the output of its outermost cond.
        result_name = "cond_jpeg/Identity" if v2 else "cond_jpeg/Merge"
        image = _node("DecodeImage", [_string(contents)], attrs, result_name).outputs[0]
    # TF 1.15's ops for it (a Python value converted twice among them): later ops' seeds
    # derive from the graph's op count.
    if v2:
        tf1_ops = _DECODE_IMAGE_V2_OPS
    else:
        tf1_ops = _DECODE_IMAGE_TF1_OPS + _DECODE_IMAGE_CONVERT_OPS.get(dt, 8)
        tf1_ops += 0 if expand_animations else 3
    tf1_ops += 0 if _is_tensor(contents) else 2
    graph._match_tf1_op_count(tf1_ops - (graph._op_count() - start))
    return image


# TF 1.15's decode_image: Substr, the format tests and four conds of Switch and Merge with
# each format's checks and decoder; the conversion to another dtype in each branch adds ops.
_DECODE_IMAGE_TF1_OPS = 76
_DECODE_IMAGE_CONVERT_OPS = {dtypes.uint8: 0, dtypes.uint16: 6}
# In a function: Substr and the JPEG test, then one If and its Identity.
_DECODE_IMAGE_V2_OPS = 10


def encode_jpeg(
    image: Any,
    format: str = "",
    quality: int = 95,
    progressive: bool = False,
    optimize_size: bool = False,
    chroma_downsampling: bool = True,
    density_unit: str = "in",
    x_density: int = 300,
    y_density: int = 300,
    xmp_metadata: str = "",
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "EncodeJpeg", [image]) as scope:
        img = convert_to_tensor(image, dtype=dtypes.uint8, name="image")
        attrs = {
            "format": str(format),
            "quality": int(quality),
            "progressive": bool(progressive),
            "optimize_size": bool(optimize_size),
            "chroma_downsampling": bool(chroma_downsampling),
            "density_unit": str(density_unit),
            "x_density": int(x_density),
            "y_density": int(y_density),
            "xmp_metadata": str(xmp_metadata),
        }
        return _node("EncodeJpeg", [img], attrs, scope).outputs[0]


def encode_jpeg_variable_quality(images: Any, quality: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "EncodeJpegVariableQuality", [images, quality]) as scope:
        img = convert_to_tensor(images, dtype=dtypes.uint8, name="images")
        q = _int32(quality, "quality")
        return _node("EncodeJpegVariableQuality", [img, q], {}, scope).outputs[0]


def encode_png(image: Any, compression: int = -1, name: str | None = None) -> Tensor:
    with name_scope(name, "EncodePng", [image]) as scope:
        # T defaults to uint8: a numpy array of another type is cast to it, as TF's op
        # wrapper converts inputs with the attr's default as the preferred dtype.
        img = convert_to_tensor(image, name="image", preferred_dtype=dtypes.uint8)
        if img.dtype.base_dtype not in (dtypes.uint8, dtypes.uint16):
            raise TypeError(
                f"Value passed to parameter 'image' has DataType {img.dtype.base_dtype.name} not "
                "in list of allowed values: uint8, uint16"
            )
        attrs = {"compression": int(compression), "T": img.dtype.base_dtype}
        return _node("EncodePng", [img], attrs, scope).outputs[0]


def extract_jpeg_shape(
    contents: Any, output_type: Any = dtypes.int32, name: str | None = None
) -> Tensor:
    with name_scope(name, "ExtractJpegShape", [contents]) as scope:
        attrs = {"output_type": dtypes.as_dtype(output_type).base_dtype}
        return _node("ExtractJpegShape", [_string(contents)], attrs, scope).outputs[0]


def _substr(contents: Tensor, pos: int, length: int) -> Tensor:
    """The bytes [pos, pos + length) of each string (TF's Substr, unit BYTE; the op is
    string_ops')."""
    inputs = [contents, _int32(pos, "Substr/pos"), _int32(length, "Substr/len")]
    return _node("Substr", inputs, {"T": dtypes.int32, "unit": "BYTE"}, "Substr").outputs[0]


def is_jpeg(contents: Any, name: str | None = None) -> Tensor:
    """Whether the contents start with JPEG's magic bytes: Substr then Equal, as TF."""
    with name_scope(name, "is_jpeg"):
        prefix = _substr(_string(contents), 0, 3)
        return math_ops.equal(prefix, b"\xff\xd8\xff", name=name)


def adjust_jpeg_quality(image: Any, jpeg_quality: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "adjust_jpeg_quality", [image]):
        img = convert_to_tensor(image, name="image")
        orig = img.dtype.base_dtype
        img = convert_image_dtype(img, dtypes.uint8)
        if not _is_tensor(jpeg_quality):
            jpeg_quality = _int32(jpeg_quality, "jpeg_quality")
        encoded = encode_jpeg_variable_quality(img, jpeg_quality)
        return convert_image_dtype(decode_jpeg(encoded), orig)


def random_jpeg_quality(
    image: Any, min_jpeg_quality: int, max_jpeg_quality: int, seed: int | None = None
) -> Tensor:
    if (
        min_jpeg_quality < 0
        or max_jpeg_quality < 0
        or min_jpeg_quality > 100
        or max_jpeg_quality > 100
    ):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    quality = random_ops.random_uniform(
        [], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=dtypes.int32
    )
    return adjust_jpeg_quality(image, quality)
