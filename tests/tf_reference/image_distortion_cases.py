"""The random distortions of a training image pipeline (crop, flip, brightness, contrast,
standardization, as CIFAR-10 input functions chain them), bit for bit: AdjustContrastv2 sums
each channel in the order of TF 1.15's kernel (the image halved and folded onto itself) and
scales by the float reciprocal of the pixel count, so the contrast-adjusted image and its
per-image standardization are TF's bits. Each case is `fn(tf) -> dict of plain values`, run on
TF 1.15 by record_image_distortions.py and on tfcluster by
tests/unit/test_image_distortions.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np


def _bits(values):
    return np.asarray(values, np.float32).view(np.uint32)


def adjust_contrast_of_odd_and_even_images(tf):
    """tf.image.adjust_contrast of float images whose pixel counts are odd, even, a power of
    two or one, with one to four channels and a batch, each factor below and above 1."""
    rng = np.random.RandomState(7)
    shapes = [(24, 24, 3), (5, 7, 3), (1, 1, 2), (2, 9, 9, 1), (33, 17, 4), (16, 16, 3)]
    images, outputs = [], []
    with tf.Graph().as_default():
        fetches = []
        for shape in shapes:
            image = (rng.randn(*shape) * 50.0 + 100.0).astype(np.float32)
            images.append(_bits(image))
            for factor in (0.3, 1.7):
                fetches.append(tf.image.adjust_contrast(tf.constant(image), factor))
        with tf.Session() as sess:
            outputs = [_bits(v) for v in sess.run(fetches)]
    return {"images": images, "outputs": outputs}


def distorted_training_images(tf):
    """A CIFAR-10 style chain over a seeded graph: random_crop, random_flip_left_right,
    random_brightness(63), random_contrast(0.2, 1.8), per_image_standardization, four runs."""
    rng = np.random.RandomState(0)
    image = rng.randint(0, 256, (32, 32, 3)).astype(np.float32)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        cropped = tf.random_crop(tf.constant(image), [24, 24, 3])
        flipped = tf.image.random_flip_left_right(cropped)
        brighter = tf.image.random_brightness(flipped, max_delta=63)
        contrasted = tf.image.random_contrast(brighter, lower=0.2, upper=1.8)
        standardized = tf.image.per_image_standardization(contrasted)
        with tf.Session() as sess:
            runs = [sess.run([brighter, contrasted, standardized]) for _ in range(4)]
    return {"runs": [[_bits(v) for v in run] for run in runs]}


CASES = {
    "adjust_contrast_of_odd_and_even_images": adjust_contrast_of_odd_and_even_images,
    "distorted_training_images": distorted_training_images,
}
