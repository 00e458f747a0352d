"""Image ops: geometry, resizing, dtype conversion and colour (the rest of tf.image lives in
image_codec_ops, image_box_ops and image_window_ops), as TF 1.15's image_ops_impl and
gen_image_ops build them: the same op types, attrs, static shapes and node names.

The kernel-backed ops register here with their shape inference; everything else is composed
from existing ops exactly as TF composes it (flips are ReverseV2, crops Slice, pads Pad, dtype
conversion Cast/Mul/FloorDiv with TF's scaling rules). Checks TF makes at graph construction
raise the same Python errors; checks TF defers to an Assert op on dynamic shapes or tensor
arguments make the same Assert ops (they count towards later op seeds).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import (
    array_ops,
    check_ops,
    control_flow_ops,
    linalg_ops,
    logging_ops,
    math_ops,
    random_ops,
)
from tfcluster.ops.image_shapes import add_node as _node
from tfcluster.ops.image_shapes import int32_tensor as _int32
from tfcluster.ops.image_shapes import is_tensor_like as _is_tensor
from tfcluster.ops.image_shapes import rank_dims as _rank
from tfcluster.ops.image_shapes import size_dims as _size_dims
from tfcluster.ops.op_util import Outputs

F32 = dtypes.float32


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


def _check(cond: Any, msg: str) -> list[Any]:
    """TF's _assert: a static condition raises ValueError now, a tensor one becomes an Assert."""
    if _is_tensor(cond):
        return [logging_ops.Assert(cond, [msg])]
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


def _with_rank_at_least(image: Tensor, rank: int, message: str) -> Any:
    """The image's static shape with at least `rank` dimensions (exactly `rank` when its rank
    is unknown, as TF 1.15's checks take it), or ValueError(message)."""
    try:
        if image.shape.ndims is None:
            return image.shape.with_rank(rank)
        return image.shape.with_rank_at_least(rank)
    except ValueError:
        raise ValueError(message) from None


def _check_at_least_3d(image: Tensor, require_static: bool = True) -> list[Any]:
    shape = _with_rank_at_least(image, 3, "'image' must be at least three-dimensional.")
    if require_static and not shape.is_fully_defined():
        raise ValueError("'image' must be fully defined.")
    checks = _dims_positive(image, shape)
    if checks:
        checks.append(
            check_ops.assert_greater_equal(
                array_ops.rank(image), 3, message="'image' must be at least three-dimensional."
            )
        )
    return checks


def _dims_positive(image: Tensor, shape: Any) -> list[Any]:
    """No zero-sized dimension: refused now when the static shape shows one, checked when the
    step runs (an assert_positive of the shape, as TF 1.15 adds) when the shape is partly
    unknown."""
    if any(d.value == 0 for d in shape):
        raise ValueError(f"all dims of 'image.shape' must be > 0: {shape}")
    if shape.is_fully_defined():
        return []
    return [
        check_ops.assert_positive(
            array_ops.shape(image), ["all dims of 'image.shape' must be > 0."]
        )
    ]


def _check_grayscale(image: Tensor) -> list[Any]:
    """TF 1.15's _CheckGrayscaleImage (require_static=False)."""
    shape = _with_rank_at_least(image, 2, "A grayscale image must be at least two-dimensional.")
    if shape.is_fully_defined():
        if shape[-1].value != 1:
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        return []
    return [
        check_ops.assert_equal(
            array_ops.shape(image)[-1],
            1,
            message="Last dimension of a grayscale image should be size 1.",
        ),
        check_ops.assert_greater_equal(
            array_ops.rank(image), 3, message="A grayscale image must be at least two-dimensional."
        ),
    ]


def _assert_at_least_3d(image: Tensor) -> Tensor:
    return control_flow_ops.with_dependencies(_check_at_least_3d(image, False), image)


