"""`tf.*` names for sparse gradients: IndexedSlices (a gather's gradient), the conversion that
keeps one as it is, and the accumulator that averages them across workers."""

from tfcluster.framework.indexed_slices import (
    IndexedSlices,
    convert_to_tensor_or_indexed_slices,
)
from tfcluster.ops import indexed_slices_ops as _conversion  # noqa: F401 - registers it
from tfcluster.ops.sparse_data_flow_ops import SparseConditionalAccumulator

__all__ = [
    "IndexedSlices",
    "SparseConditionalAccumulator",
    "convert_to_tensor_or_indexed_slices",
]
