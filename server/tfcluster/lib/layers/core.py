"""tf.layers Dense, Dropout and Flatten (TF 1.15's layers/core.py on Keras's core layers):
classes and the functions that make one layer and apply it."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.layers import utils
from tfcluster.lib.layers.base import InputSpec, Layer, applied_as_tf
from tfcluster.ops import array_ops, init_ops, math_ops, nn_ops


class Dense(Layer):
    """outputs = activation(inputs @ kernel + bias)."""

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = None,
        bias_initializer: Any = init_ops.zeros_initializer(),
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        trainable: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if "input_shape" not in kwargs and "input_dim" in kwargs:
            kwargs["input_shape"] = (kwargs.pop("input_dim"),)
        super().__init__(
            trainable=trainable,
            name=name,
            activity_regularizer=utils.get_regularizer(activity_regularizer),
            **kwargs,
        )
        self.units = int(units)
        self.activation = utils.get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = utils.get_initializer(kernel_initializer)
        self.bias_initializer = utils.get_initializer(bias_initializer)
        self.kernel_regularizer = utils.get_regularizer(kernel_regularizer)
        self.bias_regularizer = utils.get_regularizer(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.supports_masking = True
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape: Any) -> None:
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        if not (dtype.is_floating or dtype.base_dtype == dtypes.complex64):
            raise TypeError(f"Unable to build `Dense` layer with non-floating point dtype {dtype}")
        input_shape = TensorShape(input_shape)
        last_dim = input_shape.as_list()[-1] if input_shape.ndims else None
        if last_dim is None:
            raise ValueError(
                "The last dimension of the inputs to `Dense` should be defined. Found `None`."
            )
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        self.kernel = self.add_weight(
            "kernel",
            shape=[last_dim, self.units],
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            dtype=self.dtype,
            trainable=True,
        )
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=[self.units],
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                dtype=self.dtype,
                trainable=True,
            )
        else:
            self.bias = None
        self.built = True

    def call(self, inputs: Any) -> Any:
        rank = inputs.shape.ndims
        if rank > 2:
            outputs = _tensordot_last_axis(inputs, self.kernel)
            outputs.set_shape([*inputs.shape.as_list()[:-1], self.units])
        else:
            compute_dtype = self._compute_dtype
            if compute_dtype is not None and inputs.dtype.base_dtype.name != compute_dtype:
                inputs = math_ops.cast(inputs, compute_dtype)
            outputs = math_ops.matmul(inputs, self.kernel, name="MatMul")
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        input_shape = TensorShape(input_shape).with_rank_at_least(2)
        if input_shape.as_list()[-1] is None:
            raise ValueError(
                f"The innermost dimension of input_shape must be defined, but saw: {input_shape}"
            )
        return TensorShape([*input_shape.as_list()[:-1], self.units])


def _tensordot_last_axis(a: Tensor, b: Any) -> Tensor:
    """tf.tensordot(a, b, [[rank - 1], [0]]) built with TF 1.15's nodes and names (the form
    Dense uses for inputs of rank > 2)."""
    with name_scope(None, "Tensordot", [a, b]) as scope:
        # Converted first, as TF's tensordot does: a resource variable's read is
        # `Tensordot/ReadVariableOp`, before the shape arithmetic.
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        rank: int = a.shape.ndims or 0
        free = list(range(rank - 1))
        if a.shape.is_fully_defined():
            dims = a.shape.as_list()
            free_dims: Any = dims[:-1]
            a2 = array_ops.reshape(
                array_ops.transpose(a, [*free, rank - 1]),
                [int(np.prod(free_dims)), dims[-1]],
            )
        else:
            axes_t = convert_to_tensor([rank - 1], dtype=dtypes.int32, name="axes")
            free_t = convert_to_tensor(free, dtype=dtypes.int32, name="free")
            shape_a = array_ops.shape(a)
            free_dims = array_ops.gather(shape_a, free_t)
            axes_dims = array_ops.gather(shape_a, axes_t)
            prod_free = math_ops.reduce_prod(free_dims)
            prod_axes = math_ops.reduce_prod(axes_dims)
            perm = array_ops.concat([free_t, axes_t], 0)
            new_shape = array_ops.stack([prod_free, prod_axes])
            a2 = array_ops.reshape(array_ops.transpose(a, perm), new_shape)
        b_dims = b.shape.as_list()
        b2 = array_ops.reshape(
            array_ops.transpose(b, [0, 1]), [b_dims[0], int(np.prod(b_dims[1:]))]
        )
        ab = math_ops.matmul(a2, b2)
        if isinstance(free_dims, list):
            return array_ops.reshape(ab, [*free_dims, *b_dims[1:]], name=scope)
        b_free = convert_to_tensor(b_dims[1:], dtype=dtypes.int32)
        out_shape = array_ops.concat([free_dims, b_free], 0)
        return array_ops.reshape(ab, out_shape, name=scope)


def dense(
    inputs: Any,
    units: int,
    activation: Any = None,
    use_bias: bool = True,
    kernel_initializer: Any = None,
    bias_initializer: Any = init_ops.zeros_initializer(),
    kernel_regularizer: Any = None,
    bias_regularizer: Any = None,
    activity_regularizer: Any = None,
    kernel_constraint: Any = None,
    bias_constraint: Any = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: Any = None,
) -> Any:
    """Functional interface of Dense: the layer made and applied to inputs."""
    layer = Dense(
        units,
        activation=activation,
        use_bias=use_bias,
        kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer,
        kernel_regularizer=kernel_regularizer,
        bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer,
        kernel_constraint=kernel_constraint,
        bias_constraint=bias_constraint,
        trainable=trainable,
        name=name,
        _scope=name,
        _reuse=reuse,
    )
    return applied_as_tf(layer, inputs)


class Dropout(Layer):
    """Drops each input with probability `rate` (scaling the rest by 1 / (1 - rate)) when
    `training`, a Python bool or a boolean tensor; passes inputs through otherwise."""

    def __init__(
        self,
        rate: Any = 0.5,
        noise_shape: Any = None,
        seed: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True

    def _get_noise_shape(self, inputs: Tensor) -> Any:
        if self.noise_shape is None:
            return None
        concrete = array_ops.shape(inputs)
        shape = [
            concrete[i] if value is None else value for i, value in enumerate(self.noise_shape)
        ]
        return convert_to_tensor(shape)

    def call(self, inputs: Any, training: Any = False) -> Any:
        def dropped() -> Any:
            return nn_ops.dropout(
                inputs, noise_shape=self._get_noise_shape(inputs), seed=self.seed, rate=self.rate
            )

        return utils.smart_cond(training, dropped, lambda: array_ops.identity(inputs))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


def dropout(
    inputs: Any,
    rate: Any = 0.5,
    noise_shape: Any = None,
    seed: int | None = None,
    training: Any = False,
    name: str | None = None,
) -> Any:
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return applied_as_tf(layer, inputs, training=training)


class Flatten(Layer):
    """Flattens every dimension but the batch's (channels moved last first when
    data_format is channels_first)."""

    def __init__(self, data_format: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = utils.normalize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs: Any) -> Any:
        ndim = inputs.shape.ndims
        if self.data_format == "channels_first" and ndim is not None and ndim > 1:
            inputs = array_ops.transpose(inputs, [0, *range(2, ndim), 1])
        batch = inputs.shape.as_list()[0] if inputs.shape.ndims else None
        outputs = array_ops.reshape(inputs, (batch or array_ops.shape(inputs)[0], -1))
        outputs.set_shape(self.compute_output_shape(inputs.shape))
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        out: list[int | None] = [dims[0]]
        rest = [d for d in dims[1:] if d]
        out.append(int(np.prod(rest)) if len(rest) == len(dims) - 1 else None)
        return TensorShape(out)


def flatten(inputs: Any, name: str | None = None, data_format: str = "channels_last") -> Any:
    layer = Flatten(name=name, data_format=data_format)
    return applied_as_tf(layer, inputs)


FullyConnected = Dense
fully_connected = dense
