"""`tf.*` names around tf.gradients: custom gradients, Hessians, the aggregation and
unconnected-gradient options (identity_n is an array extra)."""

from tfcluster.gradients.custom_gradient import custom_gradient, grad_pass_through, recompute_grad
from tfcluster.gradients.gradient_options import AggregationMethod, UnconnectedGradients
from tfcluster.gradients.hessians import hessians

__all__ = [
    "AggregationMethod",
    "UnconnectedGradients",
    "custom_gradient",
    "grad_pass_through",
    "hessians",
    "recompute_grad",
]
