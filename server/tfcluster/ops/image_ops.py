"""Image ops (tf.image and the tf.io decoders), as TF 1.15's image_ops_impl and gen_image_ops
build them: the same op types, attrs, static shapes and node names.

The kernel-backed ops register here with their shape inference; everything else is composed
from existing ops exactly as TF composes it (flips are ReverseV2, crops Slice, pads Pad, dtype
conversion Cast/Mul/FloorDiv with TF's scaling rules). Checks TF makes at graph construction
raise the same Python errors; checks TF defers to an Assert op on dynamic shapes are left to
the kernels, which raise InvalidArgumentError.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, control_flow_ops, math_ops, random_ops
from tfcluster.ops.op_util import Outputs, make_op

F32 = dtypes.float32


# ---- shape inference ---------------------------------------------------------------------
def _rank(shape: TensorShape, rank: int, op: str, what: str) -> list[int | None]:
    if shape.ndims is None:
        return [None] * rank
    if shape.ndims != rank:
        raise ValueError(
            f"Shape must be rank {rank} but is rank {shape.ndims} for '{op}' ({what}) with "
            f"input shape {shape}."
        )
    return shape.as_list()


_FOLDABLE: dict[str, Callable[..., Any]] = {
    "Round": np.round,  # halves to even, as TF's Round
    "Floor": np.floor,
    "Mul": np.multiply,
    "RealDiv": np.true_divide,
    "Add": np.add,
    "AddV2": np.add,
    "Sub": np.subtract,
    "Minimum": np.minimum,
    "Maximum": np.maximum,
}


def _fold(tensor: Tensor, depth: int = 0) -> np.ndarray | None:
    """A small shape computation over constants, evaluated as TF's C++ shape inference does
    (EvaluateConstantTensor): resize_images' preserve_aspect_ratio sizes are static there."""
    value = tensor_util.constant_value(tensor)
    if value is not None or depth > 12:
        return value
    op = tensor.op
    if op.type in _FOLDABLE:
        args = [_fold(t, depth + 1) for t in op.inputs]
        if any(a is None for a in args):
            return None
        dtype = tensor.dtype.base_dtype.as_numpy_dtype
        with np.errstate(all="ignore"):
            return np.asarray(_FOLDABLE[op.type](*args)).astype(dtype)
    if op.type in ("Cast", "Identity", "Pack"):
        args = [_fold(t, depth + 1) for t in op.inputs]
        if any(a is None for a in args):
            return None
        if op.type == "Cast":
            return np.asarray(args[0]).astype(op.get_attr("DstT").as_numpy_dtype)
        if op.type == "Identity":
            return args[0]
        return np.stack([a for a in args if a is not None], axis=op.get_attr("axis"))
    if op.type == "StridedSlice" and op.get_attr("shrink_axis_mask") == 1:
        source, begin = _fold(op.inputs[0], depth + 1), _fold(op.inputs[1], depth + 1)
        if source is None or begin is None or np.asarray(source).ndim != 1:
            return None
        return np.asarray(source)[int(np.asarray(begin).reshape(-1)[0])]
    return None


def _size_dims(size: Tensor, op: str) -> list[int | None]:
    _rank(size.shape, 1, op, "size")
    if size.shape.ndims == 1 and size.shape[0].value not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {size.shape[0].value} for '{op}' (size)")
    folded = _fold(size)
    if folded is not None and np.asarray(folded).size == 2:
        return [None if d < 0 else int(d) for d in np.asarray(folded).reshape(-1)]
    dims = tensor_util.constant_value_as_shape(size)
    if dims.ndims is None:
        return [None, None]
    return dims.as_list()


def _resize_infer(
    op: str, float_out: bool
) -> Callable[[Sequence[Tensor], dict[str, Any]], Outputs]:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        images, size = inputs
        b, _, _, c = _rank(images.shape, 4, op, "images")
        h, w = _size_dims(size, op)
        dtype = F32 if float_out else images.dtype.base_dtype
        return [(dtype, TensorShape([b, h, w, c]))]

    return infer


def _resize_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[1].dtype.base_dtype, inputs[1].shape)]


def _nn_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    grads, size = inputs
    b, _, _, c = _rank(grads.shape, 4, "ResizeNearestNeighborGrad", "grads")
    h, w = _size_dims(size, "ResizeNearestNeighborGrad")
    return [(grads.dtype.base_dtype, TensorShape([b, h, w, c]))]


def _rgb_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    if x.shape.ndims is not None:
        if x.shape.ndims < 1:
            raise ValueError(f"Shape must be at least rank 1 but is rank {x.shape.ndims}")
        last = x.shape[-1].value
        if last not in (None, 3):
            raise ValueError(f"Dimension must be 3 but is {last} for the last dim of {x.shape}")
    return [(x.dtype.base_dtype, x.shape)]


def _at_least_3d_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    if x.shape.ndims is not None and x.shape.ndims < 3:
        raise ValueError(f"Shape must be at least rank 3 but is rank {x.shape.ndims}")
    return [(x.dtype.base_dtype, x.shape)]


def _crop_and_resize_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    image, boxes, box_ind, crop = inputs
    _, _, _, depth = _rank(image.shape, 4, "CropAndResize", "image")
    n, _ = _rank(boxes.shape, 2, "CropAndResize", "boxes")
    (m,) = _rank(box_ind.shape, 1, "CropAndResize", "box_ind")
    h, w = _size_dims(crop, "CropAndResize")
    return [(F32, TensorShape([n if n is not None else m, h, w, depth]))]


def _crop_grad_image_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = tensor_util.constant_value_as_shape(inputs[3])
    if shape.ndims is None:
        shape = TensorShape([None] * 4)
    return [(attrs["T"], shape)]


def _crop_grad_boxes_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(F32, TensorShape([inputs[2].shape[0].value if inputs[2].shape.ndims else None, 4]))]


def _nms_infer(op: str) -> Callable[[Sequence[Tensor], dict[str, Any]], Outputs]:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        _rank(inputs[0].shape, 2, op, "boxes")
        _rank(inputs[1].shape, 1, op, "scores")
        _rank(inputs[2].shape, 0, op, "max_output_size")
        count: int | None = None
        if attrs.get("pad_to_max_output_size", False):
            value = tensor_util.constant_value(inputs[2])
            count = None if value is None else int(value)
        indices = (dtypes.int32, TensorShape([count]))
        valid = (dtypes.int32, TensorShape([]))
        if op == "NonMaxSuppressionV4":
            return [indices, valid]
        if op == "NonMaxSuppressionV5":
            return [indices, (inputs[1].dtype.base_dtype, TensorShape([count])), valid]
        return [indices]

    return infer


def _sample_bbox_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _rank(inputs[0].shape, 1, "SampleDistortedBoundingBox", "image_size")
    _rank(inputs[1].shape, 3, "SampleDistortedBoundingBox", "bounding_boxes")
    dtype = inputs[0].dtype.base_dtype
    return [(dtype, TensorShape([3])), (dtype, TensorShape([3])), (F32, TensorShape([1, 1, 4]))]


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


for _type in ("ResizeBilinear", "ResizeBicubic", "ResizeArea"):
    op_def_registry.register(_type, _resize_infer(_type, float_out=True))
op_def_registry.register(
    "ResizeNearestNeighbor", _resize_infer("ResizeNearestNeighbor", float_out=False)
)
op_def_registry.register("ResizeBilinearGrad", _resize_grad_infer)
op_def_registry.register("ResizeBicubicGrad", _resize_grad_infer)
op_def_registry.register("ResizeNearestNeighborGrad", _nn_grad_infer)
op_def_registry.register("RGBToHSV", _rgb_infer)
op_def_registry.register("HSVToRGB", _rgb_infer)
for _type in ("AdjustContrastv2", "AdjustHue", "AdjustSaturation"):
    op_def_registry.register(_type, _at_least_3d_infer)
