"""tf.keras.experimental.WideDeepModel (TF 1.15): the mean of a linear model's and a DNN's
outputs, each trained by its own optimizer (`compile(optimizer=[linear_opt, dnn_opt])`; one
optimizer given steps both, as in TF)."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras import activations, optimizers
from tfcluster.lib.keras.engine.training import Model
from tfcluster.lib.keras.layers import serialization


class WideDeepModel(Model):
    def __init__(
        self, linear_model: Any, dnn_model: Any, activation: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.linear_model = linear_model
        self.dnn_model = dnn_model
        self.activation = activations.get(activation)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # TF: inputs only
        if not isinstance(inputs, (tuple, list)) or len(inputs) != 2:
            linear_inputs = dnn_inputs = inputs
        else:
            linear_inputs, dnn_inputs = inputs
        output = 0.5 * (self.linear_model(linear_inputs) + self.dnn_model(dnn_inputs))
        if self.activation is not None:
            return self.activation(output)
        return output

    def compile(self, optimizer: Any = "rmsprop", *args: Any, **kwargs: Any) -> None:
        if isinstance(optimizer, (list, tuple)):
            chosen = [optimizers.get(o) for o in optimizer]
            super().compile(chosen[0], *args, **kwargs)
            self.optimizer = chosen
        else:
            super().compile(optimizer, *args, **kwargs)

    def _get_optimizers(self) -> tuple[Any, Any]:
        if isinstance(self.optimizer, (tuple, list)):
            return self.optimizer[0], self.optimizer[1]
        return self.optimizer, self.optimizer

    def _optimizer_updates(self) -> list[Any]:
        updates: list[Any] = []
        # Each optimizer names its own scope (training/SGD/, training/Adam/).
        for part, optimizer in zip((self.linear_model, self.dnn_model), self._get_optimizers()):
            updates += optimizer.get_updates(loss=self.total_loss, params=part.trainable_weights)
        return updates

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": self.dtype,
            "linear_model": serialization.serialize(self.linear_model),
            "dnn_model": serialization.serialize(self.dnn_model),
            "activation": activations.serialize(self.activation),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> WideDeepModel:
        config = dict(config)
        linear_model = serialization.deserialize(config.pop("linear_model"), custom_objects)
        dnn_model = serialization.deserialize(config.pop("dnn_model"), custom_objects)
        activation = activations.deserialize(
            config.pop("activation", None) or "linear", custom_objects=custom_objects
        )
        return cls(linear_model=linear_model, dnn_model=dnn_model, activation=activation, **config)
