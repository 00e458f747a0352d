"""Fetched arrays of one element used as Python numbers against TF 1.15's (numpy 1.18's)
recorded answers (tests/tf_reference/record_numpy1_conversions.py): stored into one element of
another array, converted by float()/int()/complex(), formatted, and the errors of arrays of
another size."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.numpy1_conversion_cases import CASES

AREA = "numpy1_conversions"


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_element_fetches_convert_as_under_numpy1(name: str) -> None:
    assert CASES[name](tf) == reference.case(AREA, name)


class _Subclass(np.ndarray):
    pass


def test_zero_d_arrays_object_arrays_and_subclasses_convert_too() -> None:
    assert float(np.array(1.5)) == 1.5
    assert int(np.array([[7]], dtype=object)) == 7
    assert float(np.array([[2.5]]).view(_Subclass)) == 2.5
    with pytest.raises(TypeError, match="only size-1 arrays"):
        float(np.array([2.5, 1.0]).view(_Subclass))
