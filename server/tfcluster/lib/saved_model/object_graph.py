"""The trackable objects tf.saved_model.save walks, as TF 1.15's object graph names them:
a tf.train.Checkpoint's attributes, a tf.Module's trackable attributes in assignment order,
a Keras model's weighted layers (`layer_with_weights-<i>`) and a layer's weights by attribute
name; and the tf.functions each object holds (TF lists them in `dir()` order)."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.function.def_function import Function
from tfcluster.lib.tf_module import Module
from tfcluster.ops.variables import Variable
from tfcluster.training.object_checkpoint import Checkpoint


def _keras_layer_class() -> type:
    from tfcluster.lib.keras.engine.base_layer import KerasLayerMixin

    return KerasLayerMixin


def is_keras_model(obj: Any) -> bool:
    return isinstance(obj, _keras_layer_class()) and hasattr(obj, "_layers")


def is_trackable(obj: Any) -> bool:
    return isinstance(obj, (Variable, Checkpoint, Module, _keras_layer_class()))


def children(obj: Any) -> list[tuple[str, Any]]:
    """(local name, child) of what obj tracks, in TF's order."""
    layer: Any
    if isinstance(obj, Variable):
        return []
    if isinstance(obj, Checkpoint):
        return list(obj._deps.items())
    if isinstance(obj, _keras_layer_class()):
        layer = obj
        if hasattr(layer, "_layers"):
            weighted = [sub for sub in layer.layers if sub.weights]
            return [(f"layer_with_weights-{i}", sub) for i, sub in enumerate(weighted)]
        return [(str(w.op.name.rsplit("/", 1)[-1]), w) for w in layer.weights]
    ignored: frozenset[str] = getattr(obj, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
    return [
        (name, value)
        for name, value in vars(obj).items()
        if name not in ignored and is_trackable(value)
    ]


def functions(obj: Any) -> list[tuple[str, Function, Any]]:
    """(attribute name, the tf.function as obj sees it, its unbound form or None) of each
    tf.function attribute of obj (a method's unbound form gives its argument spec)."""
    if isinstance(obj, (Variable, _keras_layer_class())):
        return []
    out: list[tuple[str, Function, Any]] = []
    for name in sorted(set(dir(type(obj))) | set(vars(obj))):
        if name in vars(obj):
            value = vars(obj)[name]
            if isinstance(value, Function):
                out.append((name, value, None))
            continue
        unbound = getattr(type(obj), name, None)
        if isinstance(unbound, Function):
            out.append((name, getattr(obj, name), unbound))
    return out
