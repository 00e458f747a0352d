"""GetNext's check of an element against the iterator's declared leaves: an ndarray of the
declared dtype and static shape passes at once; anything else gets TF's error."""

from __future__ import annotations

import re

import numpy as np
import pytest
from tfcluster.framework import dtypes, errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels import dataset_base as base


def _dense(dtype: dtypes.DType, shape: list[int | None] | None) -> base.LeafSpec:
    return base.LeafSpec(base.DENSE, dtype, TensorShape(shape))


SPECS = [
    _dense(dtypes.float32, [128, 784]),
    _dense(dtypes.int32, [None]),
    _dense(dtypes.string, None),
]


def _element() -> tuple[np.ndarray, ...]:
    names = np.empty(2, dtype=object)
    names[:] = [b"a", b"b"]
    return (np.zeros((128, 784), np.float32), np.arange(5, dtype=np.int32), names)


def test_leaves_of_the_declared_dtype_and_shape_pass() -> None:
    base.check_element(_element(), SPECS, "GetNext")
    # Also leaves that are not ndarrays, through the full check.
    base.check_element(
        (np.zeros((128, 784), np.float32), np.arange(2, dtype=np.int32), b"x"), SPECS, "GetNext"
    )


@pytest.mark.parametrize(
    ("index", "value", "message"),
    [
        (
            0,
            np.zeros((128, 784), np.float64),
            "data type mismatch at component 0: expected float32",
        ),
        (
            0,
            np.zeros((127, 784), np.float32),
            "incompatible shapes at component 0: expected [128,784]",
        ),
        (0, np.zeros((128, 784, 1), np.float32), "incompatible shapes at component 0"),
        (1, np.arange(5, dtype=np.int64), "data type mismatch at component 1: expected int32"),
        (1, np.zeros((2, 2), np.int32), "incompatible shapes at component 1: expected [?]"),
    ],
)
def test_a_leaf_that_does_not_fit_gets_tfs_error(
    index: int, value: np.ndarray, message: str
) -> None:
    element = list(_element())
    element[index] = value
    with pytest.raises(errors.InvalidArgumentError, match=re.escape(message)):
        base.check_element(tuple(element), SPECS, "GetNext")


def test_a_wrong_number_of_components_is_an_error() -> None:
    with pytest.raises(errors.InvalidArgumentError, match="number of components does not match"):
        base.check_element(_element()[:2], SPECS, "GetNext")
