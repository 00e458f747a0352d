"""float64 sums over any axes in the order TensorFlow 1.15's CPU Sum and Mean kernels add them.

TF's ReductionHelper first simplifies the shape (size-1 dimensions dropped, neighbours of the
same reducedness merged) into alternating kept (K) and reduced (R) dimensions, then:
- [R] (the whole tensor) and [K, R] (innermost axes): Eigen's InnerMostDimReducer, in
  _eigen_sum;
- [R, K] (outer axes): each output's values one after the other down the reduced axis, from
  zero (Eigen's InnerMostDimPreserver over packets of outputs, or its generic reducer one
  output at a time: the same additions);
- [K, R, K] (a middle axis): the same, down the middle axis;
- [R, K, R]: Eigen's GenericDimReducer, from zero, whose outer loop runs over the last
  reduced dimension and its inner loop over the first (the loops are nested for ColMajor
  tensors, where that is memory order);
- anything longer: transposed to [kept..., reduced...] and summed as [K, R].
numpy reduces an outer axis in the same order, but from the first value (a sum of -0 values
is then -0, TF's +0), and a middle or mixed one in orders of its own.
"""

from __future__ import annotations

import numpy as np

from tfcluster.kernels import _eigen_sum
from tfcluster.kernels._outer_sums import _down

_ZERO = np.float64(0)


def _down_middle(x: np.ndarray) -> np.ndarray:
    """Sums of the 3-D C-contiguous `x` down its middle axis, one value after the other from
    zero (numpy's reduction keeps the last axis as its inner loop: out[i, k] += x[i, j, k])."""
    return np.add(np.add.reduce(x, axis=1), _ZERO)


def axes_sum(x: np.ndarray, axis: tuple[int, ...], keep: bool) -> np.ndarray | None:
    """TF 1.15's float64 sum of `x` over `axis` where _eigen_sum.trailing_sum gave None
    (None again for other dtypes and whole sums past its cap: numpy's then)."""
    if not isinstance(x, np.ndarray) or x.dtype != np.float64 or x.size == 0:
        return None
    dims, reduce_first = _eigen_sum.tf_reduction_shape(x.shape, axis)
    shape = _eigen_sum.reduced_shape(x.shape, axis, keep)
    if len(dims) == 1:  # a whole sum past _eigen_sum's cap
        return None
    data = np.ascontiguousarray(x).reshape(dims)
    if len(dims) == 2 and reduce_first:
        return _down(data).reshape(shape)
    if len(dims) == 3 and not reduce_first:
        return _down_middle(data).reshape(shape)
    if len(dims) == 3:
        # The last reduced dimension in the outer loop, the first in the inner one.
        by_loops = np.ascontiguousarray(data.transpose(2, 0, 1)).reshape(-1, dims[1])
        return _down(by_loops).reshape(shape)
    kept = [d for d in range(len(dims)) if (d % 2 == 0) != reduce_first]
    gone = [d for d in range(len(dims)) if (d % 2 == 0) == reduce_first]
    rows = np.ascontiguousarray(data.transpose(kept + gone))
    rows = rows.reshape(int(np.prod([dims[d] for d in kept])), -1)
    return _eigen_sum.rows_sum(rows).reshape(shape)
