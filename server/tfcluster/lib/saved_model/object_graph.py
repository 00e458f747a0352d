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


LIST_WRAPPER = "trackable_list_wrapper"
DICT_WRAPPER = "trackable_dict_wrapper"


def _tracked(value: Any) -> bool:
    """Whether an attribute value is tracked: a trackable, or a list, tuple or dict holding
    one (TF wraps those in a ListWrapper / _DictWrapper node)."""
    if is_trackable(value):
        return True
    if isinstance(value, (list, tuple)):
        return any(_tracked(v) for v in value)
    if isinstance(value, dict):
        return any(_tracked(v) for v in value.values())
    return False


def children(obj: Any) -> list[tuple[str, Any]]:
    """(local name, child) of what obj tracks, in TF's order."""
    layer: Any
    if isinstance(obj, Variable):
        return []
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if _tracked(v)]
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items() if _tracked(v)]
    if isinstance(obj, Checkpoint):
        return list(obj._deps.items())
    if isinstance(obj, _keras_layer_class()):
        layer = obj
        lists = [
            ("variables", list(layer.weights)),
            ("trainable_variables", list(layer.trainable_weights)),
        ]
        if hasattr(layer, "_layers") and getattr(layer, "_is_graph_network", True):
            weighted = [sub for sub in layer.layers if sub.weights]
            own = [(f"layer_with_weights-{i}", sub) for i, sub in enumerate(weighted)]
        elif hasattr(layer, "_layers"):
            # A subclassed model tracks its public attributes (its layers by their names).
            own = [
                (name, value)
                for name, value in vars(layer).items()
                if not name.startswith("_") and _tracked(value)
            ]
        else:
            own = [(str(w.op.name.rsplit("/", 1)[-1]), w) for w in layer.weights]
        return own + lists
    ignored: frozenset[str] = getattr(obj, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
    return [
        (name, value)
        for name, value in vars(obj).items()
        if name not in ignored and _tracked(value)
    ]


def identifier(obj: Any) -> str:
    """The user object identifier TF writes for a node that is not a variable."""
    if isinstance(obj, (list, tuple)):
        return LIST_WRAPPER
    if isinstance(obj, dict):
        return DICT_WRAPPER
    return "_generic_user_object"


def functions(obj: Any) -> list[tuple[str, Function, Any]]:
    """(attribute name, the tf.function as obj sees it, its unbound form or None) of each
    tf.function attribute of obj (a method's unbound form gives its argument spec)."""
    if isinstance(obj, (Variable, list, tuple, dict, _keras_layer_class())):
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
