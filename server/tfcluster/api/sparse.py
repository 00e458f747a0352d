"""tf.sparse"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.ops.array_extras import sparse_mask as mask
from tfcluster.ops.feature_ops import sparse_cross as cross
from tfcluster.ops.feature_ops import sparse_cross_hashed as cross_hashed
from tfcluster.ops.segment_ops import sparse_segment_mean as segment_mean
from tfcluster.ops.segment_ops import sparse_segment_sqrt_n as segment_sqrt_n
from tfcluster.ops.segment_ops import sparse_segment_sum as segment_sum
from tfcluster.ops.sparse_data_flow_ops import SparseConditionalAccumulator
from tfcluster.ops.sparse_ops import from_dense
from tfcluster.ops.sparse_ops import sparse_add as add
from tfcluster.ops.sparse_ops import sparse_concat as concat
from tfcluster.ops.sparse_ops import sparse_expand_dims as expand_dims
from tfcluster.ops.sparse_ops import sparse_eye as eye
from tfcluster.ops.sparse_ops import sparse_fill_empty_rows as fill_empty_rows
from tfcluster.ops.sparse_ops import sparse_maximum as maximum
from tfcluster.ops.sparse_ops import sparse_merge as merge
from tfcluster.ops.sparse_ops import sparse_minimum as minimum
from tfcluster.ops.sparse_ops import sparse_placeholder as placeholder
from tfcluster.ops.sparse_ops import sparse_reduce_max as reduce_max
from tfcluster.ops.sparse_ops import sparse_reduce_max_sparse as reduce_max_sparse
from tfcluster.ops.sparse_ops import sparse_reduce_sum as reduce_sum
from tfcluster.ops.sparse_ops import sparse_reduce_sum_sparse as reduce_sum_sparse
from tfcluster.ops.sparse_ops import sparse_reorder as reorder
from tfcluster.ops.sparse_ops import sparse_reset_shape as reset_shape
from tfcluster.ops.sparse_ops import sparse_reshape as reshape
from tfcluster.ops.sparse_ops import sparse_retain as retain
from tfcluster.ops.sparse_ops import sparse_slice as slice
from tfcluster.ops.sparse_ops import sparse_softmax as softmax
from tfcluster.ops.sparse_ops import sparse_split as split
from tfcluster.ops.sparse_ops import sparse_tensor_dense_matmul as matmul
from tfcluster.ops.sparse_ops import sparse_tensor_dense_matmul as sparse_dense_matmul
from tfcluster.ops.sparse_ops import sparse_tensor_to_dense as to_dense
from tfcluster.ops.sparse_ops import sparse_to_indicator as to_indicator
from tfcluster.ops.sparse_ops import sparse_transpose as transpose

__getattr__ = _unimplemented.module_getattr("sparse")
