"""Every op's GPU kernel against its CPU kernel on a real GPU: one graph, the same case built
on /cpu:0 and on /device:GPU:0 (no soft placement, so the GPU build really runs there),
compared (gpu_op_cases.check_gpu_matches_cpu)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from support.gpu_op_cases import check_gpu_errors_are_tf_errors, check_gpu_matches_cpu, gpu_ops

# (rtol, atol) by dtype: device math libraries differ from numpy's in the last bits
# (transcendentals, summation order in reductions and cuBLAS products).
_TOLERANCE = {np.dtype(np.float16): (2e-3, 2e-3), np.dtype(np.float64): (1e-12, 1e-12)}
_DEFAULT = (2e-5, 2e-5)


def _tolerance(dtype: np.dtype[Any]) -> tuple[float, float]:
    return _TOLERANCE.get(dtype, _DEFAULT)


@pytest.mark.parametrize("op", gpu_ops())
def test_gpu_kernel_matches_cpu_kernel(op: str) -> None:
    check_gpu_matches_cpu(op, _tolerance)


def test_gpu_errors_are_tf_errors() -> None:
    check_gpu_errors_are_tf_errors()
