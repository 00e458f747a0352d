"""Reductions work out their axes once per unchanging axes array (kernels/math.py): a loop's
gradient reduces by the same BroadcastGradientArgs result every iteration. Results are the
same, a different rank or axes array is worked out again, and bad axes still fail."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tfcluster.framework import dtypes, errors
from tfcluster.kernels import math as math_kernels
from tfcluster.kernels.common import frozen
from tfcluster.runtime import float_errors, kernel_table
from tfcluster.runtime.graph_ir import Node


def _sum_kernel() -> Any:
    node = Node(name="sum", op="Sum", inputs=[], control_inputs=[], device="")
    node.attrs.update(T=dtypes.float32, Tidx=dtypes.int32, keep_dims=False)
    return kernel_table.lookup("Sum", "CPU").factory(node)


def test_the_same_axes_array_is_worked_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = math_kernels._normalize_axes

    def counting(axes: Any, ndim: int) -> tuple[int, ...]:
        calls.append(ndim)
        return real(axes, ndim)

    monkeypatch.setattr(math_kernels, "_normalize_axes", counting)
    total = _sum_kernel()
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    axes = frozen(np.array([0, -1], np.int32))
    with float_errors.silence():
        for _ in range(3):
            np.testing.assert_array_equal(total(None, [x, axes])[0], x.sum(axis=(0, 2)))
        assert calls == [3]
        np.testing.assert_array_equal(total(None, [x[0], axes])[0], x[0].sum())  # rank 2
        empty = frozen(np.array([], np.int32))
        assert total(None, [x, empty])[0] is x  # nothing to reduce
        changing = np.array([1], np.int32)  # writable: may change, so not kept
        total(None, [x, changing])
        total(None, [x, changing])
    assert calls == [3, 2, 3, 3, 3]


def test_bad_axes_still_fail_after_good_ones() -> None:
    total = _sum_kernel()
    x = np.ones((2, 3), np.float32)
    with float_errors.silence():
        total(None, [x, frozen(np.array([1], np.int32))])
        with pytest.raises(errors.InvalidArgumentError, match="Invalid reduction dimension"):
            total(None, [x, frozen(np.array([2], np.int32))])
