"""A training image pipeline's random distortions against TF 1.15's recorded bits
(tests/tf_reference/record_image_distortions.py): tf.image.adjust_contrast sums each channel
in TF's folding order and scales by the float reciprocal of the pixel count, so contrast and
the per-image standardization after it are TF's bits, and the seeded crop, flip and
brightness draws before it are TF's."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.image_distortion_cases import CASES

AREA = "image_distortions"


def _as_lists(arrays: list[np.ndarray]) -> list[list[int]]:
    return [np.asarray(a).tolist() for a in arrays]


def test_adjust_contrast_is_tfs_bits_for_odd_even_and_single_pixel_images() -> None:
    name = "adjust_contrast_of_odd_and_even_images"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert _as_lists(actual["images"]) == _as_lists(expected["images"])
    for i, (got, want) in enumerate(zip(actual["outputs"], expected["outputs"], strict=True)):
        assert np.asarray(got).tolist() == np.asarray(want).tolist(), f"output {i}"


def test_seeded_crop_flip_brightness_contrast_and_standardization_are_tfs_bits() -> None:
    name = "distorted_training_images"
    expected = reference.case(AREA, name)["runs"]
    actual = CASES[name](tf)["runs"]
    assert len(actual) == len(expected)
    for run, (got, want) in enumerate(zip(actual, expected, strict=True)):
        for stage, g, w in zip(("brightness", "contrast", "standardized"), got, want, strict=True):
            assert np.asarray(g).tolist() == np.asarray(w).tolist(), f"run {run} {stage}"
