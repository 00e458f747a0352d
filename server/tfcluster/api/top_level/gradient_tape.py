"""`tf.GradientTape`: the tape in graph mode (gradients as symbolic tensors)."""

from tfcluster.lib.tape.gradient_tape import GradientTape

__all__ = ["GradientTape"]
