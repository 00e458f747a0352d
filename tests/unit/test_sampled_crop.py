"""The crops SampleDistortedBoundingBox draws against TF 1.15's recorded answers
(tests/tf_reference/record_sampled_crop.py): the same boxes, run after run, for seeded ops
over whole images, inception-style ranges, tight coverage with few attempts, and the seeds
tf.image.sample_distorted_bounding_box passes on."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.sampled_crop_cases import CASES

AREA = "sampled_crop"


@pytest.mark.parametrize("name", sorted(CASES))
def test_sampled_crop_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
