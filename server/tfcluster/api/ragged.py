"""tf.ragged"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.framework.ragged_tensor_value import RaggedTensorValue
from tfcluster.lib.ragged.array import boolean_mask, stack, stack_dynamic_partitions
from tfcluster.lib.ragged.factory import constant, constant_value, placeholder
from tfcluster.lib.ragged.functional import map_flat_values
from tfcluster.ops.ragged_getitem import ragged_range as range
from tfcluster.ops.ragged_tensor import row_splits_to_segment_ids, segment_ids_to_row_splits

__getattr__ = _unimplemented.module_getattr("ragged")
