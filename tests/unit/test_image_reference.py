"""tf.image against TensorFlow 1.15's recorded values (tests/tf_reference/record_image.py, run
with TF 1.15 itself; 2.x's where 1.15 refuses or is undefined, as each case says): the same
cases built with tfcluster give TF's outputs, gradients, static shapes, node names and error
classes; JPEG/PNG files TF wrote decode to TF's pixels, and files tfcluster wrote decode in TF
to what tfcluster decodes."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode
from tf_reference.make_image_samples import sample_image

AREA = "image_tf115"
FLOAT_IMAGES = sample_image(2 * 6, 7, 3).reshape(2, 6, 7, 3).astype(np.float32) / 255.0
UINT8_IMAGE = sample_image(9, 11, 3)
SIZES = [(4, 5), (11, 13), (6, 7), (1, 1), (3, 10)]
FLAGS = [(False, False), (True, False), (False, True)]


def case(name: str) -> dict[str, Any]:
    return reference.case(AREA, name)


def run(fetches: Any, feeds: dict[Any, Any] | None = None) -> Any:
    with tf.Session() as sess:
        return sess.run(fetches, feeds)


def shape_of(t: Any) -> Any:
    if t.shape.ndims is None:
        return None
    return [d if d is not None else -1 for d in t.shape.as_list()]


def weights(shape: list[int], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.5, 1.5, shape).astype(np.float32)


def expect_error(recorded: dict[str, Any], fn: Callable[[], Any]) -> None:
    name = reference.error_class(recorded["error"])
    expected = getattr(tf.errors, name, None) or {"ValueError": ValueError}[name]
    with pytest.raises(expected):
        fn()


# ---- resizes -------------------------------------------------------------------------------
RESIZE_OPS = {
    "bilinear": tf.image.resize_bilinear,
    "nearest": tf.image.resize_nearest_neighbor,
    "bicubic": tf.image.resize_bicubic,
}


@pytest.mark.parametrize("method", sorted(RESIZE_OPS))
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("align,half", FLAGS)
def test_resize_and_its_gradient_match_tensorflow(
    method: str, size: tuple[int, int], align: bool, half: bool
) -> None:
    name = f"resize_{method}_{size[0]}x{size[1]}_align{int(align)}_half{int(half)}"
    rec = case(name)
    x = tf.constant(FLOAT_IMAGES)
    y = RESIZE_OPS[method](x, size, align_corners=align, half_pixel_centers=half)
    w = weights([2, size[0], size[1], 3], len(name))
    (g,) = tf.gradients(tf.reduce_sum(y * w), [x])
    out, grad = run([y, g])
    assert y.name == rec["name"] and shape_of(y) == rec["shape"]
    reference.assert_close(out, rec["output"], rtol=2e-6, atol=2e-7)
    reference.assert_close(grad, rec["grad"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("method", sorted(RESIZE_OPS))
def test_resize_of_uint8_images_matches_tensorflow(method: str) -> None:
    rec = case(f"resize_{method}_uint8")
    y = RESIZE_OPS[method](tf.constant(UINT8_IMAGE[None]), [5, 17])
    assert shape_of(y) == rec["shape"]
    reference.assert_close(run(y), rec["output"], rtol=2e-6, atol=1e-4)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("align", [False, True])
def test_resize_area_matches_tensorflow(size: tuple[int, int], align: bool) -> None:
    rec = case(f"resize_area_{size[0]}x{size[1]}_align{int(align)}")
    y = tf.image.resize_area(tf.constant(FLOAT_IMAGES), size, align_corners=align)
    assert y.name == rec["name"] and shape_of(y) == rec["shape"]
    reference.assert_close(run(y), rec["output"], rtol=1e-5, atol=1e-6)


def test_resize_area_of_uint8_matches_tensorflow() -> None:
    rec = case("resize_area_uint8")
    y = tf.image.resize_area(tf.constant(UINT8_IMAGE[None]), [4, 5])
    reference.assert_close(run(y), rec["output"], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("method", range(4))
def test_resize_images_matches_tensorflow(method: int) -> None:
    rec = case(f"resize_images_method{method}")
    y3 = tf.image.resize_images(tf.constant(UINT8_IMAGE), [5, 6], method=method)
    y4 = tf.image.resize_images(tf.constant(FLOAT_IMAGES), [8, 3], method=method)
    same = tf.image.resize_images(tf.constant(UINT8_IMAGE), [9, 11], method=method)
    kept = tf.image.resize_images(
        tf.constant(FLOAT_IMAGES), [14, 20], method=method, preserve_aspect_ratio=True
    )
    o3, o4, osame, okept = run([y3, y4, same, kept])
    assert [y3.name, y4.name] == list(rec["names"])
    assert same.name == rec["same_size_name"]
    assert [shape_of(t) for t in (y3, y4, same, kept)] == [list(s) for s in rec["shapes"]]
    reference.assert_close(o3, rec["rank3"], rtol=1e-5, atol=1e-4)
    reference.assert_close(o4, rec["rank4"], rtol=1e-5, atol=1e-6)
    reference.assert_close(osame, rec["same_size"])
    reference.assert_close(okept, rec["aspect"], rtol=1e-5, atol=1e-6)


def test_resize_images_with_a_fed_size_matches_tensorflow() -> None:
    rec = case("resize_images_fed_size")
    size = tf.placeholder(tf.int32, [2])
    y = tf.image.resize_images(tf.constant(FLOAT_IMAGES), size)
    assert shape_of(y) == rec["shape"]
    reference.assert_close(run(y, {size: [3, 4]}), rec["output"])


def test_resize_errors_are_tensorflows() -> None:
    expect_error(
        case("resize_images_bad_method"),
        lambda: tf.image.resize_images(tf.constant(FLOAT_IMAGES), [2, 2], method=9),
    )
    y = tf.image.resize_bilinear(tf.constant(FLOAT_IMAGES), [0, 3])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="output dimensions must be"):
            sess.run(y)
        assert sess.run(tf.constant(1.0)) == 1.0  # the session keeps working


@pytest.mark.parametrize("method", [0, 1])
def test_resize_image_with_pad_matches_tensorflow(method: int) -> None:
    rec = case(f"resize_image_with_pad_{method}")
    y = tf.image.resize_image_with_pad(tf.constant(UINT8_IMAGE), 12, 7, method=method)
    y4 = tf.image.resize_image_with_pad(tf.constant(FLOAT_IMAGES), 3, 9, method=method)
    a, b = run([y, y4])
    assert [shape_of(y), shape_of(y4)] == [list(s) for s in rec["shapes"]]
    reference.assert_close(a, rec["rank3"], rtol=1e-5, atol=1e-4)
    reference.assert_close(b, rec["rank4"], rtol=1e-5, atol=1e-6)


# ---- crops, pads, flips --------------------------------------------------------------------
def _geometry(x3: Any, x4: Any) -> dict[str, Any]:
    return {
        "crop3": tf.image.crop_to_bounding_box(x3, 2, 3, 4, 5),
        "crop4": tf.image.crop_to_bounding_box(x4, 1, 0, 5, 7),
        "pad3": tf.image.pad_to_bounding_box(x3, 1, 2, 12, 15),
        "pad4": tf.image.pad_to_bounding_box(x4, 0, 3, 6, 10),
        "crop_or_pad_crop": tf.image.resize_image_with_crop_or_pad(x3, 5, 4),
        "crop_or_pad_pad": tf.image.resize_image_with_crop_or_pad(x3, 14, 16),
        "crop_or_pad_mixed": tf.image.resize_image_with_crop_or_pad(x4, 3, 12),
        "central3": tf.image.central_crop(x3, 0.5),
        "central4": tf.image.central_crop(x4, 0.33),
        "central_all": tf.image.central_crop(x3, 1.0),
        "flip_lr3": tf.image.flip_left_right(x3),
        "flip_ud3": tf.image.flip_up_down(x3),
        "flip_lr4": tf.image.flip_left_right(x4),
        "flip_ud4": tf.image.flip_up_down(x4),
        "transpose3": tf.image.transpose_image(x3),
        "transpose4": tf.image.transpose_image(x4),
        "rot0": tf.image.rot90(x3, 0),
        "rot1": tf.image.rot90(x3),
        "rot2": tf.image.rot90(x3, 2),
        "rot3": tf.image.rot90(x4, 3),
        "rot_neg": tf.image.rot90(x4, -1),
    }


def test_crops_pads_flips_and_rotations_match_tensorflow() -> None:
    fetches = _geometry(tf.constant(UINT8_IMAGE), tf.constant(FLOAT_IMAGES))
    out = run(fetches)
    for key, value in out.items():
        rec = case(f"geometry_{key}")
        reference.assert_close(value, rec["output"])
        assert shape_of(fetches[key]) == rec["shape"], key
        # rot90 is a tf.case: its output is named as TF1's cond/Merge.
        assert fetches[key].name == rec["name"], key


def test_geometry_of_images_of_unknown_size_matches_tensorflow() -> None:
    x = tf.placeholder(tf.float32, [None, None, 3])
    fetches = {
        "crop": tf.image.crop_to_bounding_box(x, 1, 2, 3, 4),
        "pad": tf.image.pad_to_bounding_box(x, 1, 2, 10, 12),
        "crop_or_pad": tf.image.resize_image_with_crop_or_pad(x, 4, 14),
        "central": tf.image.central_crop(x, 0.5),
        "flip": tf.image.flip_left_right(x),
    }
    out = run(fetches, {x: FLOAT_IMAGES[0]})
    for key, value in out.items():
        rec = case(f"geometry_dynamic_{key}")
        reference.assert_close(value, rec["output"])
        assert shape_of(fetches[key]) == rec["shape"], key


GEOMETRY_ERRORS: dict[str, Callable[[Any], Any]] = {
    "crop_too_big": lambda x: tf.image.crop_to_bounding_box(x, 5, 5, 8, 8),
    "crop_negative_offset": lambda x: tf.image.crop_to_bounding_box(x, -1, 0, 2, 2),
    "pad_too_small": lambda x: tf.image.pad_to_bounding_box(x, 0, 0, 3, 3),
    "crop_or_pad_zero": lambda x: tf.image.resize_image_with_crop_or_pad(x, 0, 3),
    "central_bad_fraction": lambda x: tf.image.central_crop(x, 1.5),
    "flip_rank2": lambda x: tf.image.flip_left_right(x[0]),
}


@pytest.mark.parametrize("key", sorted(GEOMETRY_ERRORS))
def test_bad_geometry_raises_tensorflows_error(key: str) -> None:
    expect_error(
        case(f"geometry_error_{key}"), lambda: GEOMETRY_ERRORS[key](tf.constant(UINT8_IMAGE))
    )


RANDOM_OPS: dict[str, Callable[[Any], Any]] = {
    "random_flip_lr3": lambda x: tf.image.random_flip_left_right(x[0], seed=5),
    "random_flip_ud3": lambda x: tf.image.random_flip_up_down(x[0], seed=5),
    "random_flip_lr4": lambda x: tf.image.random_flip_left_right(x, seed=5),
    "random_flip_ud4": lambda x: tf.image.random_flip_up_down(x, seed=5),
    "random_crop": lambda x: tf.image.random_crop(x, [1, 3, 4, 3], seed=3),
    "random_brightness": lambda x: tf.image.random_brightness(x, 0.3, seed=2),
    "random_contrast": lambda x: tf.image.random_contrast(x, 0.5, 1.5, seed=2),
    "random_saturation": lambda x: tf.image.random_saturation(x, 0.5, 1.5, seed=2),
    "random_hue": lambda x: tf.image.random_hue(x, 0.2, seed=2),
}


@pytest.mark.parametrize("key", sorted(RANDOM_OPS))
def test_random_image_ops_have_tensorflows_shapes_and_dtypes(key: str) -> None:
    rec = case(f"random_{key}")
    y = RANDOM_OPS[key](tf.constant(FLOAT_IMAGES))
    value = run(y)
    assert shape_of(y) == rec["shape"] and list(value.shape) == rec["out_shape"]
    assert y.dtype.name == rec["dtype"]
    if not key.startswith("random_flip") or key.endswith("4"):
        assert y.name == rec["name"]


def test_random_flips_flip_or_keep_each_image() -> None:
    x = tf.constant(FLOAT_IMAGES)
    flips = [tf.image.random_flip_left_right(x, seed=s) for s in range(8)]
    ups = [tf.image.random_flip_up_down(x[0], seed=s) for s in range(8)]
    seen = set()
    for batch in run(flips):
        for i in range(2):
            is_flipped = np.array_equal(batch[i], FLOAT_IMAGES[i, :, ::-1])
            assert is_flipped or np.array_equal(batch[i], FLOAT_IMAGES[i])
            seen.add(is_flipped)
    for image in run(ups):
        flipped = np.array_equal(image, FLOAT_IMAGES[0, ::-1])
        assert flipped or np.array_equal(image, FLOAT_IMAGES[0])
    assert seen == {True, False}


def test_random_crop_is_a_window_of_the_input() -> None:
    y = tf.random_crop(tf.constant(UINT8_IMAGE), [4, 5, 3], seed=1)
    with tf.Session() as sess:
        for _ in range(5):
            out = sess.run(y)
            hits = [
                (i, j)
                for i in range(6)
                for j in range(7)
                if np.array_equal(UINT8_IMAGE[i : i + 4, j : j + 5], out)
            ]
            assert hits


# ---- colour --------------------------------------------------------------------------------
def _colour(xf: Any, xu: Any) -> dict[str, Any]:
    fetches = {
        "brightness_f": tf.image.adjust_brightness(xf, 0.2),
        "brightness_u8": tf.image.adjust_brightness(xu, -0.1),
        "contrast_f": tf.image.adjust_contrast(xf, 1.7),
        "contrast_u8": tf.image.adjust_contrast(xu, 0.4),
        "saturation_f": tf.image.adjust_saturation(xf, 1.8),
        "saturation_u8": tf.image.adjust_saturation(xu, 0.3),
        "saturation_zero": tf.image.adjust_saturation(xf, 0.0),
        "hue_f": tf.image.adjust_hue(xf, 0.3),
        "hue_neg": tf.image.adjust_hue(xf, -0.45),
        "hue_u8": tf.image.adjust_hue(xu, 0.1),
        "gamma_f": tf.image.adjust_gamma(xf, 2.2, 1.1),
        "gamma_u8": tf.image.adjust_gamma(xu, 0.5),
        "standardize_u8": tf.image.per_image_standardization(xu),
        "standardize_f4": tf.image.per_image_standardization(xf),
        "standardize_const": tf.image.per_image_standardization(tf.ones([3, 4, 3])),
        "gray_u8": tf.image.rgb_to_grayscale(xu),
        "gray_f": tf.image.rgb_to_grayscale(xf),
        "gray_to_rgb": tf.image.grayscale_to_rgb(tf.image.rgb_to_grayscale(xu)),
        "hsv": tf.image.rgb_to_hsv(xf),
        "hsv_roundtrip": tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(xf)),
        "hsv_to_rgb": tf.image.hsv_to_rgb(xf),
        "hsv64": tf.image.rgb_to_hsv(tf.cast(xf, tf.float64)),
        "yiq": tf.image.rgb_to_yiq(xf),
        "from_yiq": tf.image.yiq_to_rgb(xf),
        "yuv": tf.image.rgb_to_yuv(xf),
        "from_yuv": tf.image.yuv_to_rgb(xf),
        "total_variation3": tf.image.total_variation(xf[0]),
        "total_variation4": tf.image.total_variation(xf),
        "sobel": tf.image.sobel_edges(xf),
        "psnr": tf.image.psnr(xf, xf * 0.9, 1.0),
        "psnr_u8": tf.image.psnr(xu, 255 - xu, 255),
    }
    fetches["gradients_dy"], fetches["gradients_dx"] = tf.image.image_gradients(xf)
    return fetches


# Names TF gives through ops tfcluster composes differently: tensordot's internals (the YIQ/YUV
# matrices), sobel's depthwise convolution, psnr's final Identity, image_gradients' Reshape.
UNNAMED = {"yiq", "from_yiq", "yuv", "from_yuv", "sobel", "gradients_dy", "gradients_dx"}


def test_colour_adjustments_and_conversions_match_tensorflow() -> None:
    fetches = _colour(tf.constant(FLOAT_IMAGES), tf.constant(UINT8_IMAGE))
    out = run(fetches)
    for key, value in out.items():
        rec = case(f"colour_{key}")
        reference.assert_close(value, rec["output"], rtol=1e-5, atol=2e-6)
        assert shape_of(fetches[key]) == rec["shape"], key
        if key not in UNNAMED:
            assert fetches[key].name == rec["name"], key


def test_colour_conversions_at_branch_edges_match_tensorflow() -> None:
    rec = case("colour_edges")
    x = tf.constant(rec["input"])
    out = run(
        {
            "hsv": tf.image.rgb_to_hsv(x),
            "hue": tf.image.adjust_hue(x, 0.5),
            "saturation": tf.image.adjust_saturation(x, 2.0),
            "hsv_to_rgb": tf.image.hsv_to_rgb(x),
        }
    )
    for key, value in out.items():
        reference.assert_close(value, rec[key], rtol=1e-6, atol=1e-7)


DTYPES = ["uint8", "uint16", "int16", "int32", "float16", "float32", "float64"]
CONVERT_INPUTS = {
    "uint8": UINT8_IMAGE[:3, :4],
    "uint16": sample_image(3, 4, 3, np.uint16),
    "int16": (sample_image(3, 4, 3).astype(np.int16) * 120),
    "int32": sample_image(3, 4, 3).astype(np.int32) * 8000000,
    "float16": (UINT8_IMAGE[:3, :4] / 255.0).astype(np.float16),
    "float32": np.linspace(-0.2, 1.2, 36, dtype=np.float32).reshape(3, 4, 3),
    "float64": np.linspace(0.0, 1.0, 36).reshape(3, 4, 3),
}


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
@pytest.mark.parametrize("saturate", [False, True])
def test_convert_image_dtype_matches_tensorflow(src: str, dst: str, saturate: bool) -> None:
    name = f"convert_{src}_to_{dst}_sat{int(saturate)}"
    rec = case(name)
    if "error" in rec or (saturate and src.startswith("float") and not dst.startswith("float")):
        # 1.15 refuses these (its Maximum/Minimum lack 8/16-bit integers) or, saturating a
        # float to an integer, clamps to a float that rounds past the range (the cast then
        # wraps); tfcluster gives 2.x's values, which clamp to the range.
        rec = reference.case("image", name)
    y = tf.image.convert_image_dtype(tf.constant(CONVERT_INPUTS[src]), dst, saturate=saturate)
    assert y.name == rec["name"]
    expected = rec["output"]
    if src.startswith("float") and not dst.startswith("float") and not saturate:
        # Out-of-range floats cast to integers wrap in TF's C++ casts (undefined behaviour):
        # only the in-range values are TF's to compare.
        inside = (CONVERT_INPUTS[src] >= 0) & (CONVERT_INPUTS[src] <= 1)
        np.testing.assert_array_equal(run(y)[inside], expected[inside])
        return
    reference.assert_close(run(y), expected, rtol=1e-3 if "float16" in (src, dst) else 1e-6)


SSIM_A = np.random.default_rng(21).uniform(0, 1, (2, 40, 48, 3)).astype(np.float32)
SSIM_B = np.clip(SSIM_A + np.random.default_rng(22).normal(0, 0.1, SSIM_A.shape), 0, 1).astype(
    np.float32
)
MS_A = np.random.default_rng(23).uniform(0, 1, (1, 181, 170, 3)).astype(np.float32)
MS_B = np.clip(MS_A * 0.9 + 0.05, 0, 1).astype(np.float32)


def test_ssim_and_multiscale_ssim_match_tensorflow() -> None:
    u8 = (SSIM_A * 255).astype(np.uint8), (SSIM_B * 255).astype(np.uint8)
    fetches = {
        "ssim": tf.image.ssim(SSIM_A, SSIM_B, 1.0),
        "ssim_same": tf.image.ssim(SSIM_A[0], SSIM_A[0], 1.0),
        "ssim_u8": tf.image.ssim(*u8, 255),
        "ssim_window7": tf.image.ssim(
            SSIM_A, SSIM_B, 1.0, filter_size=7, filter_sigma=1.0, k1=0.02, k2=0.04
        ),
        "ms_ssim": tf.image.ssim_multiscale(MS_A, MS_B, 1.0),
        "ms_ssim_3": tf.image.ssim_multiscale(MS_A, MS_B, 1.0, power_factors=(0.2, 0.3, 0.5)),
    }
    out = run(fetches)
    for key, value in out.items():
        rec = case(f"ssim_{key}")
        # Window sums are float32 convolutions in another order than TF's depthwise kernel;
        # the five scales of MS-SSIM compound that to a few 1e-5.
        rtol = 1e-4 if key.startswith("ms") else 2e-5
        reference.assert_close(value, rec["output"], rtol=rtol, atol=1e-6)
        assert shape_of(fetches[key]) == rec["shape"], key


PATCH_CONFIGS = {
    "valid_2x3": ([1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 2, 1], "VALID"),
    "same_2x3": ([1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 2, 1], "SAME"),
    "same_3x3_dense": ([1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
    "valid_1x1": ([1, 1, 1, 1], [1, 3, 2, 1], [1, 1, 1, 1], "VALID"),
}


@pytest.mark.parametrize("key", sorted(PATCH_CONFIGS))
def test_extract_image_patches_and_its_gradient_match_tensorflow(key: str) -> None:
    rec = case(f"patches_{key}")
    ks, st, rt, pad = PATCH_CONFIGS[key]
    x = tf.constant(FLOAT_IMAGES)
    y = tf.image.extract_image_patches(x, ks, st, rt, pad)
    (g,) = tf.gradients(tf.reduce_sum(y * y), [x])
    out, grad = run([y, g])
    assert y.name == rec["name"] and shape_of(y) == rec["shape"]
    reference.assert_close(out, rec["output"])
    reference.assert_close(grad, rec["grad"], rtol=1e-5, atol=1e-6)


GLIMPSES = {
    "centered_normalized": ([3, 3], [[0.0, 0.0], [-0.2, 0.3]], True, True),
    "pixels": ([2, 4], [[2.0, 3.0], [3.0, 2.5]], False, False),
    "centered_pixels": ([3, 2], [[-1.0, 1.5], [0.5, -2.0]], True, False),
    "normalized_corner": ([2, 2], [[0.3, 0.3], [0.45, 0.6]], False, True),
    "partial": ([4, 5], [[0.0, 0.0], [0.9, -0.9]], True, True),
}


@pytest.mark.parametrize("key", sorted(GLIMPSES))
def test_extract_glimpse_matches_tensorflow_inside_the_image(key: str) -> None:
    rec = case(f"glimpse_{key}")
    size, offsets, centered, normalized = GLIMPSES[key]
    y = tf.image.extract_glimpse(
        tf.constant(FLOAT_IMAGES), size, offsets, centered=centered, normalized=normalized
    )
    out = run(y)
    assert y.name == rec["name"] and shape_of(y) == rec["shape"]
    if key != "partial":
        reference.assert_close(out, rec["output"])
        return
    # Outside the image both draw noise (from different generators): the first glimpse is
    # inside, the second's pixels that come from the image are TF's.
    reference.assert_close(out[0], rec["output"][0])
    from_image = np.isin(out[1], FLOAT_IMAGES[1])
    assert from_image.any()
    np.testing.assert_array_equal(out[1][from_image], rec["output"][1][from_image])
    low, high = FLOAT_IMAGES[1].min(), FLOAT_IMAGES[1].max()
    assert ((out[1] >= low) & (out[1] <= high)).all()


# ---- boxes ---------------------------------------------------------------------------------
BOXES = np.array(
    [
        [0, 0, 1, 1],
        [0.1, 0.2, 0.8, 0.9],
        [0.5, 0.5, 0.5, 0.5],
        [-0.2, 0.3, 1.3, 0.6],
        [0.9, 0.8, 0.1, 0.2],
    ],
    np.float32,
)
BOX_IND = np.array([0, 1, 0, 1, 1], np.int32)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("crop", [[3, 4], [1, 1], [5, 2]])
def test_crop_and_resize_and_its_gradients_match_tensorflow(method: str, crop: list[int]) -> None:
    rec = case(f"crop_and_resize_{method}_{crop[0]}x{crop[1]}")
    x = tf.constant(FLOAT_IMAGES)
    b = tf.constant(BOXES)
    y = tf.image.crop_and_resize(x, b, BOX_IND, crop, method=method, extrapolation_value=-1.0)
    w = weights([5, crop[0], crop[1], 3], crop[0] * 10 + crop[1])
    gx, gb = tf.gradients(tf.reduce_sum(y * w), [x, b])
    out = run([y, gx] + ([gb] if method == "bilinear" else []))
    assert y.name == rec["name"] and shape_of(y) == rec["shape"]
    reference.assert_close(out[0], rec["output"], rtol=1e-6, atol=1e-7)
    reference.assert_close(out[1], rec["grad_image"], rtol=1e-5, atol=1e-6)
    if method == "bilinear":
        reference.assert_close(out[2], rec["grad_boxes"], rtol=1e-4, atol=1e-4)


def test_crop_and_resize_of_uint8_and_bad_indices_match_tensorflow() -> None:
    y = tf.image.crop_and_resize(tf.constant(UINT8_IMAGE[None]), BOXES[:2], [0, 0], [4, 4])
    reference.assert_close(run(y), case("crop_and_resize_uint8")["output"], rtol=1e-6, atol=1e-4)
    bad = tf.image.crop_and_resize(tf.constant(FLOAT_IMAGES), BOXES[:1], [2], [2, 2])
    expect_error(case("crop_and_resize_bad_index"), lambda: run(bad))


NMS_BOXES = np.array(
    [
        [0, 0, 1, 1],
        [0, 0.1, 1, 1.1],
        [0, -0.1, 1, 0.9],
        [0, 10, 1, 11],
        [0, 10.1, 1, 11.1],
        [0, 100, 1, 101],
        [1, 1, 0, 0],
    ],
    np.float32,
)
NMS_SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.8], np.float32)


def test_non_max_suppression_family_matches_tensorflow() -> None:
    fetches = {
        "default": tf.image.non_max_suppression(NMS_BOXES, NMS_SCORES, 10),
        "max3": tf.image.non_max_suppression(NMS_BOXES, NMS_SCORES, 3, iou_threshold=0.5),
        "thr_low": tf.image.non_max_suppression(NMS_BOXES, NMS_SCORES, 10, iou_threshold=0.0),
        "score_thr": tf.image.non_max_suppression(NMS_BOXES, NMS_SCORES, 10, score_threshold=0.55),
        "zero": tf.image.non_max_suppression(NMS_BOXES, NMS_SCORES, 0),
    }
    idx, sc = tf.image.non_max_suppression_with_scores(NMS_BOXES, NMS_SCORES, 10)
    sidx, ssc = tf.image.non_max_suppression_with_scores(
        NMS_BOXES, NMS_SCORES, 10, soft_nms_sigma=0.5
    )
    pidx, pvalid = tf.image.non_max_suppression_padded(
        NMS_BOXES, NMS_SCORES, 9, pad_to_max_output_size=True
    )
    overlaps = np.array([[1, 0.6, 0.1], [0.6, 1, 0.7], [0.1, 0.7, 1]], np.float32)
    fetches.update(
        {
            "with_scores_idx": idx,
            "with_scores_scores": sc,
            "soft_idx": sidx,
            "soft_scores": ssc,
            "padded_idx": pidx,
            "padded_valid": pvalid,
            "overlaps": tf.image.non_max_suppression_overlaps(overlaps, [0.5, 0.9, 0.7], 3, 0.65),
        }
    )
    out = run(fetches)
    for key, value in out.items():
        rec = case(f"nms_{key}")
        reference.assert_close(value, rec["output"])
        assert fetches[key].name == rec["name"], key
        assert shape_of(fetches[key]) == rec["shape"], key


COMBINED_BOXES = np.random.default_rng(31).uniform(-0.1, 1.1, (2, 6, 1, 4)).astype(np.float32)
COMBINED_BOXES_PER_CLASS = np.random.default_rng(32).uniform(0, 1, (2, 6, 3, 4)).astype(np.float32)
COMBINED_SCORES = np.random.default_rng(33).uniform(0, 1, (2, 6, 3)).astype(np.float32)
COMBINED = {
    "shared": (COMBINED_BOXES, {}),
    "per_class": (COMBINED_BOXES_PER_CLASS, {"iou_threshold": 0.3}),
    "pad_per_class": (COMBINED_BOXES, {"pad_per_class": True, "score_threshold": 0.2}),
    "no_clip": (COMBINED_BOXES, {"clip_boxes": False}),
}


@pytest.mark.parametrize("key", sorted(COMBINED))
def test_combined_non_max_suppression_matches_tensorflow(key: str) -> None:
    rec = case(f"combined_nms_{key}")
    boxes, kwargs = COMBINED[key]
    outs = tf.image.combined_non_max_suppression(boxes, COMBINED_SCORES, 2, 5, **kwargs)
    values = run(list(outs))
    assert [t.name for t in outs] == list(rec["names"])
    assert [shape_of(t) for t in outs] == [list(s) for s in rec["shapes"]]
    for value, expected in zip(values, rec["outputs"]):
        reference.assert_close(value, expected)


DRAW_BOXES = np.array(
    [
        [[0.1, 0.1, 0.6, 0.7], [0.0, 0.5, 1.0, 1.0], [-0.5, -0.5, 0.4, 0.3]],
        [[0.2, 0.2, 0.4, 0.9], [0.5, 0.5, 0.2, 0.2], [1.2, 0, 1.5, 1]],
    ],
    np.float32,
)


def test_draw_bounding_boxes_matches_tensorflow() -> None:
    x = tf.constant(FLOAT_IMAGES)
    fetches = {
        "default": tf.image.draw_bounding_boxes(x, DRAW_BOXES),
        "gray": tf.image.draw_bounding_boxes(tf.image.rgb_to_grayscale(x), DRAW_BOXES),
        "rgba": tf.image.draw_bounding_boxes(tf.concat([x, x[..., :1]], -1), DRAW_BOXES),
        "colors": tf.image.draw_bounding_boxes(
            x, DRAW_BOXES, colors=[[0.3, 0.6, 0.9, 1.0], [1, 0, 1, 1]]
        ),
    }
    out = run(fetches)
    for key, value in out.items():
        rec = case(f"draw_{key}")
        reference.assert_close(value, rec["output"], rtol=1e-6, atol=1e-7)
        assert fetches[key].name == rec["name"], key


def test_sample_distorted_bounding_box_matches_tensorflows_contract() -> None:
    rec = case("sample_distorted_bounding_box")
    begin, size, bbox = tf.image.sample_distorted_bounding_box(
        [40, 60, 3], [[[0.1, 0.2, 0.5, 0.9]]], seed=4, min_object_covered=0.3
    )
    assert [shape_of(t) for t in (begin, size, bbox)] == [list(s) for s in rec["shapes"]]
    assert [t.dtype.name for t in (begin, size, bbox)] == list(rec["dtypes"])
    assert [t.name for t in (begin, size, bbox)] == list(rec["names"])
    with tf.Session() as sess:
        for _ in range(20):
            b, s, box = sess.run([begin, size, bbox])
            assert b[2] == 0 and s[2] == -1 and s[0] > 0 and s[1] > 0
            assert b[0] + s[0] <= 40 and b[1] + s[1] <= 60
            np.testing.assert_allclose(
                box[0, 0], [b[0] / 40, b[1] / 60, (b[0] + s[0]) / 40, (b[1] + s[1]) / 60], rtol=1e-6
            )
            # The crop covers at least 30% of the object box (rows 4..20, columns 12..54).
            covered_h = max(0, min(b[0] + s[0], 20) - max(b[0], 4))
            covered_w = max(0, min(b[1] + s[1], 54) - max(b[1], 12))
            assert covered_h * covered_w >= 0.3 * 16 * 42 or (s[0], s[1]) == (40, 60)
    missing, _, _ = tf.image.sample_distorted_bounding_box(
        [40, 60, 3], np.zeros([1, 0, 4], np.float32)
    )
    expect_error(case("sample_distorted_no_boxes"), lambda: run(missing))


# ---- codecs --------------------------------------------------------------------------------
JPEG_KEYS = [
    "rgb_q90",
    "rgb_default",
    "gray",
    "rgb_444_progressive",
    "rgb_cm_optimized",
    "rgb_as_grayscale_format",
]
PNG_KEYS = ["rgb", "rgba", "gray", "gray_alpha", "rgb16", "gray16"]


@pytest.mark.parametrize("key", JPEG_KEYS)
def test_jpeg_files_written_by_tensorflow_decode_to_tensorflows_pixels(key: str) -> None:
    rec = case(f"jpeg_{key}")
    data = rec["data"]
    fetches = {
        "default": tf.image.decode_jpeg(data),
        "accurate": tf.image.decode_jpeg(data, dct_method="INTEGER_ACCURATE"),
        "no_fancy": tf.image.decode_jpeg(data, fancy_upscaling=False),
        "gray": tf.image.decode_jpeg(data, channels=1),
        "rgb": tf.image.decode_jpeg(data, channels=3 if key.startswith("gray") else 0),
        "ratio2": tf.image.decode_jpeg(data, ratio=2),
        "ratio4": tf.image.decode_jpeg(data, ratio=4),
        "ratio8": tf.image.decode_jpeg(data, ratio=8),
        "crop": tf.image.decode_and_crop_jpeg(data, [3, 4, 10, 12]),
        "shape": tf.image.extract_jpeg_shape(data),
        "is_jpeg": tf.image.is_jpeg(data),
        "decode_image": tf.image.decode_image(data),
    }
    if key == "rgb_q90":
        fetches["decode_image_float"] = tf.image.decode_image(data, dtype=tf.float32)
    out = run(fetches)
    reference.assert_close(out.pop("decode_image"), rec["default"], rtol=0, atol=0)
    crop = out.pop("crop")
    for name, value in out.items():
        reference.assert_close(value, rec[name], rtol=0, atol=0)
    # libjpeg decodes TF's crop window as an image of its own: the window's last column
    # upsamples chroma from the window's edge. tfcluster crops the whole decode, so that
    # column may differ by a few levels; every other pixel is TF's to the bit.
    reference.assert_close(crop[:, :-1], rec["crop"][:, :-1], rtol=0, atol=0)
    assert np.abs(crop[:, -1].astype(int) - rec["crop"][:, -1]).max() <= 4


@pytest.mark.parametrize("key", PNG_KEYS)
def test_png_files_written_by_tensorflow_decode_to_tensorflows_pixels(key: str) -> None:
    rec = case(f"png_{key}")
    data = rec["data"]
    fetches = {f"channels{c}": tf.image.decode_png(data, channels=c) for c in (0, 1, 3, 4)}
    fetches["uint16"] = tf.image.decode_png(data, dtype=tf.uint16)
    fetches["decode_image"] = tf.image.decode_image(data)
    fetches["is_jpeg"] = tf.image.is_jpeg(data)
    out = run(fetches)
    for name, value in out.items():
        reference.assert_close(value, rec[name])


def test_truncated_and_cross_format_decodes_match_tensorflow() -> None:
    rec = case("jpeg_truncated_recovered")
    y = tf.image.decode_jpeg(rec["data"], try_recover_truncated=True, acceptable_fraction=0.2)
    recovered = run(y)
    # libjpeg-turbo fills what is missing in both, but not with the same pixels (TF's build
    # and the one simplejpeg ships decode the damaged scan differently): TF's shape and dtype.
    assert recovered.shape == rec["output"].shape and recovered.dtype == rec["output"].dtype
    expect_error(case("jpeg_truncated_error"), lambda: run(tf.image.decode_jpeg(rec["data"])))
    png = case("png_rgb")["data"]
    jpeg = case("jpeg_rgb_q90")["data"]
    reference.assert_close(run(tf.image.decode_jpeg(png)), case("jpeg_decodes_png")["output"])
    reference.assert_close(run(tf.image.decode_png(jpeg)), case("png_decodes_jpeg")["output"])


BAD_CONTENTS = {
    "garbage": b"hello, image",
    "empty": b"",
    "bad_jpeg": b"\xff\xd8\xffgarbage",
    "bad_png": b"\x89PNG\r\n\x1a\nxx",
}


def test_unreadable_images_raise_tensorflows_errors_and_the_session_keeps_working() -> None:
    contents = tf.placeholder(tf.string, [])
    decoded = tf.image.decode_jpeg(contents)
    png = tf.image.decode_png(contents)
    good = case("jpeg_rgb_q90")
    with tf.Session() as sess:
        for key, data in BAD_CONTENTS.items():
            expected = getattr(
                tf.errors, reference.error_class(case(f"decode_error_{key}")["error"])
            )
            with pytest.raises(expected):
                sess.run(decoded, {contents: data})
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(png, {contents: BAD_CONTENTS["bad_png"]})
        reference.assert_close(sess.run(decoded, {contents: good["data"]}), good["default"])
    expect_error(
        case("encode_jpeg_error_channels"),
        lambda: run(tf.image.encode_jpeg(tf.zeros([4, 4, 2], tf.uint8))),
    )


def test_codec_static_shapes_match_tensorflow() -> None:
    rec = case("codec_static_shapes")
    data = case("jpeg_rgb_q90")["data"]
    rgb = sample_image(37, 53, 3)
    shapes = {
        "decode_jpeg": shape_of(tf.image.decode_jpeg(data)),
        "decode_jpeg3": shape_of(tf.image.decode_jpeg(data, channels=3)),
        "decode_png4": shape_of(tf.image.decode_png(data, channels=4)),
        "decode_gif": shape_of(tf.image.decode_gif(data)),
        "decode_bmp": shape_of(tf.image.decode_bmp(data)),
        "encode_jpeg": shape_of(tf.image.encode_jpeg(rgb)),
        "extract_jpeg_shape": shape_of(tf.image.extract_jpeg_shape(data)),
        "decode_image_no_animation": shape_of(
            tf.image.decode_image(data, channels=3, expand_animations=False)
        ),
    }
    expected = {k: list(v) for k, v in rec.items()}
    # TF 2.x decodes any format in one DecodeImage op that knows the channel count; 1.15's
    # decode_image merges four conds, BMP's of unknown channels among them.
    expected["decode_image_no_animation"] = [-1, -1, -1]
    assert shapes == expected


def _samples() -> dict[str, bytes]:
    path = os.path.join(os.path.dirname(reference.__file__), "data", "image_samples.json")
    with open(path) as f:
        return {k: decode(v) for k, v in json.load(f).items()}


def test_files_tfcluster_encodes_are_the_committed_samples() -> None:
    """The samples TF decoded (record_image.py) are what tfcluster's encoders write today."""
    samples = _samples()
    rgb = sample_image(37, 53, 3)
    gray = sample_image(21, 30, 1)
    fetches = {
        "jpeg_rgb_q90": tf.image.encode_jpeg(rgb, quality=90),
        "jpeg_rgb_default": tf.image.encode_jpeg(rgb),
        "jpeg_gray": tf.image.encode_jpeg(gray, quality=80),
        "png_rgb": tf.image.encode_png(rgb),
        "png_rgb16": tf.image.encode_png(tf.constant(sample_image(7, 6, 3, np.uint16))),
    }
    out = run(fetches)
    for key, value in out.items():
        assert value == samples[key], key


