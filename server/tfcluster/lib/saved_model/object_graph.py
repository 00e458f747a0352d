"""The trackable objects tf.saved_model.save walks, as TF 1.15's object graph names them:
a tf.train.Checkpoint's attributes, a tf.Module's trackable attributes in assignment order,
a Keras model's weighted layers (`layer_with_weights-<i>`) and a layer's weights by attribute
name; and the tf.functions each object holds (TF lists them in `dir()` order)."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.function.def_function import Function
from tfcluster.lib.tf_module import Module
from tfcluster.ops.variables import Variable
from tfcluster.training import object_checkpoint
from tfcluster.training.object_checkpoint import Checkpoint
from tfcluster.training.optimizer import Optimizer as TrainOptimizer


def _keras_layer_class() -> type:
    from tfcluster.lib.keras.engine.base_layer import KerasLayerMixin

    return KerasLayerMixin


def is_keras_model(obj: Any) -> bool:
    return isinstance(obj, _keras_layer_class()) and hasattr(obj, "_layers")


def _keras_optimizer_class() -> type:
    from tfcluster.lib.keras.optimizer_v2 import Optimizer as KerasOptimizer

    return KerasOptimizer


def is_optimizer(obj: Any) -> bool:
    return isinstance(obj, (TrainOptimizer, _keras_optimizer_class()))


def is_trackable(obj: Any) -> bool:
    return isinstance(obj, (Variable, Checkpoint, Module, _keras_layer_class())) or is_optimizer(
        obj
    )


def slots(optimizer: Any, variable: Any) -> list[tuple[str, Any]]:
    """(slot name, slot variable) of an optimizer's slots for a variable, in TF's order."""
    if isinstance(optimizer, TrainOptimizer):
        found = [(n, optimizer.get_slot(variable, n)) for n in optimizer.get_slot_names()]
        return [(n, v) for n, v in found if v is not None]
    from tfcluster.lib.keras.optimizer_v2 import _var_key

    return list(optimizer._slots.get(_var_key(variable), {}).items())


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
    if isinstance(obj, TrainOptimizer):
        return object_checkpoint._dependencies(obj)
    if isinstance(obj, _keras_optimizer_class()):
        # Its step counter, then its hyperparameter variables by name (Keras's checkpoint).
        opt: Any = obj
        own = [] if opt._iterations is None else [("iter", opt._iterations)]
        return own + [(n, v) for n, v in sorted(opt._hyper.items()) if isinstance(v, Variable)]
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
        optimizer = getattr(layer, "optimizer", None)
        if optimizer is not None and is_optimizer(optimizer) and _optimizer_built(optimizer):
            lists.append(("optimizer", optimizer))
        return own + lists
    ignored: frozenset[str] = getattr(obj, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
    return [
        (name, value)
        for name, value in vars(obj).items()
        if name not in ignored and _tracked(value)
    ]


def _optimizer_built(optimizer: Any) -> bool:
    """A Keras optimizer once it made its variables (TF's model then checkpoints it)."""
    return bool(getattr(optimizer, "_hypers_created", True) and optimizer.variables())


def identifier(obj: Any) -> str:
    """The user object identifier TF writes for a node that is not a variable."""
    if isinstance(obj, (list, tuple)):
        return LIST_WRAPPER
    if isinstance(obj, dict):
        return DICT_WRAPPER
    if isinstance(obj, _keras_optimizer_class()):
        return "optimizer"  # TF revives it as an optimizer, which makes the slots
    return "_generic_user_object"


def functions(obj: Any) -> list[tuple[str, Function, Any]]:
    """(attribute name, the tf.function as obj sees it, its unbound form or None) of each
    tf.function attribute of obj (a method's unbound form gives its argument spec)."""
    if isinstance(obj, (Variable, list, tuple, dict, _keras_layer_class())) or is_optimizer(obj):
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
