"""tf.image behaviour of TF 1.15 that the TF 2.x reference cannot show (decode_image's
composition of the four decoders, unknown-rank dispatch), and the codec and kernel edges:
bad input raises TF's error classes and the session goes on."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode
from tf_reference.make_image_samples import sample_image


def _samples() -> dict[str, bytes]:
    path = os.path.join(os.path.dirname(reference.__file__), "data", "image_samples.json")
    with open(path) as f:
        return {k: decode(v) for k, v in json.load(f).items()}


SAMPLES = _samples()


def run(fetches: Any, feeds: dict[Any, Any] | None = None) -> Any:
    with tf.Session() as sess:
        return sess.run(fetches, feeds)


def test_decode_image_reads_png_at_16_bits_for_float_dtypes_as_tf_1_15() -> None:
    png = SAMPLES["png_rgb"]
    as_float, wide = run(
        [tf.image.decode_image(png, dtype=tf.float32), tf.image.decode_png(png, dtype=tf.uint16)]
    )
    np.testing.assert_array_equal(as_float, wide.astype(np.float32) * np.float32(1 / 65535))


def test_decode_image_converts_jpeg_and_gif_pixels_by_convert_image_dtype_rules() -> None:
    jpeg = SAMPLES["jpeg_rgb_q90"]
    as_float, as_int16, pixels = run(
        [
            tf.image.decode_image(jpeg, dtype=tf.float64),
            tf.image.decode_image(jpeg, dtype=tf.int16),
            tf.image.decode_jpeg(jpeg),
        ]
    )
    np.testing.assert_array_equal(as_float, pixels.astype(np.float64) * (1 / 255))
    np.testing.assert_array_equal(as_int16, pixels.astype(np.int16) * 128)
    frames = run(tf.image.decode_image(SAMPLES["gif_animated"], expand_animations=False))
    np.testing.assert_array_equal(frames, run(tf.image.decode_gif(SAMPLES["gif_animated"]))[0])


def test_bmp_decodes_at_its_own_channels_as_tf_1_15() -> None:
    four = run(tf.image.decode_image(SAMPLES["bmp_rgba"], channels=3))
    assert four.shape == (10, 13, 4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="channels attribute 3 does not"):
        run(tf.image.decode_bmp(SAMPLES["bmp_rgba"], channels=3))


@pytest.mark.parametrize(
    "key,channels,message",
    [
        ("jpeg_rgb_q90", 4, "decoding JPEG"),
        ("gif_single", 1, "decoding GIF"),
        ("gif_single", 4, "decoding GIF"),
        ("bmp_rgb", 1, "decoding BMP"),
    ],
)
def test_decode_image_refuses_channels_a_format_cannot_give(
    key: str, channels: int, message: str
) -> None:
    y = tf.image.decode_image(SAMPLES[key], channels=channels)
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        run(y)


def test_decode_image_of_unknown_bytes_is_an_invalid_argument() -> None:
    contents = tf.placeholder(tf.string, [])
    y = tf.image.decode_image(contents)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Unable to decode bytes"):
            sess.run(y, {contents: b"not an image at all"})
        assert sess.run(y, {contents: SAMPLES["png_gray"]}).shape == (21, 30, 1)


def test_flips_of_images_of_unknown_rank_take_the_rank_3_path_as_tf_1_15() -> None:
    x = tf.placeholder(tf.float32)
    flipped = tf.image.flip_left_right(x)
    assert flipped.shape.as_list() == [None, None, None]
    image = sample_image(4, 5, 3).astype(np.float32)
    np.testing.assert_array_equal(run(flipped, {x: image}), image[:, ::-1])


def test_static_shapes_of_decoders_and_resizes() -> None:
    contents = tf.placeholder(tf.string, [])
    assert tf.image.decode_jpeg(contents, channels=3).shape.as_list() == [None, None, 3]
    assert tf.image.decode_png(contents, channels=0).shape.as_list() == [None, None, None]
    assert tf.image.decode_gif(contents).shape.as_list() == [None, None, None, 3]
    assert tf.image.decode_image(contents).shape.ndims is None
    images = tf.placeholder(tf.uint8, [None, 30, 40, 3])
    resized = tf.image.resize_images(images, [20, 10])
    assert resized.shape.as_list() == [None, 20, 10, 3] and resized.dtype == tf.float32
    nearest = tf.image.resize_images(
        images, [20, 10], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR
    )
    assert nearest.dtype == tf.uint8
    with pytest.raises(ValueError, match="Shape must be rank 0"):
        tf.image.decode_jpeg(tf.placeholder(tf.string, [2]))


def test_encoders_refuse_what_tensorflow_refuses() -> None:
    with pytest.raises(TypeError):
        tf.image.encode_png(tf.zeros([2, 2, 3], tf.float32))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="quality must be in"):
            sess.run(tf.image.encode_jpeg(tf.zeros([2, 2, 3], tf.uint8), quality=101))
        with pytest.raises(tf.errors.InvalidArgumentError, match="channels"):
            sess.run(tf.image.encode_png(tf.zeros([2, 2, 5], tf.uint8)))
        assert sess.run(tf.image.is_jpeg(tf.image.encode_jpeg(tf.zeros([2, 2, 1], tf.uint8))))


def test_jpeg_options_round_trip_through_the_header() -> None:
    image = sample_image(16, 24, 3)
    cm = run(tf.image.encode_jpeg(image, density_unit="cm", x_density=40, y_density=50))
    assert cm[13:18] == bytes([2, 0, 40, 0, 50])  # JFIF units and densities
    xmp = run(tf.image.encode_jpeg(image, xmp_metadata="<x:xmpmeta/>"))
    assert b"http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta/>" in xmp
    gray = run(tf.image.encode_jpeg(image[..., :1], format="grayscale"))
    assert run(tf.image.extract_jpeg_shape(gray)).tolist() == [16, 24, 1]


def test_resize_kernels_reject_bad_sizes_with_tensorflows_messages() -> None:
    x = tf.constant(np.zeros((1, 4, 4, 1), np.float32))
    size = tf.placeholder(tf.int32, [2])
    y = tf.image.resize_bilinear(x, size, align_corners=True, half_pixel_centers=True)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="half_pixel_centers is True"):
            sess.run(y, {size: [2, 2]})
        z = tf.image.resize_bicubic(x, size)
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be positive"):
            sess.run(z, {size: [2, -1]})
        assert sess.run(z, {size: [2, 3]}).shape == (1, 2, 3, 1)


def test_decode_gif_gives_a_still_jpeg_or_png_as_one_frame_as_tf_1_15() -> None:
    jpeg, png = SAMPLES["jpeg_rgb_q90"], SAMPLES["png_rgb"]
    frames, still = run([tf.image.decode_gif(jpeg), tf.image.decode_jpeg(jpeg, channels=3)])
    assert frames.shape == (1, *still.shape)
    np.testing.assert_array_equal(frames[0], still)
    assert run(tf.image.decode_gif(png)).shape == (1, 37, 53, 3)
