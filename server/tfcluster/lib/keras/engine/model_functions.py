"""A compiled Keras model's train_function, test_function and predict_function (TF 1.15's
K.functions that fit, evaluate and predict run, which programs also call directly after
`model._make_predict_function()` and the like): callables over the graph the model already
built, fed in TF's order: inputs, targets, fed sample weights, then the learning phase
(train_function only)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Tensor
from tfcluster.lib.keras import backend
from tfcluster.lib.keras.backend_function import GraphExecutionFunction


class ModelFunction(GraphExecutionFunction):
    """A K.function over tensors and an update op the model made already (no new ops)."""

    def __init__(self, inputs: list[Any], outputs: list[Any], updates_op: Any, name: str) -> None:
        self._outputs_structure = list(outputs)
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.updates_op = updates_op
        self.name = name
        self.feed_dict = None
        self.fetches = []
        self.run_options = None
        self.run_metadata = None
        self.fetch_callbacks = {}


def _cached(model: Any, kind: str, inputs: list[Any], outputs: list[Any], op: Any) -> Any:
    """The model's function of `kind`, made again when its update op changed (a recompile,
    or sample weights fed for the first time)."""
    key = f"_keras_{kind}"
    made = model.__dict__.get(key)
    if made is None or made.updates_op is not op or made.inputs != inputs:
        made = ModelFunction(inputs, outputs, op, kind)
        model.__dict__[key] = made
    return made


def _fed_weights(model: Any) -> list[Any]:
    return [w for w in getattr(model, "_sample_weights", []) if w is not None]


def train_function(model: Any) -> Any:
    if model._train_fn is None:
        return None
    inputs = [*model._feed_inputs(), *model._fed_targets, *_fed_weights(model)]
    phase = backend.learning_phase_if_made()
    if isinstance(phase, Tensor):
        inputs.append(phase)
    outputs = [model.total_loss, *model._metric_results]
    return _cached(model, "train_function", inputs, outputs, model._train_fn)


def test_function(model: Any) -> Any:
    if model._test_fn is None:
        return None
    inputs = [*model._feed_inputs(), *model._fed_targets, *_fed_weights(model)]
    outputs = [model.total_loss, *model._metric_results]
    return _cached(model, "test_function", inputs, outputs, model._test_fn)


def predict_function(model: Any) -> Any:
    op = getattr(model, "_predict_fn", None)
    if op is None:
        return None
    return _cached(model, "predict_function", model._feed_inputs(), list(model.outputs), op)
