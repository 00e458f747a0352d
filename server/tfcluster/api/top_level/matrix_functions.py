"""Top-level matrix functions of TF 1.15 (tf.matrix_square_root)."""

from tfcluster.ops.matrix_function_ops import matrix_square_root

__all__ = ["matrix_square_root"]
