"""tf.image's values from TensorFlow: resizes (every method, align_corners/half_pixel_centers,
with gradients), crops, pads, flips, colour adjustments and conversions, dtype conversion,
boxes (crop_and_resize with gradients, NMS, draw_bounding_boxes), and the codecs: JPEG and PNG
files that TensorFlow writes (stored here with TF's decodes of them, by every option), and the
files tfcluster wrote (data/image_samples.json, from make_image_samples.py) as TF decodes them.

Run it twice: with TensorFlow 1.15 itself (Python 3.7, see README: writes image_tf115.json,
the reference the tests follow) and through run.py with 2.x's compat.v1 (image.json, used where
1.15 refuses or is undefined); tests/unit/test_image_reference.py lists where the two differ.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import tensorflow.compat.v1 as tf
from codec import decode
from make_image_samples import sample_image
from recorder import Recorder
from tensorflow.python.ops import image_ops_impl

tf.disable_v2_behavior()
# TensorFlow 1.15 itself (Python 3.7, see README) writes image_tf115.json; 2.x's compat.v1
# (run.py) writes image.json. The tests compare tfcluster with both.
TF115 = tf.__version__.startswith("1.")
rec = Recorder("image_tf115" if TF115 else "image")
HERE = os.path.dirname(os.path.abspath(__file__))


def run(fetches: Any, feeds: dict[Any, Any] | None = None) -> Any:
    with tf.Session() as sess:
        return sess.run(fetches, feeds)


def shape_of(t: Any) -> Any:
    return (
        None if t.shape.ndims is None else [d if d is not None else -1 for d in t.shape.as_list()]
    )


def weights(shape: list[int], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.5, 1.5, shape).astype(np.float32)


FLOAT_IMAGES = sample_image(2 * 6, 7, 3).reshape(2, 6, 7, 3).astype(np.float32) / 255.0
UINT8_IMAGE = sample_image(9, 11, 3)

# ---- resizes ---------------------------------------------------------------------------------
RESIZE_OPS = {
    "bilinear": tf.image.resize_bilinear,
    "nearest": tf.image.resize_nearest_neighbor,
    "bicubic": tf.image.resize_bicubic,
}
SIZES = [(4, 5), (11, 13), (6, 7), (1, 1), (3, 10)]
for method, fn in RESIZE_OPS.items():
    for size in SIZES:
        for align, half in ((False, False), (True, False), (False, True)):
            case = f"resize_{method}_{size[0]}x{size[1]}_align{int(align)}_half{int(half)}"
            with tf.Graph().as_default():
                x = tf.constant(FLOAT_IMAGES)
                y = fn(x, size, align_corners=align, half_pixel_centers=half)
                w = weights([2, size[0], size[1], 3], len(case))
                (g,) = tf.gradients(tf.reduce_sum(y * w), [x])
                out, grad = run([y, g])
                rec.add(case, output=out, grad=grad, name=y.name, shape=shape_of(y))
    with tf.Graph().as_default():
        y = fn(tf.constant(UINT8_IMAGE[None]), [5, 17])
        rec.add(f"resize_{method}_uint8", output=run(y), shape=shape_of(y))

for size in SIZES:
    for align in (False, True):
        case = f"resize_area_{size[0]}x{size[1]}_align{int(align)}"
        with tf.Graph().as_default():
            y = tf.image.resize_area(tf.constant(FLOAT_IMAGES), size, align_corners=align)
            rec.add(case, output=run(y), name=y.name, shape=shape_of(y))
with tf.Graph().as_default():
    y = tf.image.resize_area(tf.constant(UINT8_IMAGE[None]), [4, 5])
    rec.add("resize_area_uint8", output=run(y), shape=shape_of(y))

for method in range(4):
    with tf.Graph().as_default():
        y3 = tf.image.resize_images(tf.constant(UINT8_IMAGE), [5, 6], method=method)
        y4 = tf.image.resize_images(tf.constant(FLOAT_IMAGES), [8, 3], method=method)
        same = tf.image.resize_images(tf.constant(UINT8_IMAGE), [9, 11], method=method)
        kept = tf.image.resize_images(
            tf.constant(FLOAT_IMAGES), [14, 20], method=method, preserve_aspect_ratio=True
        )
        o3, o4, osame, okept = run([y3, y4, same, kept])
        rec.add(
            f"resize_images_method{method}",
            rank3=o3,
            rank4=o4,
            same_size=osame,
            same_size_name=same.name,
            aspect=okept,
            names=[y3.name, y4.name],
            shapes=[shape_of(y3), shape_of(y4), shape_of(same), shape_of(kept)],
        )
with tf.Graph().as_default():
    size = tf.placeholder(tf.int32, [2])
    y = tf.image.resize_images(tf.constant(FLOAT_IMAGES), size)
    rec.add("resize_images_fed_size", output=run(y, {size: [3, 4]}), shape=shape_of(y))
with tf.Graph().as_default():
    err = rec.catch(lambda: tf.image.resize_images(tf.constant(FLOAT_IMAGES), [2, 2], method=9))
    rec.add("resize_images_bad_method", error=err)
with tf.Graph().as_default():
    y = tf.image.resize_bilinear(tf.constant(FLOAT_IMAGES), [0, 3])
    rec.add("resize_bilinear_empty_size_error", error=rec.catch(lambda: run(y)))
for method in (0, 1):
    with tf.Graph().as_default():
        y = tf.image.resize_image_with_pad(tf.constant(UINT8_IMAGE), 12, 7, method=method)
        y4 = tf.image.resize_image_with_pad(tf.constant(FLOAT_IMAGES), 3, 9, method=method)
        a, b = run([y, y4])
        rec.add(
            f"resize_image_with_pad_{method}", rank3=a, rank4=b, shapes=[shape_of(y), shape_of(y4)]
        )

# ---- crops, pads, flips --------------------------------------------------------------------
with tf.Graph().as_default():
    x3, x4 = tf.constant(UINT8_IMAGE), tf.constant(FLOAT_IMAGES)
    fetches = {
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
    out = run(fetches)
    for key, value in out.items():
        rec.add(
            f"geometry_{key}", output=value, name=fetches[key].name, shape=shape_of(fetches[key])
        )
with tf.Graph().as_default():
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
        rec.add(f"geometry_dynamic_{key}", output=value, shape=shape_of(fetches[key]))
for key, fn in {
    "crop_too_big": lambda x: tf.image.crop_to_bounding_box(x, 5, 5, 8, 8),
    "crop_negative_offset": lambda x: tf.image.crop_to_bounding_box(x, -1, 0, 2, 2),
    "pad_too_small": lambda x: tf.image.pad_to_bounding_box(x, 0, 0, 3, 3),
    "crop_or_pad_zero": lambda x: tf.image.resize_image_with_crop_or_pad(x, 0, 3),
    "central_bad_fraction": lambda x: tf.image.central_crop(x, 1.5),
    "flip_rank2": lambda x: tf.image.flip_left_right(x[0]),
}.items():
    with tf.Graph().as_default():
        rec.add(f"geometry_error_{key}", error=rec.catch(lambda f=fn: f(tf.constant(UINT8_IMAGE))))
for key, fn in {
    "random_flip_lr3": lambda x: tf.image.random_flip_left_right(x[0], seed=5),
    "random_flip_ud3": lambda x: tf.image.random_flip_up_down(x[0], seed=5),
    "random_flip_lr4": lambda x: tf.image.random_flip_left_right(x, seed=5),
    "random_flip_ud4": lambda x: tf.image.random_flip_up_down(x, seed=5),
    "random_crop": lambda x: tf.image.random_crop(x, [1, 3, 4, 3], seed=3),
    "random_brightness": lambda x: tf.image.random_brightness(x, 0.3, seed=2),
    "random_contrast": lambda x: tf.image.random_contrast(x, 0.5, 1.5, seed=2),
    "random_saturation": lambda x: tf.image.random_saturation(x, 0.5, 1.5, seed=2),
    "random_hue": lambda x: tf.image.random_hue(x, 0.2, seed=2),
}.items():
    # TF's random streams (Philox) are not tfcluster's: what the op is, its shape and name.
    with tf.Graph().as_default():
        y = fn(tf.constant(FLOAT_IMAGES))
        value = run(y)
        rec.add(
            f"random_{key}",
            shape=shape_of(y),
            out_shape=list(value.shape),
            name=y.name,
            dtype=str(y.dtype.name),
        )

# ---- colour --------------------------------------------------------------------------------
with tf.Graph().as_default():
    xf, xu = tf.constant(FLOAT_IMAGES), tf.constant(UINT8_IMAGE)
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
    dy, dx = tf.image.image_gradients(xf)
    fetches["gradients_dy"], fetches["gradients_dx"] = dy, dx
    out = run(fetches)
    for key, value in out.items():
        rec.add(f"colour_{key}", output=value, name=fetches[key].name, shape=shape_of(fetches[key]))
# Colour values at the edges of their branches: greys, primaries, ties between channels.
EDGE_COLOURS = np.array(
    [
        [[0, 0, 0], [1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0.5, 0.5, 0.2]],
        [
            [0.2, 0.5, 0.5],
            [0.3, 0.3, 0.9],
            [0.9, 0.1, 0.1],
            [0.1, 0.9, 0.9],
            [0.25, 0.5, 0.75],
            [0.75, 0.5, 0.25],
            [0.5, 0.25, 0.75],
        ],
    ],
    np.float32,
)
with tf.Graph().as_default():
    x = tf.constant(EDGE_COLOURS)
    out = run(
        {
            "hsv": tf.image.rgb_to_hsv(x),
            "hue": tf.image.adjust_hue(x, 0.5),
            "saturation": tf.image.adjust_saturation(x, 2.0),
            "hsv_to_rgb": tf.image.hsv_to_rgb(x),
        }
    )
    rec.add("colour_edges", input=EDGE_COLOURS, **out)

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
for src in DTYPES:
    for dst in DTYPES:
        for saturate in (False, True):
            with tf.Graph().as_default():
                name = f"convert_{src}_to_{dst}_sat{int(saturate)}"
                try:
                    y = tf.image.convert_image_dtype(
                        tf.constant(CONVERT_INPUTS[src]), dst, saturate=saturate
                    )
                except TypeError as e:  # 1.15's Maximum/Minimum lack the 8/16-bit integers
                    rec.add(name, error=e)
                    continue
                rec.add(name, output=run(y), name=y.name)

# ---- ssim ----------------------------------------------------------------------------------
SSIM_A = np.random.default_rng(21).uniform(0, 1, (2, 40, 48, 3)).astype(np.float32)
SSIM_B = np.clip(SSIM_A + np.random.default_rng(22).normal(0, 0.1, SSIM_A.shape), 0, 1).astype(
    np.float32
)
MS_A = np.random.default_rng(23).uniform(0, 1, (1, 181, 170, 3)).astype(np.float32)
MS_B = np.clip(MS_A * 0.9 + 0.05, 0, 1).astype(np.float32)
with tf.Graph().as_default():
    # 1.15's ssim takes tensors only.
    sa, sb = tf.constant(SSIM_A), tf.constant(SSIM_B)
    ma, mb = tf.constant(MS_A), tf.constant(MS_B)
    ua = tf.constant((SSIM_A * 255).astype(np.uint8))
    ub = tf.constant((SSIM_B * 255).astype(np.uint8))
    fetches = {
        "ssim": tf.image.ssim(sa, sb, 1.0),
        "ssim_same": tf.image.ssim(sa[0], sa[0], 1.0),
        "ssim_u8": tf.image.ssim(ua, ub, 255),
        "ssim_window7": tf.image.ssim(
            sa, sb, 1.0, filter_size=7, filter_sigma=1.0, k1=0.02, k2=0.04
        ),
        "ms_ssim": tf.image.ssim_multiscale(ma, mb, 1.0),
        "ms_ssim_3": tf.image.ssim_multiscale(ma, mb, 1.0, power_factors=(0.2, 0.3, 0.5)),
    }
    out = run(fetches)
    for key, value in out.items():
        rec.add(f"ssim_{key}", output=value, shape=shape_of(fetches[key]))

# ---- patches -------------------------------------------------------------------------------
PATCH_CONFIGS = {
    "valid_2x3": ([1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 2, 1], "VALID"),
    "same_2x3": ([1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 2, 1], "SAME"),
    "same_3x3_dense": ([1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
    "valid_1x1": ([1, 1, 1, 1], [1, 3, 2, 1], [1, 1, 1, 1], "VALID"),
}
for key, (ks, st, rt, pad) in PATCH_CONFIGS.items():
    with tf.Graph().as_default():
        x = tf.constant(FLOAT_IMAGES)
        y = tf.image.extract_image_patches(x, ks, st, rt, pad)
        (g,) = tf.gradients(tf.reduce_sum(y * y), [x])
        out, grad = run([y, g])
        rec.add(f"patches_{key}", output=out, grad=grad, name=y.name, shape=shape_of(y))

# ---- glimpses (inside the image: no noise) --------------------------------------------------
GLIMPSES = {
    "centered_normalized": ([3, 3], [[0.0, 0.0], [-0.2, 0.3]], True, True),
    "pixels": ([2, 4], [[2.0, 3.0], [3.0, 2.5]], False, False),
    "centered_pixels": ([3, 2], [[-1.0, 1.5], [0.5, -2.0]], True, False),
    "normalized_corner": ([2, 2], [[0.3, 0.3], [0.45, 0.6]], False, True),
    "partial": ([4, 5], [[0.0, 0.0], [0.9, -0.9]], True, True),
}
for key, (size, offsets, centered, normalized) in GLIMPSES.items():
    with tf.Graph().as_default():
        y = tf.image.extract_glimpse(
            tf.constant(FLOAT_IMAGES), size, offsets, centered=centered, normalized=normalized
        )
        rec.add(f"glimpse_{key}", output=run(y), name=y.name, shape=shape_of(y))

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
for method in ("bilinear", "nearest"):
    for crop in ([3, 4], [1, 1], [5, 2]):
        with tf.Graph().as_default():
            x = tf.constant(FLOAT_IMAGES)
            b = tf.constant(BOXES)
            y = tf.image.crop_and_resize(
                x, b, BOX_IND, crop, method=method, extrapolation_value=-1.0
            )
            w = weights([5, crop[0], crop[1], 3], crop[0] * 10 + crop[1])
            gx, gb = tf.gradients(tf.reduce_sum(y * w), [x, b])
            fetch = [y, gx] + ([gb] if method == "bilinear" else [])
            out = run(fetch)
            rec.add(
                f"crop_and_resize_{method}_{crop[0]}x{crop[1]}",
                output=out[0],
                grad_image=out[1],
                grad_boxes=out[2] if method == "bilinear" else None,
                name=y.name,
                shape=shape_of(y),
            )
with tf.Graph().as_default():
    y = tf.image.crop_and_resize(tf.constant(UINT8_IMAGE[None]), BOXES[:2], [0, 0], [4, 4])
    rec.add("crop_and_resize_uint8", output=run(y))
with tf.Graph().as_default():
    y = tf.image.crop_and_resize(tf.constant(FLOAT_IMAGES), BOXES[:1], [2], [2, 2])
    rec.add("crop_and_resize_bad_index", error=rec.catch(lambda: run(y)))

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
with tf.Graph().as_default():
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
    # 2.x's non_max_suppression_padded is a new tiled algorithm; 1.15's is kept as _v1.
    padded_v1 = getattr(
        image_ops_impl, "non_max_suppression_padded_v1", tf.image.non_max_suppression_padded
    )
    pidx, pvalid = padded_v1(NMS_BOXES, NMS_SCORES, 9, pad_to_max_output_size=True)
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
        rec.add(f"nms_{key}", output=value, name=fetches[key].name, shape=shape_of(fetches[key]))

COMBINED_BOXES = np.random.default_rng(31).uniform(-0.1, 1.1, (2, 6, 1, 4)).astype(np.float32)
COMBINED_BOXES_PER_CLASS = np.random.default_rng(32).uniform(0, 1, (2, 6, 3, 4)).astype(np.float32)
COMBINED_SCORES = np.random.default_rng(33).uniform(0, 1, (2, 6, 3)).astype(np.float32)
for key, (bx, kwargs) in {
    "shared": (COMBINED_BOXES, {}),
    "per_class": (COMBINED_BOXES_PER_CLASS, {"iou_threshold": 0.3}),
    "pad_per_class": (COMBINED_BOXES, {"pad_per_class": True, "score_threshold": 0.2}),
    "no_clip": (COMBINED_BOXES, {"clip_boxes": False}),
}.items():
    with tf.Graph().as_default():
        outs = tf.image.combined_non_max_suppression(bx, COMBINED_SCORES, 2, 5, **kwargs)
        values = run(list(outs))
        rec.add(
            f"combined_nms_{key}",
            outputs=values,
            names=[t.name for t in outs],
            shapes=[shape_of(t) for t in outs],
        )

DRAW_BOXES = np.array(
    [
        [[0.1, 0.1, 0.6, 0.7], [0.0, 0.5, 1.0, 1.0], [-0.5, -0.5, 0.4, 0.3]],
        [[0.2, 0.2, 0.4, 0.9], [0.5, 0.5, 0.2, 0.2], [1.2, 0, 1.5, 1]],
    ],
    np.float32,
)
with tf.Graph().as_default():
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
        rec.add(f"draw_{key}", output=value, name=fetches[key].name)
with tf.Graph().as_default():
    begin, size, bbox = tf.image.sample_distorted_bounding_box(
        [40, 60, 3], [[[0.1, 0.2, 0.5, 0.9]]], seed=4, min_object_covered=0.3
    )
    out = run([begin, size, bbox])
    rec.add(
        "sample_distorted_bounding_box",
        shapes=[shape_of(begin), shape_of(size), shape_of(bbox)],
        dtypes=[begin.dtype.name, size.dtype.name, bbox.dtype.name],
        names=[begin.name, size.name, bbox.name],
        begin=out[0],
        size=out[1],
    )
with tf.Graph().as_default():
    begin, _, _ = tf.image.sample_distorted_bounding_box(
        [40, 60, 3], np.zeros([1, 0, 4], np.float32)
    )
    rec.add("sample_distorted_no_boxes", error=rec.catch(lambda: run(begin)))

# ---- codecs: files TensorFlow writes -------------------------------------------------------
RGB = sample_image(37, 53, 3)
GRAY = sample_image(21, 30, 1)
with tf.Graph().as_default():
    jpeg_fetches = {
        "rgb_q90": tf.image.encode_jpeg(RGB, quality=90),
        "rgb_default": tf.image.encode_jpeg(RGB),
        "gray": tf.image.encode_jpeg(GRAY, quality=80),
        "rgb_444_progressive": tf.image.encode_jpeg(
            RGB, quality=75, chroma_downsampling=False, progressive=True
        ),
        "rgb_cm_optimized": tf.image.encode_jpeg(
            RGB, density_unit="cm", x_density=40, y_density=50, optimize_size=True
        ),
        "rgb_as_grayscale_format": tf.image.encode_jpeg(GRAY, format="grayscale"),
    }
    png_fetches = {
        "rgb": tf.image.encode_png(RGB),
        "rgba": tf.image.encode_png(sample_image(9, 11, 4), compression=9),
        "gray": tf.image.encode_png(GRAY, compression=0),
        "gray_alpha": tf.image.encode_png(sample_image(5, 6, 2)),
        "rgb16": tf.image.encode_png(sample_image(7, 6, 3, np.uint16)),
        "gray16": tf.image.encode_png(sample_image(7, 6, 1, np.uint16)),
    }
    jpegs, pngs = run([jpeg_fetches, png_fetches])
for key, data in jpegs.items():
    with tf.Graph().as_default():
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
        }
        if key == "rgb_q90":
            fetches["decode_image_float"] = tf.image.decode_image(data, dtype=tf.float32)
        # decode_image of a JPEG is decode_jpeg's pixels: the test compares it with "default".
        rec.add(f"jpeg_{key}", data=data, **run(fetches))
for key, data in pngs.items():
    with tf.Graph().as_default():
        fetches = {f"channels{c}": tf.image.decode_png(data, channels=c) for c in (0, 1, 3, 4)}
        fetches["uint16"] = tf.image.decode_png(data, dtype=tf.uint16)
        fetches["decode_image"] = tf.image.decode_image(data)
        fetches["is_jpeg"] = tf.image.is_jpeg(data)
        rec.add(f"png_{key}", data=data, **run(fetches))
with tf.Graph().as_default():
    data = jpegs["rgb_q90"]
    truncated = data[: len(data) // 2]
    y = tf.image.decode_jpeg(truncated, try_recover_truncated=True, acceptable_fraction=0.2)
    rec.add("jpeg_truncated_recovered", data=truncated, output=run(y))
    rec.add("jpeg_truncated_error", error=rec.catch(lambda: run(tf.image.decode_jpeg(truncated))))
    rec.add("jpeg_decodes_png", output=run(tf.image.decode_jpeg(pngs["rgb"])))
    rec.add("png_decodes_jpeg", output=run(tf.image.decode_png(data)))
    for key, bad in {
        "garbage": b"hello, image",
        "empty": b"",
        "bad_jpeg": b"\xff\xd8\xffgarbage",
        "bad_png": b"\x89PNG\r\n\x1a\nxx",
    }.items():
        rec.add(f"decode_error_{key}", error=rec.catch(lambda b=bad: run(tf.image.decode_jpeg(b))))
    rec.add(
        "decode_png_error_bad_png",
        error=rec.catch(lambda: run(tf.image.decode_png(b"\x89PNG\r\n\x1a\nxx"))),
    )
    rec.add(
        "encode_jpeg_error_channels",
        error=rec.catch(lambda: run(tf.image.encode_jpeg(tf.zeros([4, 4, 2], tf.uint8)))),
    )
    shapes = {
        "decode_jpeg": shape_of(tf.image.decode_jpeg(data)),
        "decode_jpeg3": shape_of(tf.image.decode_jpeg(data, channels=3)),
        "decode_png4": shape_of(tf.image.decode_png(data, channels=4)),
        "decode_gif": shape_of(tf.image.decode_gif(data)),
        "decode_bmp": shape_of(tf.image.decode_bmp(data)),
        "encode_jpeg": shape_of(tf.image.encode_jpeg(RGB)),
        "extract_jpeg_shape": shape_of(tf.image.extract_jpeg_shape(data)),
        "decode_image_no_animation": shape_of(
            tf.image.decode_image(data, channels=3, expand_animations=False)
        ),
    }
    # 1.15 chains conds for decode_image: its static shape there is unknown as here.
    rec.add("codec_static_shapes", **shapes)

# ---- codecs: files tfcluster writes, as TensorFlow reads them ------------------------------
with open(os.path.join(HERE, "data", "image_samples.json")) as f:
    samples = {k: decode(v) for k, v in json.load(f).items()}
for key, data in samples.items():
    with tf.Graph().as_default():
        fetches: dict[str, Any] = {}
        if not key.startswith("jpeg"):
            fetches["decode_image"] = tf.image.decode_image(data)
        if key.startswith("jpeg"):
            fetches["decode_jpeg"] = tf.image.decode_jpeg(data)
            fetches["accurate"] = tf.image.decode_jpeg(data, dct_method="INTEGER_ACCURATE")
            fetches["shape"] = tf.image.extract_jpeg_shape(data)
        elif key.startswith("png"):
            fetches["decode_png"] = tf.image.decode_png(data)
            fetches["uint16"] = tf.image.decode_png(data, dtype=tf.uint16)
        elif key.startswith("gif"):
            fetches["decode_gif"] = tf.image.decode_gif(data)
            fetches["decode_image"] = tf.image.decode_image(data)
        else:
            fetches["decode_bmp"] = tf.image.decode_bmp(data)
        values = run(fetches)
        if key.startswith("bmp"):
            # 1.15 refuses a channel count other than the file's; 2.x converts.
            three = tf.image.decode_bmp(data, channels=3)
            try:
                values["decode_bmp3"] = run(three)
            except tf.errors.InvalidArgumentError as e:
                values["decode_bmp3"] = e
        rec.add(f"tfcluster_file_{key}", **values)

rec.save()
