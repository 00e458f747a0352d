"""`tf.*` names for sparse gradients: IndexedSlices (a gather's gradient) and the conversion
that keeps one as it is."""

from tfcluster.framework.indexed_slices import (
    IndexedSlices,
    convert_to_tensor_or_indexed_slices,
)
from tfcluster.ops import indexed_slices_ops as _conversion  # noqa: F401 - registers it

__all__ = ["IndexedSlices", "convert_to_tensor_or_indexed_slices"]
