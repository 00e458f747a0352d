"""tf.keras.layers.CuDNNLSTM and CuDNNGRU, built as TF 1.15 builds them
(keras/layers/cudnn_recurrent.py): the weights `kernel` [input_dim, gates*units],
`recurrent_kernel` [units, gates*units] and `bias` [2*gates*units] (input then recurrent
biases), flattened gate by gate into one parameter buffer (recurrent_v2._canonical_to_params)
fed to a CudnnRNNV2 op. Its kernel runs on CPUs too here (TF: GPUs with cuDNN only), so the
same weights, and their files, give the same outputs."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.keras import initializers
from tfcluster.lib.keras.constraints import get as get_constraint
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.lib.keras.regularizers import get as get_regularizer
from tfcluster.ops import array_ops
from tfcluster.ops.cudnn_rnn_ops import cudnn_rnnv2


def canonical_to_params(weights: list[Any], biases: list[Any]) -> Any:
    """TF's recurrent_v2._canonical_to_params: every piece flattened, weights then biases."""
    shape = [-1]
    flat = [array_ops.reshape(w, shape) for w in weights]
    flat += [array_ops.reshape(b, shape) for b in biases]
    return array_ops.concat(flat, axis=0)


class _CuDNNRNN(Layer):
    _gates = 1
    _rnn_mode = "lstm"

    def __init__(
        self,
        units: int,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        *,  # TF 2.x's, beyond TF 1.15's signature
        time_major: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=get_regularizer(activity_regularizer), **kwargs)
        self.units = units
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = get_regularizer(kernel_regularizer)
        self.recurrent_regularizer = get_regularizer(recurrent_regularizer)
        self.bias_regularizer = get_regularizer(bias_regularizer)
        self.kernel_constraint = get_constraint(kernel_constraint)
        self.recurrent_constraint = get_constraint(recurrent_constraint)
        self.bias_constraint = get_constraint(bias_constraint)
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.time_major = time_major
        self.states: list[Any] = []

    @property
    def _state_count(self) -> int:
        return 2 if self._rnn_mode == "lstm" else 1

    def _bias_init(self) -> Any:
        return self.bias_initializer

    def build(self, input_shape: Any) -> None:
        if isinstance(input_shape, list):
            input_shape = input_shape[0]
        input_dim = TensorShape(input_shape).as_list()[-1]
        if input_dim is None:
            raise ValueError("The last dimension of the inputs to a CuDNN layer must be known")
        g = self._gates
        self.kernel = self.add_weight(
            name="kernel",
            shape=(input_dim, self.units * g),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            name="recurrent_kernel",
            shape=(self.units, self.units * g),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.bias = self.add_weight(
            name="bias",
            shape=(self.units * g * 2,),
            initializer=self._bias_init(),
            regularizer=self.bias_regularizer,
            constraint=self.bias_constraint,
        )
        if self.stateful:
            raise errors.UnimplementedError(
                None, None, f"tf.keras.layers.{type(self).__name__}(stateful=True)"
            )
        self.built = True

    def call(
        self, inputs: Any, mask: Any = None, training: Any = None, initial_state: Any = None
    ) -> Any:
        if isinstance(inputs, (list, tuple)):
            inputs, initial_state = inputs[0], list(inputs[1:]) or initial_state
        if initial_state is None:
            initial_state = self.get_initial_state(inputs)
        elif not isinstance(initial_state, (list, tuple)):
            initial_state = [initial_state]
        if len(initial_state) != self._state_count:
            raise ValueError(
                f"Layer has {self._state_count} states but was passed "
                f"{len(initial_state)} initial states."
            )
        if self.go_backwards:
            inputs = array_ops.reverse(inputs, [0 if self.time_major else 1])
        output, states = self._process_batch(inputs, list(initial_state))
        if self.return_state:
            return [output, *states]
        return output

    def get_initial_state(self, inputs: Any) -> list[Any]:
        """Zeros (batch, units) for each state (two for an LSTM), as Keras's RNN makes them."""
        if isinstance(inputs, (list, tuple)):
            inputs = inputs[0]
        batch = array_ops.shape(inputs)[1 if self.time_major else 0]
        return [
            array_ops.zeros(array_ops.stack([batch, self.units]), inputs.dtype)
            for _ in range(self._state_count)
        ]

    def reset_states(self, states: Any = None) -> None:
        # stateful=True is refused at build, so this is Keras's answer for every layer here.
        raise AttributeError("Layer must be stateful.")

    def get_losses_for(self, inputs: Any = None) -> list[Any]:
        return super().get_losses_for(inputs)  # type: ignore[no-any-return]

    def _slices(self) -> tuple[list[Any], list[Any]]:
        raise NotImplementedError

    def _process_batch(self, inputs: Any, initial_state: list[Any]) -> tuple[Any, list[Any]]:
        if not self.time_major:
            inputs = array_ops.transpose(inputs, perm=(1, 0, 2))
        input_h = array_ops.expand_dims(initial_state[0], axis=0)
        if self._rnn_mode == "lstm":
            input_c: Any = array_ops.expand_dims(initial_state[1], axis=0)
        else:
            input_c = 0
        weights, biases = self._slices()
        params = canonical_to_params(weights, biases)
        outputs, h, c, _, _ = cudnn_rnnv2(
            inputs, input_h, input_c, params, is_training=True, rnn_mode=self._rnn_mode
        )
        states = [h[0], c[0]] if self._rnn_mode == "lstm" else [h[0]]
        if self.return_sequences:
            output = outputs if self.time_major else array_ops.transpose(outputs, perm=(1, 0, 2))
        else:
            output = outputs[-1]
        return output, states

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "units": self.units,
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "time_major": self.time_major,
        }


