"""tensorflow.python.ops.gradients_impl: tf.gradients and tf.hessians, the very functions;
TF's other names raise UnimplementedError on use."""

from __future__ import annotations

from tfcluster.gradients.gradient_options import UnconnectedGradients
from tfcluster.gradients.gradients_impl import gradients
from tfcluster.gradients.hessians import hessians
from tfcluster.python._private_module import module_getattr

__all__ = ["UnconnectedGradients", "gradients", "hessians"]

__getattr__ = module_getattr("python.ops.gradients_impl")
