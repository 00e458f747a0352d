"""Layer.add_metric and Model.add_metric (TF 1.15's Keras, graph mode): a symbolic value
averaged by a `Mean` metric named after it (aggregation='mean'), or the result of calling a
Metric object (aggregation=None). Inside a layer's or model's call the metric is the layer's
own; on a functional model outside any call, TF puts the value's ops in TensorFlowOpLayers
and an AddMetric layer after them, which holds the metric. Compile reports them after its
own metrics (the layers', in order, then the model's), fit and evaluate run and reset them.
TF's ValueErrors for a missing name, another aggregation, an aggregated tensor no Metric
made, a non-tensor value, and a Metric's result given to a functional model."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Tensor
from tfcluster.lib.keras.engine import tf_op_layer
from tfcluster.lib.keras.engine.base_layer import Layer


def metrics_of(layer: Any) -> list[Any]:
    return layer.__dict__.setdefault("_metrics", [])


def tensors_of(layer: Any) -> dict[str, Any]:
    return layer.__dict__.setdefault("_metrics_tensors", {})


def add_metric(layer: Any, value: Any, aggregation: str | None, name: str | None) -> None:
    if aggregation is not None and aggregation != "mean":
        raise ValueError(
            "We currently support only `mean` sample-wise metric aggregation. You provided "
            f"aggregation=`{aggregation}`"
        )
    from_metric = hasattr(value, "_metric_obj")
    symbolic = isinstance(value, Tensor)
    if name is None and not from_metric:
        raise ValueError(
            "Please provide a name for your metric like `self.add_metric(tf.reduce_sum(inputs), "
            "name='mean_activation', aggregation='mean')`"
        )
    if from_metric:
        name = value._metric_obj.name
    if tf_op_layer.in_a_call() and symbolic:
        symbolic_add_metric(layer, value, aggregation, name)
        return
    if not symbolic:
        raise ValueError(f"Expected a symbolic Tensor for the metric value, received: {value}")
    if not getattr(layer, "_is_graph_network", False):
        symbolic_add_metric(layer, value, aggregation, name)
        return
    if from_metric:
        raise ValueError(
            "Using the result of calling a `Metric` object when calling `add_metric` on a "
            "Functional Model is not supported. Please pass the Tensor to monitor directly."
        )
    _graph_network_add_metric(layer, value, aggregation, name)


def symbolic_add_metric(layer: Any, value: Any, aggregation: str | None, name: Any) -> None:
    from tfcluster.lib.keras import metrics

    own = metrics_of(layer)
    match = next((m for m in own if m.name == name), None)
    if aggregation is None:
        if match is not None:
            metric, result = match, value
        elif hasattr(value, "_metric_obj"):
            metric, result = value._metric_obj, value
            own.append(metric)
        else:
            raise ValueError(
                "We do not support adding an aggregated metric result tensor that is not the "
                "output of a `tf.keras.metrics.Metric` metric instance. Without having access "
                "to the metric instance we cannot reset the state of a metric after every epoch "
                "during training. You can create a `tf.keras.metrics.Metric` instance and pass "
                "the result here or pass an un-aggregated result with `aggregation` parameter "
                "set as `mean`. For example: `self.add_metric(tf.reduce_sum(inputs), "
                "name='mean_activation', aggregation='mean')`"
            )
    elif match is not None:
        metric, result = match, match(value)
    else:
        metric = metrics.Mean(name=name)
        result = metric(value)
        own.append(metric)
    tensors_of(layer)[metric.name] = result


class AddMetric(Layer):
    """Adds its input as a metric and returns it (a functional model's add_metric)."""

    def __init__(self, aggregation: str | None = None, metric_name: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.aggregation = aggregation
        self.metric_name = metric_name

    def call(self, inputs: Any) -> Any:
        self.add_metric(inputs, self.aggregation, self.metric_name)
        return inputs

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"aggregation": self.aggregation, "metric_name": self.metric_name})
        return config


def _graph_network_add_metric(network: Any, value: Tensor, aggregation: Any, name: Any) -> None:
    from tfcluster.lib.keras.engine.network import layers_in_tf_order

    tf_op_layer.create_keras_history(value)
    layer = AddMetric(aggregation, name)
    layer(value)
    new_layers = layers_in_tf_order(network.inputs, [value])
    tf_op_layer.insert_layers(network, [*new_layers, layer])


def model_metrics(model: Any) -> list[Any]:
    """TF 1.15's Model.metrics: compile's metric objects, the model's own, its layers'."""
    out = list(getattr(model, "_compile_metric_objects", []))
    out.extend(metrics_of(model))
    for layer in model._layers:
        out.extend(layer.metrics)
    return out


def added_metrics(model: Any) -> list[tuple[str, Any, Any]]:
    """(name, metric, result tensor) of every add_metric the model reports: its layers'
    (each layer's own, in order), then its own."""
    out = []
    for layer in [*model._layers, model]:
        tensors = tensors_of(layer)
        for metric in metrics_of(layer):
            if metric.name in tensors:
                out.append((metric.name, metric, tensors[metric.name]))
    return out
