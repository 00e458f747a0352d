"""Random ops after tf.image.decode_image against TF 1.15's recorded answers
(tests/tf_reference/record_decode_image_seed.py): the same numbers after an image decoded as
uint8, float32, uint16 without animations, under a name, from a Python string, and in a
tf.data map function; the result named as TF's (`decode_image/cond_jpeg/Merge:0`)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.decode_image_seed_cases import CASES

AREA = "decode_image_seed"


@pytest.mark.parametrize("name", sorted(CASES))
def test_decode_image_seed_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
