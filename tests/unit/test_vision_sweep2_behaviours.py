"""Behaviours of public TF1 vision programs against TF 1.15's recorded answers, second sweep
(tests/tf_reference/record_vision_sweep2.py)."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.vision_sweep2_cases import CASES

AREA = "vision_sweep2"


def test_split_names_the_int32_split_dim_input_and_its_op_as_tfs_op_def_library() -> None:
    expected = reference.case(AREA, "split_dim_of_another_type")
    assert CASES["split_dim_of_another_type"](tf) == expected


def test_a_fetched_uninitialized_variable_names_tfs_retval_node_of_the_sorted_fetches() -> None:
    expected = reference.case(AREA, "fetching_an_uninitialized_variable")
    assert CASES["fetching_an_uninitialized_variable"](tf) == expected


def test_softmax_over_an_inner_axis_builds_tfs_permutation_ops() -> None:
    expected = reference.case(AREA, "softmax_over_an_inner_axis")
    actual = CASES["softmax_over_an_inner_axis"](tf)
    assert actual["ops"] == expected["ops"]
    assert actual["shapes"] == expected["shapes"]
    for name, want in expected["values"].items():
        reference.assert_close(actual["values"][name], want)
    reference.assert_close(actual["grad"], expected["grad"])
    # The same op count: the random op after them has TF's seed, hence its values.
    np.testing.assert_array_equal(actual["after"], expected["after"])


def _types(described: object) -> object:
    if isinstance(described, dict):
        return {k: _types(v) for k, v in described.items()}
    return [kind for kind, _ in described]  # type: ignore[attr-defined]


def test_a_multi_output_models_output_losses_are_reported_as_float32_as_tfs() -> None:
    expected = reference.case(AREA, "multi_output_history_types")
    actual = CASES["multi_output_history_types"](tf)
    assert _types(actual) == _types(expected)
    # Values as TF's, within float32 rounding of the sums (fit_generator's per-output losses
    # average differently: not compared here).
    for part in ("fit",):
        for name, values in expected[part].items():
            got = [float(v) for _, v in actual[part][name]]
            np.testing.assert_allclose(got, [float(v) for _, v in values], rtol=1e-5)
    got = [float(v) for _, v in actual["evaluate"]]
    np.testing.assert_allclose(got, [float(v) for _, v in expected["evaluate"]], rtol=1e-5)
