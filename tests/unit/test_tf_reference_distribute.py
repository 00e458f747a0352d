"""tf.distribute strategies against TensorFlow 1.15's recorded answers
(tests/tf_reference/distribute_cases.py): contexts, mirrored variables and their names,
reduce/all_reduce/merge_call values, losses and weights after training steps under every
strategy, input pipelines, cross-device ops and error classes."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import distribute_cases as cases
from tf_reference import reference


# tfcluster has no resource variables: a strategy's plain variables are tf.Variable (TF 1.15
# makes ResourceVariable); every other answer is TF's.
def _same(got: Any, want: Any, where: str) -> None:
    if isinstance(want, dict) and "error" in want:
        assert isinstance(got, BaseException), f"{where}: TF raised {want['error']}, got {got!r}"
        assert type(got).__name__ == want["error"], f"{where}: {got!r}"
        # Python-level messages are TF's word for word (those naming objects by their repr
        # excepted: reprs differ).
        message = want["message"]
        if want["error"] in ("ValueError", "TypeError", "AssertionError") and not re.search(
            r"Tensor\(| object at ", message
        ):
            assert str(got) == message, where
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), f"{where}: {got!r}"
        for key in want:
            _same(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, np.ndarray):
        got = np.asarray(got)
        assert got.shape == want.shape, f"{where}: {got.shape} != {want.shape}"
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6, err_msg=where)
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), f"{where}: {got!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=2e-5, abs=1e-6), where
    else:
        assert got == want, f"{where}: {got!r} != TF's {want!r}"


@pytest.mark.parametrize("case", sorted(cases.PROGRAMS))
def test_distribute_matches_tensorflow(case: str) -> None:
    want = reference.case("distribute", case)
    got = cases.run(tf, case)
    assert sorted(got) == sorted(want)
    for key in want:
        _same(got[key], want[key], f"{case}.{key}")