op_def_registry.register("CropAndResize", _crop_and_resize_infer)
op_def_registry.register("CropAndResizeGradImage", _crop_grad_image_infer)
op_def_registry.register("CropAndResizeGradBoxes", _crop_grad_boxes_infer)
op_def_registry.register("DrawBoundingBoxes", op_def_registry.same_as_input())
op_def_registry.register("DrawBoundingBoxesV2", op_def_registry.same_as_input())
for _type in (
    "NonMaxSuppression",
    "NonMaxSuppressionV2",
    "NonMaxSuppressionV3",
    "NonMaxSuppressionV4",
    "NonMaxSuppressionV5",
    "NonMaxSuppressionWithOverlaps",
):
    op_def_registry.register(_type, _nms_infer(_type))
for _type in ("SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2"):
    op_def_registry.register(_type, _sample_bbox_infer, stateful=True)
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


def _node(op_type: str, inputs: Sequence[Any], attrs: dict[str, Any], name: str | None) -> Any:
    return make_op(op_type, inputs, attrs, name=name or op_type)


def _int32(value: Any, name: str) -> Tensor:
    return convert_to_tensor(value, dtype=dtypes.int32, name=name)


def _string(value: Any, name: str = "contents") -> Tensor:
    return convert_to_tensor(value, dtype=dtypes.string, name=name)


# ---- codecs (gen_image_ops) ----------------------------------------------------------------
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
    with name_scope(name, "decode_image"):
        attrs = {
            "channels": int(channels or 0),
            "dtype": dt,
            "expand_animations": bool(expand_animations),
        }
        return _node("DecodeImage", [_string(contents)], attrs, None).outputs[0]


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
        img = convert_to_tensor(image)
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


def _substr_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.string, inputs[0].shape)]


op_def_registry.register("Substr", _substr_infer)


def _substr(contents: Tensor, pos: int, length: int) -> Tensor:
    """The bytes [pos, pos + length) of each string (TF's Substr, unit BYTE)."""
    inputs = [contents, _int32(pos, "Substr/pos"), _int32(length, "Substr/len")]
    return _node("Substr", inputs, {"T": dtypes.int32, "unit": "BYTE"}, "Substr").outputs[0]


def is_jpeg(contents: Any, name: str | None = None) -> Tensor:
    """Whether the contents start with JPEG's magic bytes: Substr then Equal, as TF."""
    with name_scope(name, "is_jpeg"):
        prefix = _substr(_string(contents), 0, 3)
        return math_ops.equal(prefix, b"\xff\xd8\xff", name=name)


# ---- checks as TF's image_ops_impl makes them ----------------------------------------------
def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor) or hasattr(x, "_as_graph_element")


def _check(cond: Any, msg: str) -> list[Any]:
    """TF's _assert for static conditions; dynamic ones are the kernels' to reject."""
    if _is_tensor(cond):
        return []
    if not cond:
        raise ValueError(msg)
    return []


def _image_dims(image: Tensor, rank: int) -> list[Any]:
    """TF's _ImageDimensions: static dims where known, scalar tensors otherwise."""
    shape = image.shape
    if shape.is_fully_defined():
        return shape.as_list()
    static = shape.with_rank(rank).as_list()
    dynamic = array_ops.unstack(array_ops.shape(image), rank)
    return [s if s is not None else d for s, d in zip(static, dynamic)]


def _check_at_least_3d(image: Tensor, require_static: bool = True) -> list[Any]:
    try:
        if image.shape.ndims is None:
            shape = image.shape.with_rank(3)
        else:
            shape = image.shape.with_rank_at_least(3)
    except ValueError:
        raise ValueError(
            f"'image' (shape {image.shape}) must be at least three-dimensional."
        ) from None
    if require_static and not shape.is_fully_defined():
        raise ValueError("'image' must be fully defined.")
    if any(d.value == 0 for d in shape[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")
    return []


def _assert_at_least_3d(image: Tensor) -> Tensor:
    return control_flow_ops.with_dependencies(_check_at_least_3d(image, False), image)


def _check_3d(image: Tensor, require_static: bool = True) -> list[Any]:
    try:
        shape = image.shape.with_rank(3)
    except ValueError:
        raise ValueError(f"'image' (shape {image.shape}) must be three-dimensional.") from None
    if require_static and not shape.is_fully_defined():
        raise ValueError(f"'image' (shape {shape}) must be fully defined.")
    if any(d.value == 0 for d in shape):
        raise ValueError(f"all dims of 'image.shape' must be > 0: {shape}")
    return []


def _fix_flip_shape(image: Tensor, result: Tensor) -> Tensor:
    if image.shape.ndims is None:
        result.set_shape([None, None, None])
    else:
        result.set_shape(image.shape)
    return result


def _batched(image: Tensor) -> tuple[Tensor, bool]:
    """A rank-3 image (or one of unknown rank) as a batch of one, and whether it was a batch."""
    ndims = image.shape.ndims
    if ndims == 3:
        return array_ops.expand_dims(image, 0), False
    if ndims is None:
        batched = array_ops.expand_dims(image, 0)
        batched.set_shape([None] * 4)
        return batched, False
    if ndims != 4:
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return image, True


# ---- flips, rotations, transposes ----------------------------------------------------------
def _by_rank(image: Tensor, f_rank3: Callable[[], Tensor], f_rank4: Callable[[], Tensor]) -> Tensor:
    """TF 1.15's dispatch: rank 3 (or unknown) one way, rank 4 the other."""
    ndims = image.shape.ndims
    if ndims in (3, None):
        return f_rank3()
    if ndims == 4:
        return f_rank4()
    raise ValueError("'image' must have either 3 or 4 dimensions.")


def _flip(image: Any, flip_index: int, scope_name: str) -> Tensor:
    with name_scope(None, scope_name, [image]):
        img = _assert_at_least_3d(convert_to_tensor(image, name="image"))
        return _by_rank(
            img,
            lambda: _fix_flip_shape(img, array_ops.reverse(img, [flip_index])),
            lambda: array_ops.reverse(img, [flip_index + 1]),
        )


def flip_left_right(image: Any) -> Tensor:
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image: Any) -> Tensor:
    return _flip(image, 0, "flip_up_down")


def _random_flip(image: Any, flip_index: int, seed: int | None, scope_name: str) -> Tensor:
    with name_scope(None, scope_name, [image]) as scope:
        img = _assert_at_least_3d(convert_to_tensor(image, name="image"))

        def f_rank3() -> Tensor:
            uniform = random_ops.random_uniform([], 0, 1.0, seed=seed)
            mirror = math_ops.less(uniform, 0.5)
            result = control_flow_ops.cond(
                mirror, lambda: array_ops.reverse(img, [flip_index]), lambda: img, name=scope
            )
            return _fix_flip_shape(img, result)

        def f_rank4() -> Tensor:
            batch = array_ops.shape(img)[0]
            uniform = random_ops.random_uniform([batch], 0, 1.0, seed=seed)
            flips = math_ops.round(array_ops.reshape(uniform, [batch, 1, 1, 1]))
            flips = math_ops.cast(flips, img.dtype)
            flipped = array_ops.reverse(img, [flip_index + 1])
            return flips * flipped + (1 - flips) * img

        return _by_rank(img, f_rank3, f_rank4)


def random_flip_left_right(image: Any, seed: int | None = None) -> Tensor:
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image: Any, seed: int | None = None) -> Tensor:
    return _random_flip(image, 0, seed, "random_flip_up_down")


def _rot90_cases(image: Tensor, k: Tensor, scope: str, batch: bool) -> Tensor:
    h, w = (1, 2) if batch else (0, 1)
    perm = [0, 2, 1, 3] if batch else [1, 0, 2]
    cases = [
        (math_ops.equal(k, 1), lambda: array_ops.transpose(array_ops.reverse(image, [w]), perm)),
        (math_ops.equal(k, 2), lambda: array_ops.reverse(image, [h, w])),
        (math_ops.equal(k, 3), lambda: array_ops.reverse(array_ops.transpose(image, perm), [w])),
    ]
    result = control_flow_ops.case(cases, default=lambda: image, exclusive=True, name=scope)
    if batch:
        shape = result.shape
        result.set_shape([shape[0], None, None, shape[3]])
    else:
        result.set_shape([None, None, image.shape[2]])
    return result


