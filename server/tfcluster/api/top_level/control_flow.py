"""`tf.*` names of loops over tensors (TensorArray and the higher-order functions built on
it) and tf.switch_case."""

from tfcluster.ops.functional_ops import foldl, foldr, map_fn, scan
from tfcluster.ops.switch_case_ops import switch_case
from tfcluster.ops.tensor_array_ops import TensorArray

__all__ = ["TensorArray", "foldl", "foldr", "map_fn", "scan", "switch_case"]