class CuDNNLSTM(_CuDNNRNN):
    """An LSTM on the fused CudnnRNN op (gates i, f, c, o; no activation choices)."""

    _gates = 4
    _rnn_mode = "lstm"

    def __init__(
        self,
        units: int,
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
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            units,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            **kwargs,
        )
        self.unit_forget_bias = unit_forget_bias

    def _bias_init(self) -> Any:
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, units = self.bias_initializer, self.units

        def forget_ones(shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
            # As TF: the recurrent forget gate's bias starts at one.
            return array_ops.concat(
                [
                    base((units * 5,), dtype=dtype),
                    initializers.get("ones")((units,), dtype=dtype),
                    base((units * 2,), dtype=dtype),
                ],
                axis=0,
            )

        return forget_ones

    def _slices(self) -> tuple[list[Any], list[Any]]:
        u, k, r, b = self.units, self.kernel, self.recurrent_kernel, self.bias
        weights = [k[:, i * u : (i + 1) * u] for i in range(4)]
        weights += [r[:, i * u : (i + 1) * u] for i in range(4)]
        return weights, [b[i * u : (i + 1) * u] for i in range(8)]


class CuDNNGRU(_CuDNNRNN):
    """A GRU on the fused CudnnRNN op (Keras's gate order z, r, h; cuDNN's r, z, h)."""

    _gates = 3
    _rnn_mode = "gru"

    def _slices(self) -> tuple[list[Any], list[Any]]:
        u, k, r, b = self.units, self.kernel, self.recurrent_kernel, self.bias
        weights = [k[:, u : u * 2], k[:, :u], k[:, u * 2 :]]
        weights += [r[:, u : u * 2], r[:, :u], r[:, u * 2 :]]
        biases = [b[u : u * 2], b[:u], b[u * 2 : u * 3]]
        biases += [b[u * 4 : u * 5], b[u * 3 : u * 4], b[u * 5 :]]
        return weights, biases


__all__ = ["CuDNNGRU", "CuDNNLSTM"]
