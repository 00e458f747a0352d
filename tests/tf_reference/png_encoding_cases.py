"""PNG files as TF 1.15's EncodePng writes them (libpng 1.6 and zlib), compared byte for byte:
the filter libpng's heuristic picks for each row, the deflate settings (level, memory level 9,
the Z_FILTERED strategy, a narrowed window for small images) and 8192-byte IDAT chunks. Each
case is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_png_encoding.py and on
tfcluster by tests/unit/test_png_encoding_as_tf.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}


def _images(rng):
    """Noise, smooth ramps (each filter wins somewhere), flat areas and a few tiny images."""
    images = {}
    h, w = 64, 80
    yy, xx = np.mgrid[0:h, 0:w]
    ramp = np.stack([xx * 3, yy * 2 + xx, (xx * yy) // 7], axis=-1) % 256
    images["noise_rgb"] = rng.randint(0, 256, (h, w, 3))
    images["ramp_rgb"] = ramp
    images["ramp_noise_rgb"] = (ramp + rng.randint(0, 4, ramp.shape)) % 256
    images["blocks_gray"] = ((yy // 8 + xx // 8) % 2 * 200 + 20)[..., None]
    images["ramp_gray_alpha"] = np.stack([xx * 3 % 256, 255 - yy * 3], axis=-1)
    images["mixed_rgba"] = np.concatenate([ramp, rng.randint(0, 256, (h, w, 1))], axis=-1)
    images["tiny_rgb"] = rng.randint(0, 256, (3, 5, 3))
    images["one_pixel_gray"] = np.array([[[7]]])
    images["row_rgb"] = rng.randint(0, 256, (1, 200, 3))
    images["tall_gray"] = (np.arange(300)[:, None, None] * np.ones((1, 2, 1)) % 256).astype(int)
    return {name: image.astype(np.uint8) for name, image in images.items()}


def encode_png(tf):
    """tf.image.encode_png of uint8 images of 1 to 4 channels at the default compression, and
    a few at levels 0, 1 and 9; uint16 tensors and numpy arrays: the bytes as hex."""
    tf.reset_default_graph()
    rng = np.random.RandomState(8)
    fetches = {}
    for name, image in sorted(_images(rng).items()):
        fetches[name] = tf.image.encode_png(image)
    for level in (0, 1, 9):
        fetches[f"ramp_noise_rgb_level{level}"] = tf.image.encode_png(
            _images(np.random.RandomState(8))["ramp_noise_rgb"], compression=level
        )
    # A numpy uint16 array is cast to T's default, uint8 (its low bytes), by the op wrapper.
    wide = (rng.randint(0, 65536, (20, 30, 3))).astype(np.uint16)
    fetches["noise_rgb_numpy_uint16"] = tf.image.encode_png(wide)
    ramp16 = (np.arange(40 * 24).reshape(40, 24, 1) * 61).astype(np.uint16)
    fetches["ramp_gray_numpy_uint16"] = tf.image.encode_png(ramp16)
    # uint16 tensors: 16-bit PNGs.
    fetches["noise_rgb_16bit"] = tf.image.encode_png(tf.constant(wide))
    fetches["ramp_gray_16bit"] = tf.image.encode_png(tf.constant(ramp16))
    fetches["noise_rgba_16bit"] = tf.image.encode_png(
        tf.constant(rng.randint(0, 65536, (9, 7, 4)).astype(np.uint16))
    )
    with tf.Session() as sess:
        values = sess.run(fetches)
    return {name: value.hex() for name, value in sorted(values.items())}


CASES["encode_png"] = encode_png


def image_summaries(tf):
    """tf.summary.image of float and uint8 batches: each image's encoded PNG as hex."""
    tf.reset_default_graph()
    rng = np.random.RandomState(9)
    images = _images(np.random.RandomState(8))
    floats = rng.randn(2, 24, 20, 3).astype(np.float32)
    summaries = {
        "float_rgb": tf.summary.image("float_rgb", floats, max_outputs=2),
        "uint8_gray": tf.summary.image("uint8_gray", images["blocks_gray"][None]),
        "uint8_rgba": tf.summary.image("uint8_rgba", images["mixed_rgba"][None]),
    }
    with tf.Session() as sess:
        values = sess.run(summaries)
    out = {}
    for name, serialized in sorted(values.items()):
        summary = tf.Summary.FromString(serialized)
        out[name] = [v.image.encoded_image_string.hex() for v in summary.value]
    return out


CASES["image_summaries"] = image_summaries
