"""`tf.GradientTape`: the tape in graph mode (gradients as symbolic tensors)."""

from tfcluster.gradients.tape import GradientTape

__all__ = ["GradientTape"]
