"""tf.keras.layers.serialize / deserialize: a layer as `{"class_name", "config"}` and back,
found among every tf.keras layer class (and Model/Sequential), the user's custom objects
included."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras.utils import object_registry

LAYER_MODULES = (
    "tfcluster.lib.keras.engine.base_layer",
    "tfcluster.lib.keras.engine.tf_op_layer",
    "tfcluster.lib.keras.engine.input_layer",
    "tfcluster.lib.keras.engine.network",
    "tfcluster.lib.keras.engine.training",
    "tfcluster.lib.keras.engine.sequential",
    "tfcluster.lib.keras.layers.core",
    "tfcluster.lib.keras.layers.from_tf_layers",
    "tfcluster.lib.keras.layers.merge",
    "tfcluster.lib.keras.layers.recurrent",
    "tfcluster.lib.keras.layers.embeddings",
    "tfcluster.lib.keras.layers.global_pooling",
    "tfcluster.lib.keras.layers.convolutional_extra",
    "tfcluster.lib.keras.layers.advanced_activations",
    "tfcluster.lib.keras.layers.noise",
    "tfcluster.lib.keras.layers.normalization_extra",
    "tfcluster.lib.keras.layers.dense_attention",
    "tfcluster.lib.keras.layers.wrappers",
    "tfcluster.lib.keras.layers.local",
    "tfcluster.lib.keras.layers.convolutional_recurrent",
    "tfcluster.lib.keras.layers.feature_layers",
    "tfcluster.lib.keras.premade.linear",
    "tfcluster.lib.keras.premade.wide_deep",
)


def _layer_classes() -> dict[str, Any]:
    """Every public layer class of the modules above, by its Keras class name (imported when
    first needed: the layer modules import this one for RNN cells and wrappers)."""
    import importlib

    from tfcluster.lib.layers.base import Layer

    found: dict[str, Any] = {}
    for module_name in LAYER_MODULES:
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            if not name.startswith("_") and isinstance(value, type) and issubclass(value, Layer):
                found.setdefault(value.__name__, value)
    return found


def serialize(layer: Any) -> dict[str, Any]:
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    return object_registry.deserialize_keras_object(
        config,
        module_objects=_layer_classes(),
        custom_objects=custom_objects,
        printable_module_name="layer",
    )