@pytest.mark.parametrize("key", sorted(_samples()))
def test_files_tfcluster_writes_decode_in_tensorflow_as_in_tfcluster(key: str) -> None:
    rec = case(f"tfcluster_file_{key}")
    data = _samples()[key]
    fetches: dict[str, Any] = {"decode_image": tf.image.decode_image(data)}
    if key.startswith("jpeg"):
        fetches["decode_jpeg"] = tf.image.decode_jpeg(data)
        fetches["accurate"] = tf.image.decode_jpeg(data, dct_method="INTEGER_ACCURATE")
        fetches["shape"] = tf.image.extract_jpeg_shape(data)
    elif key.startswith("png"):
        fetches["decode_png"] = tf.image.decode_png(data)
        fetches["uint16"] = tf.image.decode_png(data, dtype=tf.uint16)
    elif key.startswith("gif"):
        fetches["decode_gif"] = tf.image.decode_gif(data)
    else:
        fetches["decode_bmp"] = tf.image.decode_bmp(data)
        three = tf.image.decode_bmp(data, channels=3)
        if "error" in rec["decode_bmp3"]:
            with pytest.raises(tf.errors.InvalidArgumentError, match="does not match"):
                run(three)
        else:
            fetches["decode_bmp3"] = three
    out = run(fetches)
    if key.startswith("jpeg"):  # recorded once: decode_image of a JPEG is decode_jpeg
        reference.assert_close(out.pop("decode_image"), rec["decode_jpeg"])
    for name, value in out.items():
        reference.assert_close(value, rec[name])