def _check_3d(image: Tensor, require_static: bool = True) -> list[Any]:
    try:
        shape = image.shape.with_rank(3)
    except ValueError:
        raise ValueError(f"'image' (shape {image.shape}) must be three-dimensional.") from None
    if require_static and not shape.is_fully_defined():
        raise ValueError(f"'image' (shape {shape}) must be fully defined.")
    return _dims_positive(image, shape)


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
        _assert_at_least_3d(img)  # TF 1.15 makes (and drops) the checked image
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
        checks = _check_at_least_3d(img, require_static=False) if check_dims else []
        batch, height, width, depth = _image_dims(img, 4)
        after_width = target_width - offset_width - width
        after_height = target_height - offset_height - height
        if check_dims:
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
        cropped = array_ops.slice(
            img,
            array_ops.stack([0, offset_height, offset_width, 0]),
            array_ops.stack([-1, target_height, target_width, -1]),
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
        f_padding_height = math_ops.floor(padding_height)
        f_padding_width = math_ops.floor(padding_width)
        p_height = _max(0, math_ops.cast(f_padding_height, dtypes.int32))
        p_width = _max(0, math_ops.cast(f_padding_width, dtypes.int32))
        resized = resize_images(img, [resized_height, resized_width], method, align_corners)
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


def rgb_to_grayscale(images: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "rgb_to_grayscale", [images]) as scope:
        img = convert_to_tensor(images, name="images")
        flt = convert_image_dtype(img, F32)
        gray = linalg_ops.tensordot(flt, [0.2989, 0.5870, 0.1140], [-1, -1])
        gray = array_ops.expand_dims(gray, -1)
        return convert_image_dtype(gray, img.dtype, name=scope)


def grayscale_to_rgb(images: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "grayscale_to_rgb", [images]) as scope:
        img = convert_to_tensor(images, name="images")
        shape = img.shape
        img = control_flow_ops.with_dependencies(_check_grayscale(img), img)
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
    k = convert_to_tensor(kernel, dtype=img.dtype, name="kernel")
    ndims = img.shape.ndims
    if ndims is None:
        raise TypeError("unsupported operand type(s) for -: 'NoneType' and 'int'")
    return linalg_ops.tensordot(img, k, axes=[[ndims - 1], [0]])


def rgb_to_yiq(images: Any) -> Tensor:
    return _colour_matrix(images, _RGB_TO_YIQ)


def yiq_to_rgb(images: Any) -> Tensor:
    return _colour_matrix(images, _YIQ_TO_RGB)


def rgb_to_yuv(images: Any) -> Tensor:
    return _colour_matrix(images, _RGB_TO_YUV)


def yuv_to_rgb(images: Any) -> Tensor:
    return _colour_matrix(images, _YUV_TO_RGB)


def per_image_standardization(image: Any) -> Tensor:
    """TF 1.15.0's: integer images scaled to [0, 1] floats first, (x - mean) / max(stddev,
    1/sqrt(N)), then converted back to the image's dtype (saturated), as 1.15 does."""
    with name_scope(None, "per_image_standardization", [image]) as scope:
        img = _assert_at_least_3d(convert_to_tensor(image, name="image"))
        orig = img.dtype.base_dtype
        if orig not in (dtypes.float16, F32):
            img = convert_image_dtype(img, F32)
        axes = [-1, -2, -3]
        num_pixels = math_ops.reduce_prod(array_ops.shape(img)[-3:])
        mean = math_ops.reduce_mean(img, axis=axes, keepdims=True)
        with name_scope(None, "reduce_std", [img]):
            with name_scope(None, "reduce_variance", [img]):
                centred_mean = math_ops.reduce_mean(img, axis=axes, keepdims=True)
                # Sub then Square, as TF 1.15's reduce_variance (two ops: later op seeds
                # count them).
                variance = math_ops.reduce_mean(
                    math_ops.square(img - centred_mean), axis=axes, keepdims=True
                )
            stddev = math_ops.sqrt(variance)
        min_stddev = math_ops.rsqrt(math_ops.cast(num_pixels, img.dtype))
        adjusted = math_ops.maximum(stddev, min_stddev)
        img = img - mean
        internal_deprecations.called_internally(internal_deprecations.DIV)
        img = math_ops.div(img, adjusted, name=scope)
        return convert_image_dtype(img, orig, saturate=True)


def random_crop(value: Any, size: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """A uniformly placed slice of the given size (TF's random_ops.random_crop)."""
    with name_scope(name, "random_crop", [value, size]) as scope:
        v = convert_to_tensor(value, name="value")
        sz = _int32(size, "size")
        shape = array_ops.shape(v)
        # TF checks the size with an Assert: its ops count towards the draw's op seed.
        check = logging_ops.Assert(
            math_ops.reduce_all(shape >= sz),
            ["Need value.shape >= size, got ", shape, sz],
            summarize=1000,
        )
        shape = control_flow_ops.with_dependencies([check], shape)
        limit = shape - sz + 1
        offset = (
            random_ops.random_uniform(
                array_ops.shape(shape), dtype=sz.dtype, maxval=sz.dtype.max, seed=seed
            )
            % limit
        )
        return array_ops.slice(v, offset, sz, name=scope)
