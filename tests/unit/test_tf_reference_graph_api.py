"""tf.Module, tf.variable_creator_scope and session tensor handles against TensorFlow 1.15's
recorded answers (tests/tf_reference/graph_api_cases.py): names, discovery order, creator
chains, handle strings, values and error classes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import graph_api_cases as cases
from tf_reference import reference


def _same(got: Any, want: Any, where: str) -> None:
    if isinstance(want, dict) and "error" in want:
        assert isinstance(got, BaseException), f"{where}: TF raised {want['error']}, got {got!r}"
        assert type(got).__name__ == want["error"], f"{where}: {got!r}"
    elif isinstance(want, np.ndarray):
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape, where
        np.testing.assert_array_equal(got, want, err_msg=where)
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), f"{where}: {got!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]")
    else:
        assert got == want, f"{where}: {got!r} != TF's {want!r}"


@pytest.mark.parametrize("case", sorted(cases.PROGRAMS))
def test_graph_api_matches_tensorflow(case: str) -> None:
    want = reference.case("graph_api", case)
    got = cases.run(tf, case)
    assert sorted(got) == sorted(want)
    for key in want:
        _same(got[key], want[key], f"{case}.{key}")


@pytest.mark.parametrize(
    "name",
    ["enable_eager_execution", "enable_v2_behavior"],
)
def test_names_left_out_say_why(name: str) -> None:
    with pytest.raises(
        tf.errors.UnimplementedError, match=f"tf.{name} is not implemented in tfcluster: "
    ):
        getattr(tf, name)(lambda: None)