def test_lossless_files_tfcluster_writes_hold_the_pixels_it_was_given() -> None:
    samples = _samples()
    reference.assert_close(
        run(tf.image.decode_png(samples["png_rgb16"], dtype=tf.uint16)),
        sample_image(7, 6, 3, np.uint16),
    )
    reference.assert_close(run(tf.image.decode_png(samples["png_rgb"])), sample_image(37, 53, 3))


@pytest.mark.parametrize(
    "key", ["rgb_q90", "rgb_default", "rgb_444_progressive", "rgb_cm_optimized"]
)
def test_colour_jpegs_tfcluster_encodes_are_tensorflows_bytes(key: str) -> None:
    # Same libjpeg settings, same file. (Grayscale ones carry one more, unused, quantisation
    # table than TF's and decode to the same pixels; PNGs: test_png_encoding_as_tf.py.)
    assert _samples()[f"jpeg_{key}"] == case(f"jpeg_{key}")["data"]


# Where TensorFlow 2.x's compat.v1 (image.json) differs from TensorFlow 1.15 (image_tf115.json),
# the cases above follow 1.15 unless they say otherwise.
DIFFERENCES_FROM_TF2 = {
    # decode_image: one DecodeImage op in 2.x, four merged conds in 1.15.
    "codec_static_shapes",
    # per_image_standardization: 1.15 scales integer images to [0, 1] and converts back.
    "colour_standardize_const",
    "colour_standardize_f4",
    "colour_standardize_u8",
    # 2.x clamps floats saturated into integers within range; 1.15's cast wraps (or refuses).
    "convert_float16_to_int32_sat1",
    "convert_float16_to_uint16_sat1",
    "convert_float32_to_int32_sat1",
    "convert_float32_to_int16_sat0",
    "convert_float32_to_uint16_sat0",
    "convert_float32_to_uint8_sat0",
    "convert_int16_to_uint16_sat1",
    "convert_int16_to_uint8_sat1",
    "convert_uint16_to_int16_sat1",
    "convert_uint16_to_uint8_sat1",
    # noise drawn outside the image
    "glimpse_partial",
    # NMS: 1.15 suppresses at IoU >= threshold (2.x: >), and its soft-NMS re-queues
    "nms_soft_idx",
    "nms_soft_scores",
    "nms_thr_low",
    # 1.15's encode_png converts a numpy uint16 array to uint8 (8-bit files)
    "png_gray16",
    "png_rgb16",
    # 1.15's decode_bmp refuses a channel count other than the file's; 2.x converts
    "tfcluster_file_bmp_rgba",
}


def _differs(x: Any, y: Any) -> bool:
    if isinstance(x, dict):
        return not isinstance(y, dict) or x.get("error") != y.get("error")
    if isinstance(x, np.ndarray):
        if not isinstance(y, np.ndarray) or x.shape != y.shape or x.dtype != y.dtype:
            return True
        if x.dtype.kind == "f":
            return not np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True)
        return not np.array_equal(x, y)
    if isinstance(x, list):
        return not isinstance(y, list) or len(x) != len(y) or any(map(_differs, x, y))
    return bool(x != y)


def test_tensorflow_1_15_and_2_x_differ_only_where_listed() -> None:
    tf2, tf115 = reference.load("image"), reference.load("image_tf115")
    assert set(tf2) == set(tf115)
    differing = {
        name
        for name, values in tf2.items()
        if set(values) != set(tf115[name])
        or any(_differs(v, tf115[name][k]) for k, v in values.items())
    }
    assert differing == DIFFERENCES_FROM_TF2
