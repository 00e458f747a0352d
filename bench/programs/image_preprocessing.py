"""Issue 16 (tf.image): decoding and preprocessing images as TF1 input pipelines do.

Rows:
  decode_jpeg 375x500            tf.image.decode_jpeg of one fed JPEG (TF's DCT choices)
  resize_bilinear 16x224         a fed float32 batch [16, 256, 320, 3] to 224x224
  inception-style per image      decode, convert, resize to 224, random flip, brightness,
                                 saturation, hue, contrast, clip, per_image_standardization
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c


def picture(height: int, width: int) -> np.ndarray:
    yy, xx = np.mgrid[0:height, 0:width]
    base = np.stack([(xx * 5) % 256, (yy * 7) % 256, ((xx + yy) * 3) % 256], axis=-1)
    noise = np.random.default_rng(0).integers(-20, 21, base.shape)
    return np.clip(base + noise, 0, 255).astype(np.uint8)


def graphs(tf: Any) -> tuple[Any, dict[str, Any]]:
    g = tf.Graph()
    with g.as_default():
        contents = tf.placeholder(tf.string, [])
        decoded = tf.image.decode_jpeg(contents, channels=3)
        batch = tf.placeholder(tf.float32, [16, 256, 320, 3])
        resized = tf.image.resize_bilinear(batch, [224, 224])
        x = tf.image.convert_image_dtype(decoded, tf.float32)
        x = tf.image.resize_images(x, [224, 224])
        x = tf.image.random_flip_left_right(x)
        x = tf.image.random_brightness(x, 32.0 / 255.0)
        x = tf.image.random_saturation(x, 0.5, 1.5)
        x = tf.image.random_hue(x, 0.2)
        x = tf.image.random_contrast(x, 0.5, 1.5)
        x = tf.clip_by_value(x, 0.0, 1.0)
        standardized = tf.image.per_image_standardization(x)
        encode = tf.image.encode_jpeg(tf.constant(picture(375, 500)), quality=90)
    sess = tf.Session(graph=g)
    jpeg = sess.run(encode)
    images = np.random.default_rng(1).uniform(0, 1, (16, 256, 320, 3)).astype(np.float32)
    assert sess.run(decoded, {contents: jpeg}).shape == (375, 500, 3)
    assert sess.run(standardized, {contents: jpeg}).shape == (224, 224, 3)
    return sess, {
        "decode_jpeg 375x500": lambda: sess.run(decoded, {contents: jpeg}),
        "resize_bilinear 16x224": lambda: sess.run(resized, {batch: images}),
        "inception-style per image": lambda: sess.run(standardized, {contents: jpeg}),
    }


def main() -> None:
    args = c.base_parser(__doc__ or "").parse_args()
    tf = c.import_tf(args.impl)
    cap = c.seconds_cap(args)
    c.progress("image graphs: warm-up and timing")
    _, fns = graphs(tf)
    timed = c.sample_interleaved(
        fns, warmup=5, samples=12 if args.quick else 40, max_seconds=cap, batch_target_s=0.0
    )
    rows = [c.time_row(name, xs) for name, xs in timed.items()]
    for row in rows:
        c.progress(f"  {row.name}: median {row.median * 1e6:.1f} us over {row.samples} samples")
    c.emit(args.impl, rows)


if __name__ == "__main__":
    main()
