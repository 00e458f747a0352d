"""`tf.*` names of ragged tensors (tf.RaggedTensor, tf.RaggedTensorSpec); importing the
ragged library registers what tf.add, tf.reduce_sum, tf.concat ... do given one."""

import tfcluster.lib.ragged  # noqa: F401
from tfcluster.ops.ragged_tensor import RaggedTensor, RaggedTensorSpec

__all__ = ["RaggedTensor", "RaggedTensorSpec"]
