"""Batching dense leaves: one stacked array per component, TF's error for unequal shapes."""

from __future__ import annotations

import numpy as np
import pytest
from tfcluster.framework import dtypes, errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.dataset_batching import batch_elements


def _dense(dtype: dtypes.DType) -> base.LeafSpec:
    return base.LeafSpec(base.DENSE, dtype, TensorShape(None))


def test_scalar_leaves_of_many_components_stack_into_columns() -> None:
    elements = [
        (np.float32(i), np.asarray(i * 2, dtype=np.int64), np.array(b"s%d" % i, dtype=object))
        for i in range(5)
    ]
    specs = [_dense(dtypes.float32), _dense(dtypes.int64), _dense(dtypes.string)]
    f, n, s = batch_elements(elements, specs)
    np.testing.assert_array_equal(f, np.arange(5, dtype=np.float32))
    assert f.dtype == np.float32
    np.testing.assert_array_equal(n, np.arange(0, 10, 2))
    assert n.dtype == np.int64
    assert s.dtype == object and list(s) == [b"s%d" % i for i in range(5)]


def test_leaves_are_cast_to_the_components_dtype() -> None:
    out = base.stack([1.5, np.float64(2.5)], dtypes.float32)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [1.5, 2.5])


def test_equal_shaped_arrays_stack_along_a_new_first_dimension() -> None:
    values = [np.full((2, 3), i, dtype=np.int32) for i in range(4)]
    out = base.stack(values, dtypes.int32)
    assert out.shape == (4, 2, 3)
    np.testing.assert_array_equal(out[3], np.full((2, 3), 3))


@pytest.mark.parametrize(
    "second",
    [np.zeros(3, np.float32), np.zeros((1, 2), np.float32), np.float32(0)],
)
def test_unequal_shapes_get_tfs_error_naming_the_element(second: object) -> None:
    values = [np.zeros(2, np.float32), second]
    with pytest.raises(errors.InvalidArgumentError, match=r"component 1\. First element had shape"):
        base.stack(values, dtypes.float32, "component 1")
    with pytest.raises(errors.InvalidArgumentError, match="element 1 had shape"):
        base.stack(values, dtypes.float32, "component 1")
