"""tf.nn.lrn and its gradient against TF 1.15's recorded float32 bits
(tests/tf_reference/record_local_response_normalization.py): general, 0.5 and 1 betas, odd
depths, a radius wider than the depth, TF's single-threaded path past 384 channels, and zeros
in the incoming gradient."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.local_response_normalization_cases import CASES, SETTINGS

AREA = "local_response_normalization"
NAME = "lrn_outputs_and_gradients"


@pytest.fixture(scope="module")
def actual() -> dict[str, dict[str, np.ndarray]]:
    result: dict[str, dict[str, np.ndarray]] = CASES[NAME](tf)
    return result


@pytest.mark.parametrize("index", range(len(SETTINGS)))
def test_lrn_output_and_gradient_are_tfs_bits(
    actual: dict[str, dict[str, np.ndarray]], index: int
) -> None:
    want = reference.case(AREA, NAME)[f"setting_{index}"]
    got = actual[f"setting_{index}"]
    for part in ("output", "gradient"):
        assert np.asarray(got[part]).tolist() == np.asarray(want[part]).tolist(), part
