"""tensorflow.python.ops.gradients (`from tensorflow.python.ops import gradients`, then
`gradients.gradients(ys, xs)`): tf.gradients, tf.hessians and their options, the very
objects."""

from __future__ import annotations

from tfcluster.gradients.custom_gradient import custom_gradient
from tfcluster.gradients.gradient_options import AggregationMethod, UnconnectedGradients
from tfcluster.gradients.gradients_impl import gradients
from tfcluster.gradients.hessians import hessians
from tfcluster.lib.tape.gradient_tape import GradientTape
from tfcluster.python._private_module import module_getattr

__all__ = [
    "AggregationMethod",
    "GradientTape",
    "UnconnectedGradients",
    "custom_gradient",
    "gradients",
    "hessians",
]

__getattr__ = module_getattr("python.ops.gradients")
