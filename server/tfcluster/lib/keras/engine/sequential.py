"""tf.keras.Sequential: a linear stack of layers; built as soon as the first layer knows its
input shape (its input placeholder is `<first layer>_input`), else on first use."""

from __future__ import annotations

import copy
import logging
from typing import Any

from tfcluster.lib.keras.engine import tf_op_layer
from tfcluster.lib.keras.engine.base_layer import flatten
from tfcluster.lib.keras.engine.input_layer import Input, InputLayer
from tfcluster.lib.keras.engine.training import Model


class Sequential(Model):
    def __init__(self, layers: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self._build_input_shape: Any = None
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self) -> list[Any]:
        return [x for x in self._layers if not isinstance(x, InputLayer)]

    def add(self, layer: Any) -> None:
        if not hasattr(layer, "_inbound_nodes"):
            raise TypeError(
                "The added layer must be an instance of class Layer. Found: " + str(layer)
            )
        self.built = False
        # TF 1.15 maps the graph again: an add_loss's layers (and the loss) are left out.
        self._layers[:] = [x for x in self._layers if not tf_op_layer.is_ancillary(x)]
        if isinstance(layer, InputLayer):
            self._layers.append(layer)
            self._set_graph(layer._inbound_nodes[0].output_tensors[0], [])
            return
        self._layers.append(layer)
        # The first layer after an InputLayer is called on the InputLayer's tensor (its own
        # input shape, if it has one, is then ignored, as in Keras).
        previous = self.outputs[0] if self.outputs else self._input_layer_tensor()
        if previous is not None:
            out = layer(previous)
            self._set_graph(self.inputs[0], flatten(out))
            return
        # A model added first takes its input shape from its deepest first layer (TF 1.15).
        first = layer
        if _is_model(layer):
            if not layer.layers:
                raise ValueError("Cannot add an empty model to a `Sequential` model.")
            first = layer.layers[0]
            while _is_model(first) and first.layers:
                first = first.layers[0]
        shape = getattr(first, "_batch_input_shape", None)
        if shape is not None and len(self.layers) == 1:
            x = Input(
                batch_shape=shape,
                dtype=first.dtype,
                name=layer.name + "_input",
            )
            # Kept first among the model's layers, as TF 1.15's graph network keeps it (not
            # in `layers`; a tf.Module walk finds it).
            self._layers.insert(0, x._keras_history[0])
            self._set_graph(x, [])
            out = layer(x)
            self._set_graph(x, flatten(out))

    def _input_layer_tensor(self) -> Any:
        first = self._layers[0]
        if isinstance(first, InputLayer) and self.inputs:
            return self.inputs[0]
        return None

    def _set_graph(self, inputs: Any, outputs: list[Any]) -> None:
        self.inputs = [inputs]
        if not outputs:
            self.outputs = []
            return
        self.outputs = outputs
        layers = list(self._layers)
        self._init_graph_network(self.inputs, self.outputs)
        self._layers[:] = layers

    def pop(self) -> None:
        if not self.layers:
            raise TypeError("There are no layers in the model.")
        self._layers.pop()
        self.outputs = [self.layers[-1].output] if self.layers and self.inputs else []

    def _build_from_arrays(self, x: list[Any]) -> None:
        inputs = Input(batch_shape=(None, *x[0].shape[1:]), dtype=_dtype(x[0]))
        self._set_input(inputs)

    def _set_input(self, inputs: Any) -> None:
        out = inputs
        for layer in self.layers:
            out = layer(out)
        layers = list(self._layers)
        self._init_graph_network([inputs], flatten(out))
        self._layers[:] = layers

    def _maybe_build(self, inputs: Any) -> None:
        """Called on tensors before it has inputs, TF 1.15's Sequential (whose build is the
        default one) builds nothing: call runs the layers on those tensors, without an input
        placeholder of its own or a second copy of the layers' ops."""
        if not self.built and not self.outputs and _are_tensors(inputs):
            shapes = [
                tuple(t.shape.as_list()) if t.shape.ndims is not None else None
                for t in flatten(inputs)
            ]
            self._build_input_shape = shapes[0] if len(shapes) == 1 else shapes
            self.built = True
            return
        super()._maybe_build(inputs)

    def build(self, input_shape: Any = None) -> None:
        if input_shape is not None and not self.outputs:
            self._build_input_shape = tuple(input_shape)
            self._set_input(Input(batch_shape=tuple(input_shape)))
        self.built = True

    def get_config(self) -> dict[str, Any]:
        layer_configs = [
            {"class_name": type(layer).__name__, "config": layer.get_config()}
            for layer in self.layers
        ]
        first = self._layers[0] if self._layers else None
        if (
            self._is_graph_network
            and layer_configs
            and "batch_input_shape" not in layer_configs[0]["config"]
            and isinstance(first, InputLayer)
        ):
            layer_configs[0]["config"]["batch_input_shape"] = first._batch_input_shape
        config: dict[str, Any] = {"name": self.name, "layers": copy.deepcopy(layer_configs)}
        if self._build_input_shape is not None:
            config["build_input_shape"] = self._build_input_shape
        return config

    @classmethod
    def from_config(cls, config: Any, custom_objects: Any = None) -> Sequential:
        from tfcluster.lib.keras.layers.serialization import deserialize

        if isinstance(config, dict) and "name" in config:
            name = config["name"]
            build_input_shape = config.get("build_input_shape")
            layer_configs = config["layers"]
        else:
            name, build_input_shape, layer_configs = None, None, config
        model = cls(name=name)
        for layer_config in layer_configs:
            model.add(deserialize(layer_config, custom_objects=custom_objects))
        if not model.inputs and build_input_shape:
            model.build(build_input_shape)
        return model

    def predict_proba(self, x: Any, batch_size: int = 32, verbose: int = 0) -> Any:
        preds = self.predict(x, batch_size=batch_size, verbose=verbose)
        if preds.min() < 0.0 or preds.max() > 1.0:
            logging.warning(
                "Network returning invalid probability values. The last layer might not "
                "normalize predictions into probabilities (like softmax or sigmoid would)."
            )
        return preds

    def predict_classes(self, x: Any, batch_size: int = 32, verbose: int = 0) -> Any:
        proba = self.predict(x, batch_size=batch_size, verbose=verbose)
        if proba.shape[-1] > 1:
            return proba.argmax(axis=-1)
        return (proba > 0.5).astype("int32")

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        out = inputs
        for layer in self.layers:
            out = layer(out)
        return out


def _dtype(a: Any) -> str:
    return "float32" if str(a.dtype) == "float64" else str(a.dtype)


def _are_tensors(inputs: Any) -> bool:
    from tfcluster.framework.graph import Tensor

    flat = flatten(inputs)
    return bool(flat) and all(isinstance(t, Tensor) for t in flat)


def _is_model(layer: Any) -> bool:
    return hasattr(layer, "_layers") and hasattr(layer, "layers")
