"""Behaviours of public TF1 vision and generative programs against TF 1.15's recorded answers
(tests/tf_reference/record_vision_sweep.py)."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.vision_sweep_cases import CASES

AREA = "vision_sweep"


def _bits(values: list[object]) -> list[list[object]]:
    """Floats as their exact bits (hex), other values as they are."""
    out: list[list[object]] = []
    for a in values:
        flat = np.asarray(a).ravel()
        out.append([float(v).hex() for v in flat] if flat.dtype.kind == "f" else flat.tolist())
    return out


def test_linspace_rounds_each_value_in_the_output_dtype_as_tfs_kernel() -> None:
    expected = reference.case(AREA, "linspace_rounds_in_its_dtype")
    actual = CASES["linspace_rounds_in_its_dtype"](tf)
    assert [a.dtype for a in actual["values"]] == [np.asarray(e).dtype for e in expected["values"]]
    assert _bits(actual["values"]) == _bits(expected["values"])
    # The antisymmetric grid's sin sums to TF's rounding residue, not to an exact zero.
    assert _bits([actual["gabor_sum"]]) == _bits([expected["gabor_sum"]])


def test_a_cond_branch_returning_none_fails_as_tfs_convert_to_tensor() -> None:
    expected = reference.case(AREA, "cond_branch_returning_none")
    assert CASES["cond_branch_returning_none"](tf) == expected


def test_a_known_dimension_converts_to_an_int32_scalar_as_tf_converts_one() -> None:
    expected = reference.case(AREA, "dimensions_convert_to_tensors")
    actual = CASES["dimensions_convert_to_tensors"](tf)
    assert actual["ops"] == expected["ops"]
    assert actual["dtypes"] == expected["dtypes"]
    assert actual["errors"] == expected["errors"]
    for name, want in expected["values"].items():
        np.testing.assert_array_equal(actual["values"][name], want)
    reference.assert_close(actual["up"], expected["up"])


def test_an_operator_converts_the_other_operand_with_its_dtype_as_a_hint() -> None:
    expected = reference.case(AREA, "division_by_a_dimension")
    assert CASES["division_by_a_dimension"](tf) == expected
