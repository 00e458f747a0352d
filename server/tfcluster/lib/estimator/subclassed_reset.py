"""A subclassed Keras model in an Estimator, as TF 1.15's model_to_estimator takes it
(models.in_place_subclassed_model_reset): in each model_fn the model's layers, held in its
attributes, are replaced by fresh ones made from their configs, the model is called on the
input_fn's features in the estimator's graph, and once the EstimatorSpec is made the model
gets its own state back (its layers and weights, built or not). TF refuses, as here, nested
subclassed models and attributes holding lists of layers."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from tfcluster.lib.keras.engine.network import Network
from tfcluster.lib.layers.base import Layer

# Attributes a Keras model keeps its own lists of layers and metrics in (not a user's).
_OWN_LISTS = ("_layers", "layers", "metrics", "_compile_metrics")
# What building and compiling leave behind: rebuilt from scratch in the estimator's graph.
_BUILT_STATE = ("total_loss", "_train_fn", "_test_fn", "_predict_fn")


def is_subclassed(model: Any) -> bool:
    return not model._is_graph_network and type(model).__name__ != "Sequential"


@contextlib.contextmanager
def restored_after(model: Any) -> Iterator[None]:
    """Puts a subclassed model's own state back after the block (nothing for others)."""
    if not is_subclassed(model):
        yield
        return
    saved = dict(model.__dict__)
    saved_layers = list(model._layers)
    try:
        yield
    finally:
        built = model.built
        model.__dict__.clear()
        model.__dict__.update(saved)
        object.__setattr__(model, "_layers", saved_layers)
        # TF 1.15 puts back the layers (and a built model's build state) only: a model
        # first built in the estimator's graph stays marked built.
        model.built = built


def _check_attributes(model: Any) -> dict[int, str]:
    """The attribute name of each layer the model holds (by the layer's id), checked in
    TF's order (attribute names sorted, as dir() gives them)."""
    names: dict[int, str] = {}
    for name in sorted(model.__dict__):
        value = model.__dict__[name]
        if isinstance(value, Layer):
            names[id(value)] = name
            if getattr(value, "layers", None):
                raise ValueError(
                    "We do not support the use of nested layers in `model_to_estimator` at "
                    f"this time. Found nested layer: {value}"
                )
        elif (
            isinstance(value, (list, tuple))
            and name not in _OWN_LISTS
            and value
            and all(isinstance(v, Layer) for v in value)
        ):
            raise ValueError(
                "We do not support the use of list-of-layers attributes in subclassed "
                f"models used with `model_to_estimator` at this time. Found list model: {name}"
            )
    return names


def built_on(model: Any, inputs: list[Any] | None) -> Any:
    """The model with fresh layers, called on `inputs` in the current graph (see module)."""
    names = _check_attributes(model)
    fresh_layers = []
    for layer in list(model._layers):
        if isinstance(layer, Network) and not layer._is_graph_network:
            raise ValueError(
                "We do not support the use of nested subclassed models in `model_to_estimator` "
                f"at this time. Found nested model: {layer}"
            )
        fresh = type(layer).from_config(layer.get_config())
        if id(layer) in names:
            object.__setattr__(model, names[id(layer)], fresh)
        fresh_layers.append(fresh)
    object.__setattr__(model, "_layers", fresh_layers)
    for name in _BUILT_STATE:
        model.__dict__.pop(name, None)
    model.built = False
    if not inputs:
        raise ValueError("model_to_estimator of a subclassed model needs features to call it on")
    model._build_on(list(inputs), [f"input_{i + 1}" for i in range(len(inputs))])
    return model
