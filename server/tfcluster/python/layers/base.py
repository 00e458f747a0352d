"""tensorflow.python.layers.base (`base.Layer` subclassed, `base.InputSpec`): tf.layers'
Layer and InputSpec, the very classes, and the Keras-style scope switches."""

from __future__ import annotations

from tfcluster.lib.layers.base import (
    InputSpec,
    Layer,
    _add_to_collection,
    keras_style_scope,
    set_keras_style,
)
from tfcluster.python._private_module import module_getattr

_add_elements_to_collection = _add_to_collection

__getattr__ = module_getattr("python.layers.base")

__all__ = ["InputSpec", "Layer", "keras_style_scope", "set_keras_style"]
