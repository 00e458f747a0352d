"""tf.range converts its arguments to a given dtype (no casts) and casts them to the widest
only without one, against TF 1.15's recorded answers
(tests/tf_reference/record_range_dtypes.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.range_dtype_cases import CASES

AREA = "range_dtypes"


def test_range_ops_values_and_errors_are_tfs() -> None:
    reference.assert_case_equal(AREA, "ranges", CASES["ranges"](tf))
