"""Image decoding and preprocessing on a task server through a remote session: encoded bytes
(with NUL bytes) go in over gRPC, uint8/uint16/float pixels come back as a local session gives
them, and an unreadable image is InvalidArgumentError after which the session keeps working."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference.make_image_samples import sample_image


def test_images_decode_and_resize_on_a_task_server_and_survive_bad_input() -> None:
    image = sample_image(30, 41, 3)
    wide = sample_image(7, 6, 3, np.uint16)
    with tf.Session() as local:
        jpeg = local.run(tf.image.encode_jpeg(image, quality=85))
        png16 = local.run(tf.image.encode_png(tf.constant(wide)))
    server = tf.train.Server.create_local_server()
    try:
        with tf.Graph().as_default():
            contents = tf.placeholder(tf.string, [])
            pixels = tf.image.decode_jpeg(contents, channels=3)
            batch = tf.expand_dims(tf.image.convert_image_dtype(pixels, tf.float32), 0)
            resized = tf.image.resize_bilinear(batch, [16, 20])
            distorted = tf.image.adjust_hue(tf.image.adjust_saturation(resized, 1.4), 0.1)
            deep = tf.image.decode_png(contents, dtype=tf.uint16)
            fetches = [pixels, resized, distorted]
            with tf.Session() as sess:
                want = sess.run(fetches, {contents: jpeg})
            with tf.Session(server.target) as sess:
                got = sess.run(fetches, {contents: jpeg})
                for g, w in zip(got, want):
                    assert g.dtype == w.dtype
                    np.testing.assert_array_equal(g, w)
                np.testing.assert_array_equal(sess.run(deep, {contents: png16}), wide)
                with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid JPEG data"):
                    sess.run(pixels, {contents: jpeg[: len(jpeg) // 3]})
                assert sess.run(pixels, {contents: jpeg}).shape == (30, 41, 3)
    finally:
        server.stop()
