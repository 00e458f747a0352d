"""tf.vectorized_map gives TF 1.15's values (recorded by
tests/tf_reference/record_vectorized_map.py from vectorized_map_cases.py)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.vectorized_map_cases import CASES, build


@pytest.mark.parametrize("case", CASES)
def test_values_match_tf(case: str) -> None:
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(build(tf, case))
    expected = reference.case("vectorized_map", case)["value"]
    if isinstance(expected, list):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=1e-6)
    else:
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-6)
