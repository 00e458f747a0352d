"""A seeded tf.data shuffle hands elements out in TF 1.15's order (its buffer slices and
Philox picks, the seeds of each new iterator or epoch as TF's RandomSeedGenerator draws them):
each program of tests/tf_reference/shuffle_order_cases.py runs here on tfcluster and is
compared exactly with TF 1.15's recorded orders (record_shuffle_order.py)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.shuffle_order_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_shuffle_gives_tf115_order(name: str) -> None:
    recorded = reference.case("shuffle_order", name)
    with tf.Graph().as_default():
        got = CASES[name](tf)
    assert sorted(got) == sorted(recorded)
    for key, want in recorded.items():
        np.testing.assert_array_equal(np.asarray(got[key]), want, err_msg=f"{name}.{key}")
