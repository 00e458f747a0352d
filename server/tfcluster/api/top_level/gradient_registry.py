"""`tf.*` names of the gradient table: registering a gradient function for an op type."""

from tfcluster.gradients.registry import NotDifferentiable, RegisterGradient, no_gradient

__all__ = ["NotDifferentiable", "RegisterGradient", "no_gradient"]
