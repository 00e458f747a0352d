"""tf.GradientTape, tf.function / autograph / wrap_function and tf.profiler in graph mode
against TensorFlow 1.15: every program of tf_reference/tape_function_cases.py runs on
tfcluster and must give what TF 1.15 gave (values, shapes, the names and types of the ops
that show, error classes, profiler totals, trees and report text)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.tape_function_cases import CASES

# What tfcluster knowingly does differently, per case: keys not compared.
NOT_COMPARED: dict[str, dict[str, str]] = {}


def _same(got: Any, want: Any, path: str) -> None:
    if isinstance(want, dict) and isinstance(got, dict):
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != TF's {sorted(want)}"
        for k in want:
            _same(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), f"{path}: {got!r} != TF's {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{i}]")
    elif isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
        g, w = np.asarray(got), np.asarray(want)
        assert g.shape == w.shape, f"{path}: shape {g.shape} != TF's {w.shape}"
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=path)
        else:
            assert g.tolist() == w.tolist(), f"{path}: {g!r} != TF's {w!r}"
    elif isinstance(want, float) and isinstance(got, float):
        assert got == pytest.approx(want, rel=1e-5), f"{path}: {got} != TF's {want}"
    else:
        assert got == want, f"{path}:\n{got!r}\n!= TF's\n{want!r}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_gives_what_tensorflow_1_15_gives(name: str) -> None:
    want = reference.case("tape_function", name)
    assert "skipped" not in want, want.get("skipped")
    got = decode(encode(CASES[name](tf)))
    for key in NOT_COMPARED.get(name, {}):
        got.pop(key, None)
        want = {k: v for k, v in want.items() if k != key}
    _same(got, want, name)
