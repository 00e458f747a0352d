"""tf.math.expm1 gives TF 1.15's bits: float32 by Eigen's generic_expm1 over packets of eight
(exp(x) - 1 times x / log(exp(x)), x itself where exp(x) rounds to 1) and glibc's expm1f on
the last size % 8 values; float64 too. Inputs in tests/tf_reference/expm1_cases.py, recorded
by record_expm1.py."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.expm1_cases import CASES


@pytest.mark.parametrize("case", sorted(CASES))
def test_expm1_rounds_as_tf(case: str) -> None:
    got = np.asarray(CASES[case](tf)["bits"])
    want = np.asarray(reference.case("expm1", case)["bits"])
    dtype = np.float32 if "float32" in case else np.float64
    differ = np.nonzero(got != want)[0]
    values = np.asarray(want).astype(np.uint32 if dtype is np.float32 else np.uint64).view(dtype)
    assert differ.size == 0, (
        f"{differ.size} values differ, first at {differ[:5]}: {values[differ[:5]]}"
    )
