"""`tf.*` names of loops over tensors: TensorArray and the higher-order functions built on it."""

from tfcluster.ops.tensor_array_ops import TensorArray

__all__ = ["TensorArray"]
