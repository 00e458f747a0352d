"""Image measures and sliding windows (total_variation, image_gradients, sobel_edges,
psnr, ssim, ssim_multiscale, extract_image_patches), as TF 1.15 composes them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.image_ops import convert_image_dtype
from tfcluster.ops.image_shapes import add_node as _node
from tfcluster.ops.image_shapes import rank_dims as _rank
from tfcluster.ops.op_util import Outputs

F32 = dtypes.float32


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
    image, as TF 1.15 builds it (the filters tiled per channel, one depthwise convolution)."""
    from tfcluster.ops import constant_op, conv_ops

    static = image.get_shape()
    image_shape = array_ops.shape(image)
    kernels = [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]]
    stacked = np.expand_dims(np.transpose(np.asarray(kernels), (1, 2, 0)), -2)
    kernels_t = constant_op.constant(stacked, dtype=image.dtype)
    kernels_t = array_ops.tile(kernels_t, [1, 1, image_shape[-1], 1], name="sobel_filters")
    padded = array_ops.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    output = conv_ops.depthwise_conv2d(padded, kernels_t, [1, 1, 1, 1], "VALID")
    output = array_ops.reshape(output, shape=array_ops.concat([image_shape, [2]], 0))
    output.set_shape(static.concatenate([2]))
    return output


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
