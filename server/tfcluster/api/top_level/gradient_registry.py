"""`tf.*` names of the gradient table: registering a gradient function for an op type."""

from tfcluster.gradients.registry import NotDifferentiable, RegisterGradient, no_gradient

# TF 1.15's tf.NoGradient is another name of tf.no_gradient (ops.NotDifferentiable).
NoGradient = no_gradient

__all__ = ["NoGradient", "NotDifferentiable", "RegisterGradient", "no_gradient"]
