"""float64 element-wise functions give TF 1.15's CPU bits: Exp, Sigmoid, Elu and Selu
through Eigen's exp packets of four (and glibc's exp on a tensor's last size % 4 values),
the others (tanh, log, log1p, expm1, tan, the inverse and hyperbolic functions, erf, erfc,
lgamma, pow, softplus) through glibc value by value, with subnormals read and written as
zeros. Each program of tests/tf_reference/float64_function_cases.py runs here and its bytes
are compared with TF 1.15's (record_float64_functions.py)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.float64_function_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_float64_function_gives_tfs_bits(name: str) -> None:
    got = CASES[name](tf)
    want = reference.case("float64_functions", name)
    assert sorted(got) == sorted(want)
    for label, value in want.items():
        ours = np.frombuffer(bytes.fromhex(got[label]), np.float64)
        theirs = np.frombuffer(bytes.fromhex(value), np.float64)
        # NaN payloads and signs are the C library's and the CPU's: compared as NaN.
        same = (ours.view(np.int64) == theirs.view(np.int64)) | (np.isnan(ours) & np.isnan(theirs))
        assert same.all(), (
            f"{name} {label}: {np.flatnonzero(~same)[:8]} {ours[~same][:4]} vs {theirs[~same][:4]}"
        )