def rot90(image: Any, k: Any = 1, name: str | None = None) -> Tensor:
    with name_scope(name, "rot90", [image, k]) as scope:
        img = _assert_at_least_3d(convert_to_tensor(image, name="image"))
        kt = _int32(k, "k")
        kt.shape.with_rank(0)
        kt = math_ops.floormod(kt, 4)
        return _by_rank(
            img,
            lambda: _rot90_cases(img, kt, scope, False),
            lambda: _rot90_cases(img, kt, scope, True),
        )


def transpose(image: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "transpose", [image]):
        img = _assert_at_least_3d(convert_to_tensor(image, name="image"))
        return _by_rank(
            img,
            lambda: array_ops.transpose(img, [1, 0, 2], name=name),
            lambda: array_ops.transpose(img, [0, 2, 1, 3], name=name),
        )


transpose_image = transpose


# ---- crops and pads ------------------------------------------------------------------------
def central_crop(image: Any, central_fraction: Any) -> Tensor:
    with name_scope(None, "central_crop", [image]):
        img = convert_to_tensor(image, name="image")
        fraction = (
            tensor_util.constant_value(central_fraction)
            if _is_tensor(central_fraction)
            else central_fraction
        )
        if fraction is None:
            raise ValueError("central_crop needs a central_fraction known when the graph is built")
        fraction = float(fraction)
        if fraction <= 0.0 or fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if fraction == 1.0:
            return img
        _check_at_least_3d(img, require_static=False)
        rank = img.shape.ndims
        if rank not in (3, 4):
            raise ValueError(
                f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}."
            )
        axis = 0 if rank == 3 else 1

        def dim(index: int) -> tuple[Any, bool]:
            value = img.shape[index].value
            if value is not None:
                return value, False
            return array_ops.shape(img)[index], True

        img_h, dynamic_h = dim(axis)
        img_w, dynamic_w = dim(axis + 1)

        def start(size: Any, dynamic: bool) -> Any:
            if dynamic:
                sd = math_ops.cast(size, dtypes.float64)
                return math_ops.cast((sd - sd * fraction) / 2, dtypes.int32)
            return int((float(size) - float(size) * fraction) / 2)

        h_start, w_start = start(img_h, dynamic_h), start(img_w, dynamic_w)
        h_size, w_size = img_h - h_start * 2, img_w - w_start * 2
        if rank == 3:
            begin = array_ops.stack([h_start, w_start, 0])
            size = array_ops.stack([h_size, w_size, -1])
        else:
            begin = array_ops.stack([0, h_start, w_start, 0])
            size = array_ops.stack([-1, h_size, w_size, -1])
        out = array_ops.slice(img, begin, size)
        dims = [None if dynamic_h else h_size, None if dynamic_w else w_size]
        if rank == 3:
            out.set_shape([*dims, img.shape[2].value])
        else:
            out.set_shape([img.shape[0].value, *dims, img.shape[3].value])
        return out


def _pad_to_bounding_box(
    image: Any,
    offset_height: Any,
    offset_width: Any,
    target_height: Any,
    target_width: Any,
    check_dims: bool,
) -> Tensor:
    with name_scope(None, "pad_to_bounding_box", [image]):
        img, is_batch = _batched(convert_to_tensor(image, name="image"))
        batch, height, width, depth = _image_dims(img, 4)
        after_width = target_width - offset_width - width
        after_height = target_height - offset_height - height
        if check_dims:
            checks = _check_at_least_3d(img, require_static=False)
            checks += _check(offset_height >= 0, "offset_height must be >= 0")
            checks += _check(offset_width >= 0, "offset_width must be >= 0")
            checks += _check(after_width >= 0, "width must be <= target - offset")
            checks += _check(after_height >= 0, "height must be <= target - offset")
            img = control_flow_ops.with_dependencies(checks, img)
        paddings = array_ops.reshape(
            array_ops.stack([0, 0, offset_height, after_height, offset_width, after_width, 0, 0]),
            [4, 2],
        )
        padded = array_ops.pad(img, paddings)
        dims = [batch, target_height, target_width, depth]
        padded.set_shape([None if _is_tensor(d) else d for d in dims])
        return padded if is_batch else array_ops.squeeze(padded, axis=[0])


def pad_to_bounding_box(
    image: Any, offset_height: Any, offset_width: Any, target_height: Any, target_width: Any
) -> Tensor:
    return _pad_to_bounding_box(
        image, offset_height, offset_width, target_height, target_width, check_dims=True
    )


def crop_to_bounding_box(
    image: Any, offset_height: Any, offset_width: Any, target_height: Any, target_width: Any
) -> Tensor:
    with name_scope(None, "crop_to_bounding_box", [image]):
        img, is_batch = _batched(convert_to_tensor(image, name="image"))
        checks = _check_at_least_3d(img, require_static=False)
        batch, height, width, depth = _image_dims(img, 4)
        checks += _check(offset_width >= 0, "offset_width must be >= 0.")
        checks += _check(offset_height >= 0, "offset_height must be >= 0.")
        checks += _check(target_width > 0, "target_width must be > 0.")
        checks += _check(target_height > 0, "target_height must be > 0.")
        checks += _check(width >= target_width + offset_width, "width must be >= target + offset.")
        checks += _check(
            height >= target_height + offset_height, "height must be >= target + offset."
        )
        img = control_flow_ops.with_dependencies(checks, img)
        shape = array_ops.shape(img)
        cropped = array_ops.slice(
            img,
            array_ops.stack([0, offset_height, offset_width, 0]),
            array_ops.stack([shape[0], target_height, target_width, shape[3]]),
        )
        dims = [batch, target_height, target_width, depth]
        cropped.set_shape([None if _is_tensor(d) else d for d in dims])
        return cropped if is_batch else array_ops.squeeze(cropped, axis=[0])


def _max(x: Any, y: Any) -> Any:
    return math_ops.maximum(x, y) if _is_tensor(x) or _is_tensor(y) else max(x, y)


def _min(x: Any, y: Any) -> Any:
    return math_ops.minimum(x, y) if _is_tensor(x) or _is_tensor(y) else min(x, y)


