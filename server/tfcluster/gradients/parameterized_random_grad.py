"""TF 1.15 registers ParameterizedTruncatedNormal as not differentiable."""

from tfcluster.gradients.registry import not_differentiable

not_differentiable("ParameterizedTruncatedNormal")
