"""Float64 matrix products over a contracted dimension of 2 or 3, rounded as TF 1.15 rounds them.

TF 1.15's CPU kernels multiply float64 matrices with Eigen's blocked GEMM, built for AVX
without FMA: each output is a running sum over the contracted dimension, every product and
every sum rounded on its own (((a0*b0) + a1*b1) + a2*b2). OpenBLAS (numpy) fuses each
multiply-add (FMA), so an affine grid or a regression on two or three float64 features came
out a last bit apart. Longer sums are left to BLAS: Eigen's order there depends on the shape
(paired lanes, peeled blocks), and float32 products go through TF's MKL-DNN sgemm, whose order
is its own.
"""

from __future__ import annotations

import numpy as np

# Contracted lengths whose order TF 1.15 was recorded to keep for every shape (MatMul and
# BatchMatMul, any transposes): tests/tf_reference/record_vision_sweep3.py.
DEPTHS = (2, 3)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """a @ b (batch dimensions broadcast) as a running sum of rounded products, or None where
    BLAS's product stands (another dtype or depth)."""
    if a.dtype != np.float64 or b.dtype != np.float64 or a.shape[-1] not in DEPTHS:
        return None
    out = a[..., :, 0:1] * b[..., 0:1, :]
    for k in range(1, a.shape[-1]):
        out += a[..., :, k : k + 1] * b[..., k : k + 1, :]
    return out