def resize_image_with_crop_or_pad(image: Any, target_height: Any, target_width: Any) -> Tensor:
    with name_scope(None, "resize_image_with_crop_or_pad", [image]):
        img, is_batch = _batched(convert_to_tensor(image, name="image"))
        checks = _check_at_least_3d(img, require_static=False)
        checks += _check(target_width > 0, "target_width must be > 0.")
        checks += _check(target_height > 0, "target_height must be > 0.")
        img = control_flow_ops.with_dependencies(checks, img)
        if _is_tensor(target_height):
            target_height = control_flow_ops.with_dependencies(checks, target_height)
        if _is_tensor(target_width):
            target_width = control_flow_ops.with_dependencies(checks, target_width)
        _, height, width, _ = _image_dims(img, 4)
        width_diff = target_width - width
        offset_crop_width = _max(-width_diff // 2, 0)
        offset_pad_width = _max(width_diff // 2, 0)
        height_diff = target_height - height
        offset_crop_height = _max(-height_diff // 2, 0)
        offset_pad_height = _max(height_diff // 2, 0)
        cropped = crop_to_bounding_box(
            img,
            offset_crop_height,
            offset_crop_width,
            _min(target_height, height),
            _min(target_width, width),
        )
        resized = pad_to_bounding_box(
            cropped, offset_pad_height, offset_pad_width, target_height, target_width
        )
        if resized.shape.ndims is None:
            raise ValueError("resized contains no shape.")
        _, resized_height, resized_width, _ = _image_dims(resized, 4)
        checks = []
        if not _is_tensor(resized_height) and not _is_tensor(target_height):
            checks += _check(resized_height == target_height, "resized height is not correct.")
        if not _is_tensor(resized_width) and not _is_tensor(target_width):
            checks += _check(resized_width == target_width, "resized width is not correct.")
        resized = control_flow_ops.with_dependencies(checks, resized)
        return resized if is_batch else array_ops.squeeze(resized, axis=[0])


resize_with_crop_or_pad = resize_image_with_crop_or_pad


# ---- resizing ------------------------------------------------------------------------------
class ResizeMethod:
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


def _resize_op(
    op_type: str,
    images: Any,
    size: Any,
    align_corners: bool,
    half_pixel_centers: bool | None,
    name: str | None,
) -> Tensor:
    with name_scope(name, op_type, [images, size]) as scope:
        img = convert_to_tensor(images, name="images")
        sz = _int32(size, "size")
        attrs: dict[str, Any] = {"T": img.dtype.base_dtype, "align_corners": bool(align_corners)}
        if half_pixel_centers is not None:
            attrs["half_pixel_centers"] = bool(half_pixel_centers)
        return _node(op_type, [img, sz], attrs, scope).outputs[0]


def resize_bilinear(
    images: Any,
    size: Any,
    align_corners: bool = False,
    name: str | None = None,
    half_pixel_centers: bool = False,
) -> Tensor:
    return _resize_op("ResizeBilinear", images, size, align_corners, half_pixel_centers, name)


def resize_nearest_neighbor(
    images: Any,
    size: Any,
    align_corners: bool = False,
    name: str | None = None,
    half_pixel_centers: bool = False,
) -> Tensor:
    return _resize_op(
        "ResizeNearestNeighbor", images, size, align_corners, half_pixel_centers, name
    )


def resize_bicubic(
    images: Any,
    size: Any,
    align_corners: bool = False,
    name: str | None = None,
    half_pixel_centers: bool = False,
) -> Tensor:
    return _resize_op("ResizeBicubic", images, size, align_corners, half_pixel_centers, name)


def resize_area(
    images: Any, size: Any, align_corners: bool = False, name: str | None = None
) -> Tensor:
    return _resize_op("ResizeArea", images, size, align_corners, None, name)


_RESIZERS = {
    ResizeMethod.BILINEAR: resize_bilinear,
    ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor,
    ResizeMethod.BICUBIC: resize_bicubic,
    ResizeMethod.AREA: resize_area,
    "bilinear": resize_bilinear,
    "nearest": resize_nearest_neighbor,
    "bicubic": resize_bicubic,
    "area": resize_area,
}


def resize_images(
    images: Any,
    size: Any,
    method: Any = ResizeMethod.BILINEAR,
    align_corners: bool = False,
    preserve_aspect_ratio: bool = False,
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "resize", [images, size]):
        img = convert_to_tensor(images, name="images")
        if img.shape.ndims is None:
            raise ValueError("'images' contains no shape.")
        is_batch = True
        if img.shape.ndims == 3:
            is_batch = False
            img = array_ops.expand_dims(img, 0)
        elif img.shape.ndims != 4:
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        _, height, width, _ = img.shape.as_list()
        try:
            sz = _int32(size, "size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not sz.shape.is_compatible_with(TensorShape([2])):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        if preserve_aspect_ratio:
            _, cur_h, cur_w, _ = _image_dims(img, 4)
            scale_h = math_ops.cast(sz[0], F32) / math_ops.cast(cur_h, F32)
            scale_w = math_ops.cast(sz[1], F32) / math_ops.cast(cur_w, F32)
            scale = math_ops.minimum(scale_h, scale_w)
            new_h = math_ops.cast(math_ops.round(scale * math_ops.cast(cur_h, F32)), dtypes.int32)
            new_w = math_ops.cast(math_ops.round(scale * math_ops.cast(cur_w, F32)), dtypes.int32)
            sz = array_ops.stack([new_h, new_w], name="size")
        const = tensor_util.constant_value_as_shape(sz)
        new_h_const = const[0].value if const.ndims else None
        new_w_const = const[1].value if const.ndims else None
        if (
            None not in (new_w_const, width, new_h_const, height)
            and width == new_w_const
            and height == new_h_const
        ):
            return img if is_batch else array_ops.squeeze(img, axis=[0])
        resizer = _RESIZERS.get(method)
        if resizer is None:
            raise ValueError(f"Resize method is not implemented: {method}")
        if resizer is resize_area:
            out = resize_area(img, sz, align_corners=align_corners)
        else:
            out = resizer(img, sz, align_corners=align_corners)
        out.set_shape([None, new_h_const, new_w_const, None])
        return out if is_batch else array_ops.squeeze(out, axis=[0])


resize = resize_images


def resize_image_with_pad(
    image: Any,
    target_height: Any,
    target_width: Any,
    method: Any = ResizeMethod.BILINEAR,
    align_corners: bool = False,
) -> Tensor:
    with name_scope(None, "resize_image_with_pad", [image]):
        img, is_batch = _batched(convert_to_tensor(image, name="image"))
        checks = _check_at_least_3d(img, require_static=False)
        checks += _check(target_width > 0, "target_width must be > 0.")
        checks += _check(target_height > 0, "target_height must be > 0.")
        img = control_flow_ops.with_dependencies(checks, img)
        _, height, width, _ = _image_dims(img, 4)
        # 1.15 works the ratio out in float64.
        f64 = dtypes.float64
        f_height = math_ops.cast(height, f64)
        f_width = math_ops.cast(width, f64)
        f_target_height = math_ops.cast(target_height, f64)
        f_target_width = math_ops.cast(target_width, f64)
        ratio = _max(f_width / f_target_width, f_height / f_target_height)
        resized_height_float = f_height / ratio
        resized_width_float = f_width / ratio
        resized_height = math_ops.cast(math_ops.floor(resized_height_float), dtypes.int32)
        resized_width = math_ops.cast(math_ops.floor(resized_width_float), dtypes.int32)
        padding_height = (f_target_height - resized_height_float) / 2
        padding_width = (f_target_width - resized_width_float) / 2
        p_height = _max(0, math_ops.cast(math_ops.floor(padding_height), dtypes.int32))
        p_width = _max(0, math_ops.cast(math_ops.floor(padding_width), dtypes.int32))
        resized = resize_images(
            img, array_ops.stack([resized_height, resized_width]), method, align_corners
        )
        padded = pad_to_bounding_box(resized, p_height, p_width, target_height, target_width)
        if padded.shape.ndims is None:
            raise ValueError("padded contains no shape.")
        _image_dims(padded, 4)
        return padded if is_batch else array_ops.squeeze(padded, axis=[0])


# ---- dtype conversion ----------------------------------------------------------------------
def convert_image_dtype(
    image: Any, dtype: Any, saturate: bool = False, name: str | None = None
) -> Tensor:
    """TF's rules: integer ranges scale by powers of two (floor-divided down, multiplied up),
    integers map to [0, 1] floats by 1/max, floats to integers by max + 0.5 then a cast."""
    img = convert_to_tensor(image, name="image")
    dt = dtypes.as_dtype(dtype).base_dtype
    if not dt.is_floating and not dt.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    src = img.dtype.base_dtype
    if not src.is_floating and not src.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dt == src:
        return array_ops.identity(img, name=name)
    with name_scope(name, "convert_image", [img]) as scope:
        if src.is_integer and dt.is_integer:
            scale_in, scale_out = int(src.max), int(dt.max)
            if scale_in > scale_out:
                scaled = math_ops.floordiv(img, (scale_in + 1) // (scale_out + 1))
                if saturate:
                    return math_ops.saturate_cast(scaled, dt, name=scope)
                return math_ops.cast(scaled, dt, name=scope)
            cast = math_ops.saturate_cast(img, dt) if saturate else math_ops.cast(img, dt)
            return math_ops.multiply(cast, (scale_out + 1) // (scale_in + 1), name=scope)
        if src.is_floating and dt.is_floating:
            return math_ops.cast(img, dt, name=scope)
        if src.is_integer:
            cast = math_ops.cast(img, dt)
            return math_ops.multiply(cast, 1.0 / float(src.max), name=scope)
        scaled = math_ops.multiply(img, float(dt.max) + 0.5)
        if saturate:
            return math_ops.saturate_cast(scaled, dt, name=scope)
        return math_ops.cast(scaled, dt, name=scope)


# ---- colour --------------------------------------------------------------------------------
def _to_float(image: Tensor) -> Tensor:
    if image.dtype.base_dtype in (dtypes.float16, F32):
        return image
    return convert_image_dtype(image, F32)


def adjust_brightness(image: Any, delta: Any) -> Tensor:
    with name_scope(None, "adjust_brightness", [image, delta]) as scope:
        img = convert_to_tensor(image, name="image")
        flt = _to_float(img)
        adjusted = math_ops.add(flt, math_ops.cast(delta, flt.dtype), name=scope)
        return convert_image_dtype(adjusted, img.dtype, saturate=True)


def adjust_contrast(images: Any, contrast_factor: Any) -> Tensor:
    with name_scope(None, "adjust_contrast", [images, contrast_factor]) as scope:
        img = convert_to_tensor(images, name="images")
        flt = _to_float(img)
        factor = convert_to_tensor(contrast_factor, dtype=F32, name="contrast_factor")
        attrs = {"T": flt.dtype.base_dtype}
        adjusted = _node("AdjustContrastv2", [flt, factor], attrs, scope).outputs[0]
        return convert_image_dtype(adjusted, img.dtype, saturate=True)


def adjust_gamma(image: Any, gamma: Any = 1, gain: Any = 1) -> Tensor:
    with name_scope(None, "adjust_gamma", [image, gamma, gain]):
        img = convert_to_tensor(image, name="image")
        flt = _to_float(img)
        checks = _check(gamma >= 0, "Gamma should be a non-negative real number.")
        if checks:
            gamma = control_flow_ops.with_dependencies(checks, gamma)
        adjusted = gain * flt**gamma
        return convert_image_dtype(adjusted, img.dtype, saturate=True)


def adjust_hue(image: Any, delta: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "adjust_hue", [image]):
        img = convert_to_tensor(image, name="image")
        flt = _to_float(img)
        d = convert_to_tensor(delta, dtype=F32, name="delta")
        altered = _node("AdjustHue", [flt, d], {"T": flt.dtype.base_dtype}, None).outputs[0]
        return convert_image_dtype(altered, img.dtype)


def adjust_saturation(image: Any, saturation_factor: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "adjust_saturation", [image]):
        img = convert_to_tensor(image, name="image")
        flt = _to_float(img)
        scale = convert_to_tensor(saturation_factor, dtype=F32, name="scale")
        attrs = {"T": flt.dtype.base_dtype}
        adjusted = _node("AdjustSaturation", [flt, scale], attrs, None).outputs[0]
        return convert_image_dtype(adjusted, img.dtype)


def _random_factor(lower: Any, upper: Any, seed: int | None) -> Tensor:
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return random_ops.random_uniform([], lower, upper, seed=seed)


def random_brightness(image: Any, max_delta: Any, seed: int | None = None) -> Tensor:
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def random_contrast(image: Any, lower: Any, upper: Any, seed: int | None = None) -> Tensor:
    return adjust_contrast(image, _random_factor(lower, upper, seed))


def random_saturation(image: Any, lower: Any, upper: Any, seed: int | None = None) -> Tensor:
    return adjust_saturation(image, _random_factor(lower, upper, seed))


def random_hue(image: Any, max_delta: Any, seed: int | None = None) -> Tensor:
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


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


def _contract_last(images: Tensor, kernel: Any, name: str | None = None) -> Tensor:
    """images [..., 3] x kernel [3, k] -> [..., k]: TF's tensordot over the last axis, as a
    reshape to 2-D, one MatMul and a reshape back."""
    k = convert_to_tensor(np.asarray(kernel), dtype=images.dtype, name="kernel")
    shape = images.shape
    flat = array_ops.reshape(images, [-1, 3])
    product = math_ops.matmul(flat, k)
    if shape.ndims is not None and shape[:-1].is_fully_defined():
        out_shape: Any = [*shape.as_list()[:-1], int(k.shape[1].value or 0)]
    else:
        lead = array_ops.slice(
            array_ops.shape(images), [0], array_ops.stack([array_ops.rank(images) - 1])
        )
        out_shape = array_ops.concat([lead, [int(k.shape[1].value or 0)]], 0)
    out = array_ops.reshape(product, out_shape, name=name)
    if shape.ndims is not None:
        out.set_shape(shape[:-1].concatenate([k.shape[1].value]))
    return out


def rgb_to_grayscale(images: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "rgb_to_grayscale", [images]) as scope:
        img = convert_to_tensor(images, name="images")
        flt = convert_image_dtype(img, F32)
        gray = _contract_last(flt, np.array([[0.2989], [0.5870], [0.1140]], np.float32))
        return convert_image_dtype(gray, img.dtype, name=scope)


def grayscale_to_rgb(images: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "grayscale_to_rgb", [images]) as scope:
        img = convert_to_tensor(images, name="images")
        shape = img.shape
        if shape.ndims is not None:
            if shape.ndims < 2:
                raise ValueError(
                    f"A grayscale image (shape {shape}) must be at least two-dimensional."
                )
            if shape.is_fully_defined() and shape[-1].value != 1:
                raise ValueError("Last dimension of a grayscale image should be size 1.")
        img = control_flow_ops.with_dependencies([], img)
        rank_1 = array_ops.expand_dims(array_ops.rank(img) - 1, 0)
        multiples = array_ops.concat(
            [array_ops.ones(rank_1, dtype=dtypes.int32), array_ops.expand_dims(3, 0)], 0
        )
        rgb = array_ops.tile(img, multiples, name=scope)
        if shape.ndims is not None:
            rgb.set_shape(shape[:-1].concatenate([3]))
        return rgb


def rgb_to_hsv(images: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "RGBToHSV", [images]) as scope:
        img = convert_to_tensor(images, name="images")
        return _node("RGBToHSV", [img], {"T": img.dtype.base_dtype}, scope).outputs[0]


def hsv_to_rgb(images: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "HSVToRGB", [images]) as scope:
        img = convert_to_tensor(images, name="images")
        return _node("HSVToRGB", [img], {"T": img.dtype.base_dtype}, scope).outputs[0]


_RGB_TO_YIQ = [
    [0.299, 0.59590059, 0.2115],
    [0.587, -0.27455667, -0.52273617],
    [0.114, -0.32134392, 0.31119955],
]
_YIQ_TO_RGB = [
    [1, 1, 1],
    [0.95598634, -0.27201283, -1.10674021],
    [0.6208248, -0.64720424, 1.70423049],
]
_RGB_TO_YUV = [
    [0.299, -0.14714119, 0.61497538],
    [0.587, -0.28886916, -0.51496512],
    [0.114, 0.43601035, -0.10001026],
]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _colour_matrix(images: Any, kernel: Any) -> Tensor:
    img = convert_to_tensor(images, name="images")
    return _contract_last(img, np.asarray(kernel, img.dtype.as_numpy_dtype))


def rgb_to_yiq(images: Any) -> Tensor:
    return _colour_matrix(images, _RGB_TO_YIQ)


def yiq_to_rgb(images: Any) -> Tensor:
    return _colour_matrix(images, _YIQ_TO_RGB)


def rgb_to_yuv(images: Any) -> Tensor:
    return _colour_matrix(images, _RGB_TO_YUV)


def yuv_to_rgb(images: Any) -> Tensor:
    return _colour_matrix(images, _YUV_TO_RGB)


def per_image_standardization(image: Any) -> Tensor:
    """TF 1.15's: (x - mean) / max(stddev, 1/sqrt(N)), the variance as E[x^2] - E[x]^2."""
    with name_scope(None, "per_image_standardization", [image]) as scope:
        img = _assert_at_least_3d(convert_to_tensor(image, name="image"))
        img = math_ops.cast(img, F32)
        num_pixels = math_ops.reduce_prod(array_ops.shape(img)[-3:])
        mean = math_ops.reduce_mean(img, axis=[-1, -2, -3], keepdims=True)
        variance = math_ops.reduce_mean(
            math_ops.square(img), axis=[-1, -2, -3], keepdims=True
        ) - math_ops.square(mean)
        from tfcluster.ops import nn_ops

        variance = nn_ops.relu(variance)
        stddev = math_ops.sqrt(variance)
        min_stddev = math_ops.rsqrt(math_ops.cast(num_pixels, F32))
        scale = math_ops.maximum(stddev, min_stddev)
        img = math_ops.subtract(img, mean)
        return math_ops.div(img, scale, name=scope)


# ---- measures ------------------------------------------------------------------------------
def total_variation(images: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "total_variation"):
        img = convert_to_tensor(images, name="images")
        ndims = img.shape.ndims
        if ndims == 3:
            dif1 = img[1:, :, :] - img[:-1, :, :]
            dif2 = img[:, 1:, :] - img[:, :-1, :]
            axis = None
        elif ndims == 4:
            dif1 = img[:, 1:, :, :] - img[:, :-1, :, :]
            dif2 = img[:, :, 1:, :] - img[:, :, :-1, :]
            axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return math_ops.reduce_sum(math_ops.abs(dif1), axis=axis) + math_ops.reduce_sum(
            math_ops.abs(dif2), axis=axis
        )


def image_gradients(image: Any) -> tuple[Tensor, Tensor]:
    img = convert_to_tensor(image, name="image")
    if img.shape.ndims != 4:
        raise ValueError(
            f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {img.shape}."
        )
    image_shape = array_ops.shape(img)
    batch, height, width, depth = array_ops.unstack(image_shape)
    dy = img[:, 1:, :, :] - img[:, :-1, :, :]
    dx = img[:, :, 1:, :] - img[:, :, :-1, :]
    dy = array_ops.concat(
        [dy, array_ops.zeros(array_ops.stack([batch, 1, width, depth]), img.dtype)], 1
    )
    dy = array_ops.reshape(dy, image_shape)
    dx = array_ops.concat(
        [dx, array_ops.zeros(array_ops.stack([batch, height, 1, depth]), img.dtype)], 2
    )
    dx = array_ops.reshape(dx, image_shape)
    return dy, dx


def sobel_edges(image: Any) -> Tensor:
    """[batch, h, w, d, 2]: dy and dx Sobel responses of each channel over the reflect-padded
    image (TF's depthwise convolution, run as one Conv2D over the channels moved into the
    batch)."""
    from tfcluster.ops import nn_ops

    img = convert_to_tensor(image, name="image")
    static = img.shape
    image_shape = array_ops.shape(img)
    kernels = np.array(
        [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]],
        img.dtype.as_numpy_dtype,
    )
    kernels_t = convert_to_tensor(
        np.transpose(kernels, (1, 2, 0))[:, :, None, :], name="sobel_filters"
    )
    padded = array_ops.pad(img, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    per_channel = array_ops.transpose(padded, [0, 3, 1, 2])
    pshape = array_ops.shape(per_channel)
    flat = array_ops.expand_dims(
        array_ops.reshape(per_channel, array_ops.concat([[-1], pshape[2:]], 0)), -1
    )
    conv = nn_ops.conv2d(flat, kernels_t, [1, 1, 1, 1], "VALID")
    out = array_ops.reshape(
        conv, array_ops.concat([image_shape[:1], image_shape[3:], image_shape[1:3], [2]], 0)
    )
    out = array_ops.transpose(out, [0, 2, 3, 1, 4])
    out.set_shape(static.concatenate([2]))
    return out


def psnr(a: Any, b: Any, max_val: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "PSNR", [a, b]):
        at = convert_to_tensor(a, name="a")
        bt = convert_to_tensor(b, name="b")
        mv = math_ops.cast(max_val, at.dtype)
        mv = convert_image_dtype(mv, F32)
        at = convert_image_dtype(at, F32)
        bt = convert_image_dtype(bt, F32)
        mse = math_ops.reduce_mean(math_ops.squared_difference(at, bt), [-3, -2, -1])
        value = math_ops.subtract(
            20 * math_ops.log(mv) / math_ops.log(10.0),
            np.float32(10 / np.log(10)) * math_ops.log(mse),
            name="psnr",
        )
        sa, sb = at.shape.with_rank_at_least(3), bt.shape.with_rank_at_least(3)
        sa[-3:].assert_is_compatible_with(sb[-3:])
        return array_ops.identity(value)


def _per_channel_conv(x: Tensor, kernel: Tensor) -> Tensor:
    """TF's depthwise_conv2d(x, tile(kernel, [1, 1, C, 1]), VALID) for one [k, k, 1, 1]
    kernel shared by every channel: one Conv2D over the channels moved into the batch."""
    from tfcluster.ops import nn_ops

    shape = array_ops.shape(x)
    planes = array_ops.transpose(x, [0, 3, 1, 2])
    flat = array_ops.expand_dims(
        array_ops.reshape(planes, array_ops.concat([[-1], shape[1:3]], 0)), -1
    )
    y = nn_ops.conv2d(flat, kernel, [1, 1, 1, 1], "VALID")
    ys = array_ops.shape(y)
    y = array_ops.reshape(y, array_ops.stack([shape[0], shape[3], ys[1], ys[2]]))
    return array_ops.transpose(y, [0, 2, 3, 1])


def _ssim_helper(
    x: Tensor, y: Tensor, reducer: Callable[[Tensor], Tensor], max_val: Any, k1: float, k2: float
) -> tuple[Tensor, Tensor]:
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0 = reducer(x)
    mean1 = reducer(y)
    num0 = mean0 * mean1 * 2.0
    den0 = math_ops.square(mean0) + math_ops.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(math_ops.square(x) + math_ops.square(y))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return luminance, cs


def _fspecial_gauss(size: Tensor, sigma: Tensor) -> Tensor:
    from tfcluster.ops import nn_ops

    coords = math_ops.cast(math_ops.range(size), sigma.dtype)
    coords -= math_ops.cast(size - 1, sigma.dtype) / 2.0
    g = math_ops.square(coords)
    g *= -0.5 / math_ops.square(sigma)
    g = array_ops.reshape(g, [1, -1]) + array_ops.reshape(g, [-1, 1])
    g = nn_ops.softmax(array_ops.reshape(g, [1, -1]))
    return array_ops.reshape(g, array_ops.stack([size, size, 1, 1]))


def _ssim_per_channel(
    img1: Tensor,
    img2: Tensor,
    max_val: Any,
    filter_size: int,
    filter_sigma: float,
    k1: float,
    k2: float,
) -> tuple[Tensor, Tensor]:
    size = convert_to_tensor(filter_size, dtype=dtypes.int32)
    sigma = convert_to_tensor(filter_sigma, dtype=img1.dtype.base_dtype)
    kernel = _fspecial_gauss(size, sigma)

    def reducer(x: Tensor) -> Tensor:
        shape = array_ops.shape(x)
        flat = array_ops.reshape(x, array_ops.concat([[-1], shape[-3:]], 0))
        y = _per_channel_conv(flat, kernel)
        return array_ops.reshape(y, array_ops.concat([shape[:-3], array_ops.shape(y)[1:]], 0))

    luminance, cs = _ssim_helper(img1, img2, reducer, max_val, k1, k2)
    axes = convert_to_tensor([-3, -2], dtype=dtypes.int32)
    return math_ops.reduce_mean(luminance * cs, axes), math_ops.reduce_mean(cs, axes)


def _float_images(img1: Any, img2: Any, max_val: Any) -> tuple[Tensor, Tensor, Tensor]:
    a = convert_to_tensor(img1, name="img1")
    b = convert_to_tensor(img2, name="img2")
    sa, sb = a.shape.with_rank_at_least(3), b.shape.with_rank_at_least(3)
    sa[-3:].assert_is_compatible_with(sb[-3:])
    mv = convert_image_dtype(math_ops.cast(max_val, a.dtype), F32)
    return convert_image_dtype(a, F32), convert_image_dtype(b, F32), mv


def _batch_shaped(value: Tensor, image: Tensor) -> Tensor:
    """The per-image result has the image's batch dims (TF infers them through the shape
    arithmetic of the window sums)."""
    if image.shape.ndims is not None:
        value.set_shape(image.shape[:-3])
    return value


def ssim(
    img1: Any,
    img2: Any,
    max_val: Any,
    filter_size: int = 11,
    filter_sigma: float = 1.5,
    k1: float = 0.01,
    k2: float = 0.03,
) -> Tensor:
    """Structural similarity per image (Wang et al. 2004), as TF computes it: an 11x11
    Gaussian window slid over each channel (VALID), averaged over the window positions and
    the channels."""
    with name_scope(None, "SSIM", [img1, img2]):
        a, b, mv = _float_images(img1, img2, max_val)
        per_channel, _ = _ssim_per_channel(a, b, mv, filter_size, filter_sigma, k1, k2)
        return _batch_shaped(math_ops.reduce_mean(per_channel, [-1]), a)


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def ssim_multiscale(
    img1: Any,
    img2: Any,
    max_val: Any,
    power_factors: Sequence[float] = _MSSSIM_WEIGHTS,
    filter_size: int = 11,
    filter_sigma: float = 1.5,
    k1: float = 0.01,
    k2: float = 0.03,
) -> Tensor:
    """Multi-scale SSIM: contrast-structure at each of len(power_factors) scales (each half
    the last, average-pooled, odd sizes padded symmetrically) and SSIM at the coarsest."""
    from tfcluster.ops import nn_ops

    with name_scope(None, "MS-SSIM", [img1, img2]):
        a, b, mv = _float_images(img1, img2, max_val)
        imgs = [a, b]
        shape = array_ops.shape(a)
        head, tail = shape[:-3], shape[-3:]
        tails = [tail, array_ops.shape(b)[-3:]]
        divisor = [1, 2, 2, 1]
        divisor_tensor = convert_to_tensor(divisor[1:], dtype=dtypes.int32)
        mcs = []
        per_channel = None
        for k in range(len(power_factors)):
            with name_scope(None, f"Scale{k}", imgs):
                if k > 0:
                    flat = [
                        array_ops.reshape(x, array_ops.concat([[-1], t], 0))
                        for x, t in zip(imgs, tails)
                    ]
                    remainder = math_ops.floormod(tails[0], divisor_tensor)
                    padding = array_ops.pad(array_ops.expand_dims(remainder, -1), [[1, 0], [1, 0]])
                    padded = [array_ops.pad(x, padding, mode="SYMMETRIC") for x in flat]
                    down = [
                        nn_ops.avg_pool(x, ksize=divisor, strides=divisor, padding="VALID")
                        for x in padded
                    ]
                    tails = [array_ops.shape(x)[1:] for x in down]
                    imgs = [
                        array_ops.reshape(x, array_ops.concat([head, t], 0))
                        for x, t in zip(down, tails)
                    ]
                per_channel, cs = _ssim_per_channel(
                    imgs[0], imgs[1], mv, filter_size, filter_sigma, k1, k2
                )
                mcs.append(nn_ops.relu(cs))
        mcs.pop()
        assert per_channel is not None
        stacked = array_ops.stack([*mcs, nn_ops.relu(per_channel)], axis=-1)
        weights = convert_to_tensor(np.asarray(power_factors, np.float32))
        ms_ssim = math_ops.reduce_prod(math_ops.pow(stacked, weights), [-1])
        return _batch_shaped(math_ops.reduce_mean(ms_ssim, [-1]), a)


def _patches_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    from tfcluster.framework.common_shapes import windowed_output_size

    b, rows, cols, depth = _rank(inputs[0].shape, 4, "ExtractImagePatches", "images")
    k, st, rt = attrs["ksizes"], attrs["strides"], attrs["rates"]
    for key in ("ksizes", "strides", "rates"):
        value = list(attrs[key])
        if len(value) != 4 or value[0] != 1 or value[3] != 1:
            raise ValueError(
                f"ExtractImagePatches: {key} must be [1, r, c, 1] (batch and depth not "
                f"supported), got {value}"
            )
    padding = attrs["padding"]
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Unknown padding {padding!r} (ExtractImagePatches)")

    def out(size: int | None, index: int) -> int | None:
        if size is None:
            return None
        n = windowed_output_size(size, int(k[index]), int(st[index]), int(rt[index]), padding)[0]
        if n <= 0:
            raise ValueError(
                f"Negative dimension size caused by the window of ExtractImagePatches on {size}"
            )
        return n

    patch = None if depth is None else int(k[1]) * int(k[2]) * depth
    return [(inputs[0].dtype.base_dtype, TensorShape([b, out(rows, 1), out(cols, 2), patch]))]


op_def_registry.register("ExtractImagePatches", _patches_infer)


def extract_image_patches(
    images: Any,
    ksizes: Any = None,
    strides: Any = None,
    rates: Any = None,
    padding: Any = None,
    name: str | None = None,
    sizes: Any = None,
) -> Tensor:
    """Each output pixel holds the patch around it (tf.image.extract_image_patches; `sizes`
    is the newer name of `ksizes`)."""
    if ksizes is not None and sizes is not None:
        raise ValueError("Cannot specify both 'sizes' and 'ksizes'")
    ksizes = sizes if ksizes is None else ksizes
    with name_scope(name, "ExtractImagePatches", [images]) as scope:
        img = convert_to_tensor(images, name="images")
        pad = padding.decode() if isinstance(padding, bytes) else str(padding)
        attrs = {
            "T": img.dtype.base_dtype,
            "ksizes": [int(v) for v in ksizes],
            "strides": [int(v) for v in strides],
            "rates": [int(v) for v in rates],
            "padding": pad,
        }
        return _node("ExtractImagePatches", [img], attrs, scope).outputs[0]


def extract_patches(
    images: Any, sizes: Any, strides: Any, rates: Any, padding: Any, name: str | None = None
) -> Tensor:
    return extract_image_patches(images, sizes, strides, rates, padding, name=name)


def _glimpse_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    b, _, _, depth = _rank(inputs[0].shape, 4, "ExtractGlimpse", "input")
    h, w = _size_dims(inputs[1], "ExtractGlimpse")
    return [(F32, TensorShape([b, h, w, depth]))]


op_def_registry.register("ExtractGlimpse", _glimpse_infer, stateful=True)


def extract_glimpse(
    input: Any,
    size: Any,
    offsets: Any,
    centered: bool = True,
    normalized: bool = True,
    uniform_noise: bool = True,
    name: str | None = None,
) -> Tensor:
    """Windows of `size` at `offsets` ([y, x] per image); outside the image, noise."""
    with name_scope(name, "ExtractGlimpse", [input, size, offsets]) as scope:
        inputs = [
            convert_to_tensor(input, dtype=F32, name="input"),
            _int32(size, "size"),
            convert_to_tensor(offsets, dtype=F32, name="offsets"),
        ]
        attrs = {
            "centered": bool(centered),
            "normalized": bool(normalized),
            "uniform_noise": bool(uniform_noise),
            "noise": "uniform" if uniform_noise else "gaussian",
        }
        return _node("ExtractGlimpse", inputs, attrs, scope).outputs[0]


# ---- boxes ---------------------------------------------------------------------------------
def crop_and_resize(
    image: Any,
    boxes: Any,
    box_ind: Any = None,
    crop_size: Any = None,
    method: str = "bilinear",
    extrapolation_value: float = 0,
    name: str | None = None,
    box_indices: Any = None,
) -> Tensor:
    if box_ind is not None and box_indices is not None:
        raise ValueError("Cannot specify both 'box_indices' and 'box_ind'")
    box_ind = box_indices if box_ind is None else box_ind
    with name_scope(name, "CropAndResize", [image, boxes, box_ind, crop_size]) as scope:
        img = convert_to_tensor(image, name="image")
        bx = convert_to_tensor(boxes, dtype=F32, name="boxes")
        bi = _int32(box_ind, "box_ind")
        cs = _int32(crop_size, "crop_size")
        attrs = {
            "T": img.dtype.base_dtype,
            "method": str(method),
            "extrapolation_value": float(extrapolation_value),
        }
        return _node("CropAndResize", [img, bx, bi, cs], attrs, scope).outputs[0]


def draw_bounding_boxes(
    images: Any, boxes: Any, name: str | None = None, colors: Any = None
) -> Tensor:
    op_type = "DrawBoundingBoxes" if colors is None else "DrawBoundingBoxesV2"
    with name_scope(name, op_type, [images, boxes]) as scope:
        img = convert_to_tensor(images, name="images")
        inputs = [img, convert_to_tensor(boxes, dtype=F32, name="boxes")]
        if colors is not None:
            inputs.append(convert_to_tensor(colors, dtype=F32, name="colors"))
        return _node(op_type, inputs, {"T": img.dtype.base_dtype}, scope).outputs[0]


def _nms_common(boxes: Any, scores: Any, max_output_size: Any) -> list[Tensor]:
    bx = convert_to_tensor(boxes, name="boxes")
    sc = convert_to_tensor(scores, dtype=bx.dtype.base_dtype, name="scores")
    return [bx, sc, _int32(max_output_size, "max_output_size")]


def non_max_suppression(
    boxes: Any,
    scores: Any,
    max_output_size: Any,
    iou_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "non_max_suppression"):
        iou = convert_to_tensor(iou_threshold, dtype=F32, name="iou_threshold")
        score = convert_to_tensor(score_threshold, dtype=F32, name="score_threshold")
        inputs = [*_nms_common(boxes, scores, max_output_size), iou, score]
        attrs = {"T": inputs[0].dtype.base_dtype, "T_threshold": F32}
        return _node("NonMaxSuppressionV3", inputs, attrs, None).outputs[0]


def non_max_suppression_with_scores(
    boxes: Any,
    scores: Any,
    max_output_size: Any,
    iou_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    soft_nms_sigma: Any = 0.0,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    with name_scope(name, "non_max_suppression_with_scores"):
        iou = convert_to_tensor(iou_threshold, dtype=F32, name="iou_threshold")
        score = convert_to_tensor(score_threshold, dtype=F32, name="score_threshold")
        sigma = convert_to_tensor(soft_nms_sigma, dtype=F32, name="soft_nms_sigma")
        inputs = [*_nms_common(boxes, scores, max_output_size), iou, score, sigma]
        attrs = {"T": inputs[0].dtype.base_dtype, "pad_to_max_output_size": False}
        op = _node("NonMaxSuppressionV5", inputs, attrs, None)
        return op.outputs[0], op.outputs[1]


def non_max_suppression_padded(
    boxes: Any,
    scores: Any,
    max_output_size: Any,
    iou_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    pad_to_max_output_size: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    with name_scope(name, "non_max_suppression_padded"):
        iou = convert_to_tensor(iou_threshold, dtype=F32, name="iou_threshold")
        score = convert_to_tensor(score_threshold, dtype=F32, name="score_threshold")
        inputs = [*_nms_common(boxes, scores, max_output_size), iou, score]
        attrs = {
            "T": inputs[0].dtype.base_dtype,
            "T_threshold": F32,
            "pad_to_max_output_size": bool(pad_to_max_output_size),
        }
        op = _node("NonMaxSuppressionV4", inputs, attrs, None)
        return op.outputs[0], op.outputs[1]


def non_max_suppression_overlaps(
    overlaps: Any,
    scores: Any,
    max_output_size: Any,
    overlap_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "non_max_suppression_overlaps"):
        threshold = convert_to_tensor(overlap_threshold, dtype=F32, name="overlap_threshold")
        inputs = [
            convert_to_tensor(overlaps, dtype=F32, name="overlaps"),
            convert_to_tensor(scores, dtype=F32, name="scores"),
            _int32(max_output_size, "max_output_size"),
            threshold,
            convert_to_tensor(score_threshold, dtype=F32, name="score_threshold"),
        ]
        return _node("NonMaxSuppressionWithOverlaps", inputs, {}, None).outputs[0]


def _combined_nms_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    b = _rank(inputs[0].shape, 4, "CombinedNonMaxSuppression", "boxes")[0]
    _rank(inputs[1].shape, 3, "CombinedNonMaxSuppression", "scores")
    total = tensor_util.constant_value(inputs[3])
    width: int | None = None if total is None else int(total)
    per_class = tensor_util.constant_value(inputs[2])
    classes = inputs[1].shape[2].value if inputs[1].shape.ndims == 3 else None
    if attrs.get("pad_per_class", False):
        if width is not None and per_class is not None and classes is not None:
            width = min(width, int(per_class) * classes)
        else:
            width = None
    return [
        (F32, TensorShape([b, width, 4])),
        (F32, TensorShape([b, width])),
        (F32, TensorShape([b, width])),
        (dtypes.int32, TensorShape([b])),
    ]


op_def_registry.register("CombinedNonMaxSuppression", _combined_nms_infer)


def combined_non_max_suppression(
    boxes: Any,
    scores: Any,
    max_output_size_per_class: Any,
    max_total_size: Any,
    iou_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    pad_per_class: bool = False,
    clip_boxes: bool = True,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    with name_scope(name, "combined_non_max_suppression"):
        iou = convert_to_tensor(iou_threshold, dtype=F32, name="iou_threshold")
        score = convert_to_tensor(score_threshold, dtype=F32, name="score_threshold")
        inputs = [
            convert_to_tensor(boxes, dtype=F32, name="boxes"),
            convert_to_tensor(scores, dtype=F32, name="scores"),
            _int32(max_output_size_per_class, "max_output_size_per_class"),
            _int32(max_total_size, "max_total_size"),
            iou,
            score,
        ]
        attrs = {"pad_per_class": bool(pad_per_class), "clip_boxes": bool(clip_boxes)}
        op = _node("CombinedNonMaxSuppression", inputs, attrs, None)
        return op.outputs[0], op.outputs[1], op.outputs[2], op.outputs[3]


def sample_distorted_bounding_box(
    image_size: Any,
    bounding_boxes: Any,
    seed: int | None = None,
    seed2: int | None = None,
    min_object_covered: Any = 0.1,
    aspect_ratio_range: Any = None,
    area_range: Any = None,
    max_attempts: Any = None,
    use_image_if_no_bounding_boxes: Any = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    from tfcluster.framework.graph import get_seed

    with name_scope(name, "sample_distorted_bounding_box"):
        size = convert_to_tensor(image_size, name="image_size")
        boxes = convert_to_tensor(bounding_boxes, dtype=F32, name="bounding_boxes")
        covered = convert_to_tensor(min_object_covered, dtype=F32, name="min_object_covered")
        s1, s2 = get_seed(seed)
        attrs: dict[str, Any] = {
            "T": size.dtype.base_dtype,
            "seed": int(s1 or 0) if seed2 is None else int(seed or 0),
            "seed2": int(s2 or 0) if seed2 is None else int(seed2),
            "aspect_ratio_range": [float(v) for v in (aspect_ratio_range or [0.75, 1.33])],
            "area_range": [float(v) for v in (area_range or [0.05, 1.0])],
            "max_attempts": int(max_attempts or 100),
            "use_image_if_no_bounding_boxes": bool(use_image_if_no_bounding_boxes or False),
        }
        op = _node("SampleDistortedBoundingBoxV2", [size, boxes, covered], attrs, None)
        return op.outputs[0], op.outputs[1], op.outputs[2]


def random_crop(value: Any, size: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """A uniformly placed slice of the given size (TF's random_ops.random_crop)."""
    with name_scope(name, "random_crop", [value, size]) as scope:
        v = convert_to_tensor(value, name="value")
        sz = _int32(size, "size")
        shape = array_ops.shape(v)
        limit = shape - sz + 1
        offset = math_ops.floormod(
            random_ops.random_uniform(
                array_ops.shape(shape), dtype=sz.dtype, maxval=sz.dtype.max, seed=seed
            ),
            limit,
        )
        return array_ops.slice(v, offset, sz, name=scope)
