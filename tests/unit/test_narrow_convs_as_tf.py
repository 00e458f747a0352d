"""Float32 convolutions of 1 to 8 output channels rounded as TF 1.15's CPU kernels round them,
against its recorded bits (tests/tf_reference/record_narrow_convs.py): the patches summed in
MKL-DNN's sgemm order, one running fused multiply-add per output, whether the convolution is
fetched alone or fused with its BiasAdd."""

from __future__ import annotations

from typing import Any

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.narrow_conv_cases import CASES

AREA = "narrow_convs"


def _bits(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=np.float32).view(np.uint32)


def test_convolutions_of_few_output_channels_sum_as_tfs_sgemm() -> None:
    actual = CASES["conv_forward"](tf)
    expected = reference.case(AREA, "conv_forward")
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        np.testing.assert_array_equal(_bits(actual[name]), _bits(want), name)


def test_transposed_convolutions_to_few_channels_add_patches_as_tf() -> None:
    actual = CASES["transposed_conv"](tf)
    expected = reference.case(AREA, "transposed_conv")
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        np.testing.assert_array_equal(_bits(actual[name]), _bits(want), name)
