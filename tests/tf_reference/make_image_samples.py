"""Writes data/image_samples.json: images that tfcluster encodes (JPEG and PNG through
tf.image.encode_*) and GIF/BMP files made with Pillow, for record_image.py to decode with
TensorFlow. Run with the project's venv (tfcluster importable), before the recorder:

    PYTHONPATH=server python tests/tf_reference/make_image_samples.py
"""

from __future__ import annotations

import io
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from codec import encode  # noqa: E402


def sample_image(height: int, width: int, channels: int, dtype: type = np.uint8) -> np.ndarray:
    """A smooth gradient with a little fixed noise: what every image case starts from."""
    rng = np.random.default_rng(height * 100 + width * 10 + channels)
    yy, xx = np.mgrid[0:height, 0:width]
    planes = [(xx * 5) % 256, (yy * 7) % 256, ((xx + yy) * 3) % 256, 255 - (xx * 11) % 256]
    base = np.stack(planes[:channels], axis=-1).astype(np.int64)
    noisy = np.clip(base + rng.integers(-20, 21, base.shape), 0, 255)
    if dtype == np.uint16:
        return (noisy * 257 + rng.integers(0, 257, base.shape)).astype(np.uint16)
    return noisy.astype(np.uint8)


def main() -> None:
    import tfcluster as tf
    from PIL import Image

    samples: dict[str, bytes] = {}
    rgb = sample_image(37, 53, 3)
    gray = sample_image(21, 30, 1)
    with tf.Session() as sess:
        samples["jpeg_rgb_q90"] = sess.run(tf.image.encode_jpeg(rgb, quality=90))
        samples["jpeg_rgb_default"] = sess.run(tf.image.encode_jpeg(rgb))
        samples["jpeg_gray"] = sess.run(tf.image.encode_jpeg(gray, quality=80))
        samples["jpeg_rgb_444_progressive"] = sess.run(
            tf.image.encode_jpeg(rgb, quality=75, chroma_downsampling=False, progressive=True)
        )
        samples["jpeg_rgb_cm_optimized"] = sess.run(
            tf.image.encode_jpeg(
                rgb, density_unit="cm", x_density=40, y_density=50, optimize_size=True
            )
        )
        samples["png_rgb"] = sess.run(tf.image.encode_png(rgb))
        samples["png_rgba"] = sess.run(tf.image.encode_png(sample_image(9, 11, 4), compression=9))
        samples["png_gray"] = sess.run(tf.image.encode_png(gray, compression=0))
        # uint16 tensors (a numpy uint16 array is cast to uint8 by encode_png's wrapper, as
        # TF 1.15's): 16-bit files.
        rgb16 = tf.constant(sample_image(7, 6, 3, np.uint16))
        gray16 = tf.constant(sample_image(7, 6, 1, np.uint16))
        samples["png_rgb16"] = sess.run(tf.image.encode_png(rgb16))
        samples["png_gray16"] = sess.run(tf.image.encode_png(gray16))
    frames = [Image.fromarray(sample_image(12, 15, 3)).convert("P") for _ in range(1)]
    frames.append(Image.fromarray(255 - sample_image(12, 15, 3)).convert("P"))
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100)
    samples["gif_animated"] = out.getvalue()
    out = io.BytesIO()
    frames[0].save(out, "GIF")
    samples["gif_single"] = out.getvalue()
    out = io.BytesIO()
    Image.fromarray(sample_image(10, 13, 3)).save(out, "BMP")
    samples["bmp_rgb"] = out.getvalue()
    out = io.BytesIO()
    Image.fromarray(sample_image(10, 13, 4), "RGBA").save(out, "BMP")
    samples["bmp_rgba"] = out.getvalue()
    out = io.BytesIO()
    Image.fromarray(sample_image(9, 7, 3)).convert("P").save(out, "PNG")
    samples["png_palette"] = out.getvalue()
    path = os.path.join(HERE, "data", "image_samples.json")
    with open(path, "w") as f:
        json.dump({k: encode(v) for k, v in sorted(samples.items())}, f, indent=1)
        f.write("\n")
    print(f"{len(samples)} samples -> {path}")


if __name__ == "__main__":
    main()
