"""Keras's layer wrappers (TF 1.15): Wrapper, TimeDistributed (a layer applied to every time
step by folding time into the batch) and Bidirectional (an RNN run forwards and backwards,
outputs merged). The wrapped layer's weights are made in the wrapper's name scope
(`time_distributed/kernel`, `bidirectional/forward_lstm/kernel`)."""

from __future__ import annotations

import inspect
from typing import Any

from tfcluster.framework.graph import name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.keras import backend_math
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.lib.layers.base import InputSpec
from tfcluster.ops import array_ops


class Wrapper(Layer):
    # TF 1.15's wrappers hand `training` on as given (None included): the wrapped layer asks
    # for the learning phase itself, if it needs it.
    _fills_training = False

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        if not hasattr(layer, "_inbound_nodes"):
            raise ValueError(
                f"Please initialize `Wrapper` layer with a `Layer` instance. You passed: {layer}"
            )
        self.layer = layer
        super().__init__(**kwargs)

    def build(self, input_shape: Any = None) -> None:
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True
        self.built = True

    @property
    def trainable_weights(self) -> list[Any]:
        return list(self.layer.trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list[Any]:
        if not self.trainable:
            return list(self.layer.weights)
        return list(self.layer.non_trainable_weights)

    @property
    def weights(self) -> list[Any]:
        return self.trainable_weights + self.non_trainable_weights

    @property
    def updates(self) -> list[Any]:
        return list(self.layer.updates)

    @property
    def losses(self) -> list[Any]:
        return list(self.layer.losses)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "layer": {"class_name": type(self.layer).__name__, "config": self.layer.get_config()},
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        from tfcluster.lib.keras.layers.serialization import deserialize

        config = dict(config)
        layer = deserialize(config.pop("layer"), custom_objects=custom_objects)
        return cls(layer, **config)


def _shape_with(init: tuple[Any, ...], tensor: Any, start: int, dims: Any = None) -> Any:
    """init + the tensor's dims from `start` (static where known, else read at run time)."""
    if dims is None:
        dims = tensor.shape.as_list()[start:]
    if all(d for d in dims):
        return [*init, *dims]
    shape = array_ops.shape(tensor)
    parts = [*init, *[d if d else shape[start + i] for i, d in enumerate(dims)]]
    return array_ops.stack(parts)


class TimeDistributed(Wrapper):
    def __init__(self, layer: Any, **kwargs: Any) -> None:
        if not hasattr(layer, "_inbound_nodes"):
            raise ValueError(
                "Please initialize `TimeDistributed` layer with a `Layer` instance. You "
                f"passed: {layer}"
            )
        super().__init__(layer, **kwargs)
        self.supports_masking = True
        # id(outer inputs) -> their [batch * time, ...] reshape (compute_mask reads it).
        self._input_map: dict[int, Any] = {}

    def build(self, input_shape: Any) -> None:  # type: ignore[override]  # TF 1.15's signature
        dims = TensorShape(input_shape).as_list()
        if len(dims) < 3:
            raise ValueError(
                "`TimeDistributed` Layer should be passed an `input_shape ` with at least 3 "
                f"dimensions, received: {dims}"
            )
        self.input_spec = InputSpec(shape=[None, None, *dims[2:]])
        super().build(TensorShape([dims[0], *dims[2:]]))
        self.built = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        kwargs: dict[str, Any] = {}
        params = inspect.signature(self.layer.call).parameters
        if "training" in params:
            kwargs["training"] = training
        dims = inputs.shape.as_list()
        length = dims[1] if dims[1] else array_ops.shape(inputs)[1]
        inner = array_ops.reshape(inputs, _shape_with((-1,), inputs, 2))
        self._input_map[id(inputs)] = inner
        if mask is not None and "mask" in params:
            kwargs["mask"] = array_ops.reshape(mask, _shape_with((-1,), mask, 2))
        y = self.layer(inner, **kwargs)
        out = array_ops.reshape(y, _shape_with((-1, length), y, 1))
        if dims[1]:
            out.set_shape([dims[0], dims[1], *y.shape.as_list()[1:]])
        return out

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """As TF 1.15's: the inner layer's mask of the [batch * time, ...] inputs, reshaped
        back to [batch, time]; the input mask reduced to it where the inner layer gives
        none (a static batch size keeps the input mask as it is)."""
        dims = inputs.shape.as_list()
        if dims[0]:
            return mask
        inner_mask = mask
        if inner_mask is not None:
            inner_mask = array_ops.reshape(inner_mask, _shape_with((-1,), mask, 2))
        inner_inputs = self._input_map.get(id(inputs), inputs)
        output_mask = self.layer.compute_mask(inner_inputs, inner_mask)
        if output_mask is None:
            if mask is None:
                return None
            output_mask = mask
            for _ in range(2, mask.shape.ndims):
                output_mask = backend_math.any(output_mask, axis=-1)
            return output_mask
        length = dims[1] if dims[1] else array_ops.shape(inputs)[1]
        if output_mask.shape.ndims is not None:
            known = output_mask.shape.as_list()
        elif mask is not None:
            known = mask.shape.as_list()
        else:
            known = self.compute_output_shape(inputs.shape).as_list()[:-1]
        return array_ops.reshape(output_mask, _shape_with((-1, length), output_mask, 1, known[1:]))


class Bidirectional(Wrapper):
    def __init__(
        self,
        layer: Any,
        merge_mode: str | None = "concat",
        weights: Any = None,
        backward_layer: Any = None,
        **kwargs: Any,
    ) -> None:
        if not hasattr(layer, "_inbound_nodes"):
            raise ValueError(
                "Please initialize `Bidirectional` layer with a `Layer` instance. You passed: "
                f"{layer}"
            )
        if backward_layer is not None and not hasattr(backward_layer, "_inbound_nodes"):
            raise ValueError(
                "`backward_layer` need to be a `tf.keras.layers.Layer` instance. You passed: "
                f"{backward_layer}"
            )
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError(
                "Invalid merge mode. Merge mode should be one of {'sum', 'mul', 'ave', "
                "'concat', None}"
            )
        self.forward_layer = _recreate(layer, go_backwards=False)
        if backward_layer is None:
            self.backward_layer = _recreate(layer, go_backwards=True)
        else:
            self.backward_layer = backward_layer
            self._backward_layer_config = {
                "class_name": type(backward_layer).__name__,
                "config": backward_layer.get_config(),
            }
        self.forward_layer._name = "forward_" + self.forward_layer.name
        self.backward_layer._name = "backward_" + self.backward_layer.name
        # As TF 1.15: layers returning sequences output zeros at masked steps.
        for direction in (self.forward_layer, self.backward_layer):
            if getattr(direction, "zero_output_for_mask", None) is not None:
                direction.zero_output_for_mask = direction.return_sequences
        self.merge_mode = merge_mode
        if weights:
            half = len(weights) // 2
            self.forward_layer._keras_initial_weights = weights[:half]
            self.backward_layer._keras_initial_weights = weights[half:]
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        super().__init__(layer, **kwargs)

    @property
    def trainable_weights(self) -> list[Any]:
        if not self.trainable:
            return []
        return list(self.forward_layer.trainable_weights) + list(
            self.backward_layer.trainable_weights
        )

    @property
    def non_trainable_weights(self) -> list[Any]:
        if not self.trainable:
            return list(self.forward_layer.weights) + list(self.backward_layer.weights)
        return list(self.forward_layer.non_trainable_weights) + list(
            self.backward_layer.non_trainable_weights
        )

    @property
    def updates(self) -> list[Any]:
        return list(self.forward_layer.updates) + list(self.backward_layer.updates)

    @property
    def losses(self) -> list[Any]:
        return list(self.forward_layer.losses) + list(self.backward_layer.losses)

    def build(self, input_shape: Any) -> None:  # type: ignore[override]  # TF 1.15's signature
        for sub in (self.forward_layer, self.backward_layer):
            with name_scope(sub.name):
                sub.build(input_shape)
                sub.built = True
        self.built = True

    def call(
        self,
        inputs: Any,
        training: Any = None,
        mask: Any = None,
        initial_state: Any = None,
        constants: Any = None,
    ) -> Any:
        kwargs: dict[str, Any] = {}
        if "training" in inspect.signature(self.layer.call).parameters:
            kwargs["training"] = training
        if mask is not None:
            kwargs["mask"] = mask
        if constants is not None:
            kwargs["constants"] = constants  # both directions see the same constants
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(inputs, initial_state=forward_state, **kwargs)
        y_rev = self.backward_layer(inputs, initial_state=backward_state, **kwargs)
        states: list[Any] = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = array_ops.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output: Any = array_ops.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = [y, y_rev]
        if self.return_state:
            if self.merge_mode is None:
                return output + states
            return [output, *states]
        return output

    def compute_mask(self, inputs: Any, mask: Any) -> Any:  # type: ignore[override]  # TF 1.15's signature
        if isinstance(mask, list):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        if self.merge_mode is None and output_mask is not None:
            output_mask = [output_mask, output_mask]
        return output_mask

    def reset_states(self) -> None:
        self.forward_layer.reset_states()
        self.backward_layer.reset_states()

    def get_config(self) -> dict[str, Any]:
        config = {**super().get_config(), "merge_mode": self.merge_mode}
        if hasattr(self, "_backward_layer_config"):
            config["backward_layer"] = self._backward_layer_config
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        from tfcluster.lib.keras.layers.serialization import deserialize

        config = dict(config)
        layer = deserialize(config.pop("layer"), custom_objects=custom_objects)
        backward = config.pop("backward_layer", None)
        if backward is not None:
            backward = deserialize(backward, custom_objects=custom_objects)
        return cls(layer, backward_layer=backward, **config)


def _recreate(layer: Any, go_backwards: bool) -> Any:
    config = layer.get_config()
    if go_backwards:
        config["go_backwards"] = not config["go_backwards"]
    return type(layer).from_config(config)
