"""tf.keras.layers.ConvLSTM2D (TF 1.15): an LSTM whose input and recurrent transforms are 2-D
convolutions, over [batch, time, rows, cols, channels]. The steps run in K.rnn's while loop
(the number of time steps may be unknown), each building the ops TF 1.15's ConvLSTM2DCell
builds (so the op count after the layer, hence later random seeds, is TF's)."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras import (
    activations,
    backend,
    backend_math,
    constraints,
    initializers,
    regularizers,
)
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.lib.keras.layers import config_fields
from tfcluster.lib.keras.layers.recurrent_loop import keras_rnn_loop
from tfcluster.lib.layers import utils as conv_utils
from tfcluster.lib.layers.base import InputSpec
from tfcluster.ops import array_ops, math_ops, nn_ops


class ConvLSTM2D(Layer):
    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: Any = None,
        dilation_rate: Any = (1, 1),
        activation: Any = "tanh",
        recurrent_activation: Any = "hard_sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True,
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        return_sequences: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        **kwargs: Any,
    ) -> None:
        # TF 1.15 takes it through **kwargs (ConvRNN2D's), not among ConvLSTM2D's own.
        return_state = bool(kwargs.pop("return_state", False))
        for flag, what in (
            (stateful, "stateful=True"),
            (dropout, "dropout"),
            (recurrent_dropout, "recurrent_dropout"),
        ):
            if flag:
                raise backend.unimplemented(f"tf.keras.layers.ConvLSTM2D with {what}")
        kwargs.pop("unroll", None)
        kwargs.pop("time_major", None)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = filters
        self.kernel_size = conv_utils.normalize_tuple(kernel_size, 2, "kernel_size")
        self.strides = conv_utils.normalize_tuple(strides, 2, "strides")
        self.padding = conv_utils.normalize_padding(padding)
        self.data_format = conv_utils.normalize_data_format(
            data_format or backend.image_data_format()
        )
        if self.data_format != "channels_last":
            raise backend.unimplemented("tf.keras.layers.ConvLSTM2D(data_format='channels_first')")
        self.dilation_rate = conv_utils.normalize_tuple(dilation_rate, 2, "dilation_rate")
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.unit_forget_bias = unit_forget_bias
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = False
        self.dropout = dropout
        self.recurrent_dropout = recurrent_dropout
        self.input_spec = InputSpec(ndim=5)

    def build(self, input_shape: Any) -> None:
        dims = [getattr(d, "value", d) for d in input_shape]
        input_dim = dims[-1]
        if input_dim is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        self.kernel = self.add_weight(
            shape=(*self.kernel_size, input_dim, self.filters * 4),
            initializer=self.kernel_initializer,
            name="kernel",
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            shape=(*self.kernel_size, self.filters, self.filters * 4),
            initializer=self.recurrent_initializer,
            name="recurrent_kernel",
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.bias = None
        if self.use_bias:
            base, filters = self.bias_initializer, self.filters

            def bias_initializer(shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
                if not self.unit_forget_bias:
                    return base(shape, dtype=dtype)
                return array_ops.concat(
                    [
                        base((filters,), dtype=dtype),
                        initializers.get("ones")((filters,), dtype=dtype),
                        base((filters * 2,), dtype=dtype),
                    ],
                    axis=0,
                )

            self.bias = self.add_weight(
                shape=(self.filters * 4,),
                name="bias",
                initializer=bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    def _input_conv(self, x: Any, w: Any, b: Any = None, padding: str = "valid") -> Any:
        out = backend_math.conv2d(
            x,
            w,
            strides=self.strides,
            padding=padding,
            data_format=self.data_format,
            dilation_rate=self.dilation_rate,
        )
        if b is not None:
            out = nn_ops.bias_add(out, b)
        return out

    def _recurrent_conv(self, x: Any, w: Any) -> Any:
        return backend_math.conv2d(
            x, w, strides=(1, 1), padding="same", data_format=self.data_format
        )

    def _step(self, inputs: Any, states: list[Any]) -> tuple[Any, list[Any]]:
        h_tm1, c_tm1 = states[0], states[1]
        # TF 1.15's ConvLSTM2DCell.call: each weight split in four gates (one Split each).
        kernels = array_ops.split(self.kernel, 4, axis=3)
        recurrents = array_ops.split(self.recurrent_kernel, 4, axis=3)
        biases = [None] * 4 if self.bias is None else array_ops.split(self.bias, 4)
        x = [self._input_conv(inputs, k, b, padding=self.padding) for k, b in zip(kernels, biases)]
        h = [self._recurrent_conv(h_tm1, r) for r in recurrents]
        i = self.recurrent_activation(x[0] + h[0])
        fg = self.recurrent_activation(x[1] + h[1])
        c = fg * c_tm1 + i * self.activation(x[2] + h[2])
        o = self.recurrent_activation(x[3] + h[3])
        new_h = o * self.activation(c)
        return new_h, [new_h, c]

    def call(
        self, inputs: Any, mask: Any = None, training: Any = None, initial_state: Any = None
    ) -> Any:
        if initial_state is None:
            initial_state = self.get_initial_state(inputs)
        # TF 1.15's ConvRNN2D runs K.rnn's while loop (so the time steps may be unknown), the
        # known number of steps its maximum_iterations.
        last, outputs, states = keras_rnn_loop(
            self._step,
            inputs,
            list(initial_state),
            go_backwards=self.go_backwards,
            mask=mask,
            input_length=inputs.shape.as_list()[1],
        )
        output = outputs if self.return_sequences else last
        if self.return_state:
            return [output, *states]
        return output

    def get_initial_state(self, inputs: Any) -> list[Any]:
        """Zero hidden and cell states, shaped as the convolution's output of one step."""
        # TF 1.15's ConvRNN2D.get_initial_state: the inputs' zeros summed over time, then
        # convolved with a zero kernel (the step's output shape).
        zeros = array_ops.zeros_like(inputs)
        zeros = math_ops.reduce_sum(zeros, axis=1)
        shape = self.kernel.shape.as_list()
        shape[-1] = self.filters
        zeros = self._input_conv(zeros, array_ops.zeros(tuple(shape)), padding=self.padding)
        return [zeros, zeros]

    def reset_states(self, states: Any = None) -> None:
        # stateful=True is refused by the constructor, so this is Keras's answer here.
        raise AttributeError("Layer must be stateful.")

    def compute_mask(self, inputs: Any, mask: Any) -> Any:  # type: ignore[override]  # TF 1.15's signature
        return super().compute_mask(inputs, mask)

    def get_config(self) -> dict[str, Any]:
        config = {
            **super().get_config(),
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": False,
            "time_major": False,
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": config_fields.activation(self.activation),
            "recurrent_activation": config_fields.activation(self.recurrent_activation),
            "use_bias": self.use_bias,
            "kernel_initializer": config_fields.initializer(self.kernel_initializer),
            "recurrent_initializer": config_fields.initializer(self.recurrent_initializer),
            "bias_initializer": config_fields.initializer(self.bias_initializer),
            "unit_forget_bias": self.unit_forget_bias,
            "kernel_regularizer": config_fields.regularizer(self.kernel_regularizer),
            "recurrent_regularizer": config_fields.regularizer(self.recurrent_regularizer),
            "bias_regularizer": config_fields.regularizer(self.bias_regularizer),
            "activity_regularizer": config_fields.regularizer(self.activity_regularizer),
            "kernel_constraint": config_fields.constraint(self.kernel_constraint),
            "recurrent_constraint": config_fields.constraint(self.recurrent_constraint),
            "bias_constraint": config_fields.constraint(self.bias_constraint),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
        }
        return config
