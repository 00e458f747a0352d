"""Keras layers without variables that tf.layers lacks: Activation, Reshape, Permute,
RepeatVector, Lambda, and the activation layers (ReLU, LeakyReLU, Softmax)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.keras import activations
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.lib.keras.layers import lambda_functions
from tfcluster.ops import array_ops, math_ops, nn_ops


class Activation(Layer):
    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = activations.get(activation)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "activation": activations.serialize(self.activation)}

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class Reshape(Layer):
    """Reshapes every example to target_shape (one -1 allowed)."""

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "target_shape": self.target_shape}

    def _fix_unknown_dimension(self, input_shape: list[Any], output_shape: list[int]) -> list[int]:
        output_shape = list(output_shape)
        msg = "total size of new array must be unchanged"
        known, unknown = 1, None
        for index, dim in enumerate(output_shape):
            if dim < 0:
                if unknown is not None:
                    raise ValueError("Can only specify one unknown dimension.")
                unknown = index
            else:
                known *= dim
        original = int(np.prod(input_shape, dtype=int))
        if unknown is not None:
            if known == 0 or original % known != 0:
                raise ValueError(msg)
            output_shape[unknown] = original // known
        elif original != known:
            raise ValueError(msg)
        return output_shape

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        if None in dims[1:]:
            rest: list[Any] = [d if d != -1 else None for d in self.target_shape]
        else:
            rest = self._fix_unknown_dimension(dims[1:], list(self.target_shape))
        return TensorShape([dims[0], *rest])

    def call(self, inputs: Any) -> Any:
        return array_ops.reshape(inputs, (array_ops.shape(inputs)[0], *self.target_shape))


class Permute(Layer):
    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(
                "Invalid permutation `dims` for Permute Layer: "
                f"{dims}. The set of indices in `dims` must be consecutive and start from 1."
            )

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "dims": self.dims}

    def call(self, inputs: Any) -> Any:
        return array_ops.transpose(inputs, perm=(0, *self.dims))


class RepeatVector(Layer):
    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.n = n

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "n": self.n}

    def call(self, inputs: Any) -> Any:
        return array_ops.tile(array_ops.expand_dims(inputs, 1), [1, self.n, 1])


class Lambda(Layer):
    """Wraps a function of the inputs (and of `mask`/`training` if it takes them)."""

    def __init__(
        self,
        function: Callable[..., Any],
        output_shape: Any = None,
        mask: Any = None,
        arguments: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.function = function
        self.arguments = arguments or {}
        self.mask = mask
        self._output_shape = output_shape

    def get_config(self) -> dict[str, Any]:
        config = {**super().get_config()}
        for key, value, allow_raw in (
            ("function", self.function, False),
            ("output_shape", self._output_shape, True),
        ):
            config.update(lambda_functions.to_config(key, value, allow_raw))
        if self.mask is not None:
            config.update(lambda_functions.to_config("mask", self.mask, True))
        config["arguments"] = self.arguments
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Lambda:
        config = dict(config)
        globs = lambda_functions.globals_for(config.pop("module", None), custom_objects)
        function = lambda_functions.from_config(config, "function", globs, custom_objects)
        config["function"] = function
        for key in ("output_shape", "mask"):
            if key in config:
                config.pop(f"{key}_module", None)
                config[key] = lambda_functions.from_config(config, key, globs, custom_objects)
        config.pop("function_type", None)
        return cls(**config)

    def call(self, inputs: Any, mask: Any = None, training: Any = None) -> Any:
        import inspect

        params = inspect.signature(self.function).parameters
        kwargs = dict(self.arguments)
        if "mask" in params:
            kwargs["mask"] = mask
        if "training" in params:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)


class ReLU(Layer):
    def __init__(
        self, max_value: Any = None, negative_slope: float = 0, threshold: float = 0, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        # TF 1.15's attribute (its misspelling: supports_masking stays False).
        self.support_masking = True
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "max_value": self.max_value,
            "negative_slope": self.negative_slope,
            "threshold": self.threshold,
        }

    def call(self, inputs: Any) -> Any:
        return activations.relu(
            inputs, alpha=self.negative_slope, max_value=self.max_value, threshold=self.threshold
        )


class LeakyReLU(Layer):
    def __init__(self, alpha: float = 0.3, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = alpha

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "alpha": float(self.alpha)}

    def call(self, inputs: Any) -> Any:
        return nn_ops.leaky_relu(inputs, alpha=self.alpha)


class Softmax(Layer):
    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "axis": self.axis}

    def call(self, inputs: Any) -> Any:
        return activations.softmax(inputs, axis=self.axis)


class Masking(Layer):
    """Zeroes the time steps whose features all equal mask_value and marks them masked for
    the layers after it (RNNs skip them)."""

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.mask_value = mask_value

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return math_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs: Any) -> Any:
        keep = math_ops.reduce_any(
            math_ops.not_equal(inputs, self.mask_value), axis=-1, keepdims=True
        )
        outputs = inputs * math_ops.cast(keep, inputs.dtype)
        outputs._keras_mask = array_ops.squeeze(keep, axis=-1)  # type: ignore[attr-defined]
        return outputs

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "mask_value": self.mask_value}
