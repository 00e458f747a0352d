"""tf.keras recurrent layers (TF 1.15, Keras 2.2.4-tf in graph mode): SimpleRNN, GRU and
LSTM over Keras cells, run by the while loop of lib/rnn's dynamic_rnn.

The cell's weights are made in the RNN layer's name scope (`lstm/kernel`,
`lstm/recurrent_kernel`, `lstm/bias`), gates packed as Keras packs them (LSTM i,f,c,o; GRU
z,r,h), with TF 1.15's defaults: recurrent_activation hard_sigmoid, GRU reset_after False,
LSTM unit_forget_bias.

dropout / recurrent_dropout: as Keras, one mask per gate is drawn per batch (implementation 2
applies the first to all gates), before the time loop, in the training phase only, and
every time step uses the same masks; the masks' seeds come from numpy's global generator as
Keras's K.dropout takes them.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.keras import activations, backend, backend_math, initializers
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.lib.keras.layers import config_fields, tf_signature
from tfcluster.lib.keras.layers.recurrent_loop import keras_rnn_loop, keras_rnn_unrolled
from tfcluster.lib.keras.regularizers import get as get_regularizer
from tfcluster.lib.layers.base import InputSpec
from tfcluster.ops import array_ops, math_ops, nn_ops, state_ops


def _zero_filled_state(cell: Any, inputs: Any, batch_size: Any, dtype: Any) -> Any:
    """Keras's zero initial state of a cell: one zeros tensor (batch, size) per state, a
    list of them for several (from inputs' batch size and dtype when inputs are given)."""
    if inputs is not None:
        batch_size = array_ops.shape(inputs)[0]
        dtype = inputs.dtype
    sizes = _flat(cell.state_size)
    zeros = [array_ops.zeros(array_ops.stack([batch_size, s]), dtype) for s in sizes]
    return zeros[0] if len(zeros) == 1 else zeros


def _dropout_masks(ones: Any, rate: float, training: Any, count: int) -> Any:
    """Keras's per-batch dropout masks: `count` of them (one when count is 1), each
    K.dropout(ones) in the training phase and ones otherwise."""

    def dropped() -> Any:
        return backend_math.dropout(ones, rate)

    masks = [backend_math.in_train_phase(dropped, ones, training=training) for _ in range(count)]
    return masks if count > 1 else masks[0]


class _KerasCell(Layer):
    """What the three cells share: units, the three weights and their options."""

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = get_regularizer(kernel_regularizer)
        self.recurrent_regularizer = get_regularizer(recurrent_regularizer)
        self.bias_regularizer = get_regularizer(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.recurrent_constraint = recurrent_constraint
        self.bias_constraint = bias_constraint
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self._dropout_mask: Any = None
        self._recurrent_dropout_mask: Any = None

    _gates = 1

    # One mask per gate, always drawn (implementation 2 uses the first for all gates); a
    # mask stays cached on the cell until reset, as Keras's DropoutRNNCellMixin keeps it.
    def get_dropout_mask_for_cell(self, inputs: Any, training: Any, count: int = 1) -> Any:
        if not 0.0 < self.dropout < 1.0:
            return None
        if self._dropout_mask is None:
            ones = array_ops.ones_like(inputs)
            self._dropout_mask = _dropout_masks(ones, self.dropout, training, count)
        return self._dropout_mask

    def get_recurrent_dropout_mask_for_cell(
        self, inputs: Any, training: Any, count: int = 1
    ) -> Any:
        if not 0.0 < self.recurrent_dropout < 1.0:
            return None
        if self._recurrent_dropout_mask is None:
            ones = array_ops.ones_like(inputs)
            self._recurrent_dropout_mask = _dropout_masks(
                ones, self.recurrent_dropout, training, count
            )
        return self._recurrent_dropout_mask

    def reset_dropout_mask(self) -> None:
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self) -> None:
        self._recurrent_dropout_mask = None

    def _has_dropout(self) -> bool:
        return self._dropout_mask is not None or self._recurrent_dropout_mask is not None

    def _gate_masks(self) -> tuple[list[Any], list[Any]]:
        """(input masks, recurrent masks) as lists of `_gates` (None: no dropout there)."""
        n = self._gates
        masks = []
        for m in (self._dropout_mask, self._recurrent_dropout_mask):
            if m is None:
                masks.append([None] * n)
            elif isinstance(m, list):
                masks.append(m)
            else:
                masks.append([m] * n)
        return masks[0], masks[1]

    def _bias_shape(self) -> tuple[int, ...]:
        return (self._gates * self.units,)

    def _bias_initializer(self) -> Any:
        return self.bias_initializer

    def build(self, input_shape: Any) -> None:
        input_dim = TensorShape(input_shape).as_list()[-1]
        width = self._gates * self.units
        self.kernel = self.add_weight(
            "kernel",
            shape=(input_dim, width),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel",
            shape=(self.units, width),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=self._bias_shape(),
                initializer=self._bias_initializer(),
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            **super().get_config(),
            "units": self.units,
            "activation": config_fields.activation(self.activation),
        }
        if hasattr(self, "recurrent_activation"):
            config["recurrent_activation"] = config_fields.activation(self.recurrent_activation)
        config["use_bias"] = self.use_bias
        for name in ("kernel", "recurrent", "bias"):
            config[f"{name}_initializer"] = config_fields.initializer(
                getattr(self, f"{name}_initializer")
            )
        if hasattr(self, "unit_forget_bias"):
            config["unit_forget_bias"] = self.unit_forget_bias
        for name in ("kernel", "recurrent", "bias"):
            config[f"{name}_regularizer"] = config_fields.regularizer(
                getattr(self, f"{name}_regularizer")
            )
        for name in ("kernel", "recurrent", "bias"):
            config[f"{name}_constraint"] = config_fields.constraint(
                getattr(self, f"{name}_constraint")
            )
        config["dropout"] = self.dropout
        config["recurrent_dropout"] = self.recurrent_dropout
        if hasattr(self, "implementation"):
            config["implementation"] = self.implementation
        if hasattr(self, "reset_after"):
            config["reset_after"] = self.reset_after
        return config

    @property
    def state_size(self) -> Any:
        return self.units

    @property
    def output_size(self) -> int:
        return self.units

    def step(self, inputs: Any, states: list[Any]) -> tuple[Any, list[Any]]:
        raise NotImplementedError

    def call(self, inputs: Any, states: Any, training: Any = None) -> Any:
        """One step; called on its own, the cell draws its dropout masks here (once, until
        reset) from this step's inputs and state, as Keras's cells do."""
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        self.get_dropout_mask_for_cell(inputs, training, count=self._gates)
        self.get_recurrent_dropout_mask_for_cell(states[0], training, count=self._gates)
        return self.tf_step(inputs, states)

    def tf_step(self, inputs: Any, states: list[Any]) -> tuple[Any, list[Any]]:
        """One step with TF 1.15's ops, in its order (the cells' `step` may build fewer, fused
        ones); the RNN layers run this one in their loop too, so that the loop's gradient
        makes TF's ops (as many, hence TF's op seeds after a fit)."""
        return self.step(inputs, states)

    def get_initial_state(
        self, inputs: Any = None, batch_size: Any = None, dtype: Any = None
    ) -> Any:
        return _zero_filled_state(self, inputs, batch_size, dtype)


def _dot(x: Any, w: Any) -> Any:
    return math_ops.matmul(x, w)


def _plus_bias(x: Any, b: Any) -> Any:
    return x if b is None else nn_ops.bias_add(x, b)


def _masked(x: Any, mask: Any) -> Any:
    return x if mask is None else x * mask


class SimpleRNNCell(_KerasCell):
    def step(self, inputs: Any, states: list[Any]) -> tuple[Any, list[Any]]:
        h = _plus_bias(_dot(_masked(inputs, self._dropout_mask), self.kernel), self.bias)
        prev = _masked(states[0], self._recurrent_dropout_mask)
        output = self.activation(h + _dot(prev, self.recurrent_kernel))
        return output, [output]


class GRUCell(_KerasCell):
    _gates = 3

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "hard_sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        implementation: int = 1,
        reset_after: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            units,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            **kwargs,
        )
        self.recurrent_activation = activations.get(recurrent_activation)
        self.implementation = implementation
        self.reset_after = reset_after

    def _bias_shape(self) -> tuple[int, ...]:
        # reset_after keeps a second bias row for the recurrent projections.
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def step(self, inputs: Any, states: list[Any]) -> tuple[Any, list[Any]]:
        if self._has_dropout() and self.implementation == 1:
            return self._step_per_gate(inputs, states[0])
        u, h_prev = self.units, states[0]
        if self._recurrent_dropout_mask is not None:
            # As Keras: the dropped state also blends into the new one.
            h_prev = h_prev * self._gate_masks()[1][0]
        inputs = _masked(inputs, self._gate_masks()[0][0])
        input_bias = recurrent_bias = None
        if self.bias is not None:
            if self.reset_after:
                input_bias, recurrent_bias = self.bias[0], self.bias[1]
            else:
                input_bias = self.bias
        x = _plus_bias(_dot(inputs, self.kernel), input_bias)
        x_z, x_r, x_h = x[:, :u], x[:, u : 2 * u], x[:, 2 * u :]
        # TF 1.15's implementation 2, op for op: both recurrent slices before the gates.
        if self.reset_after:
            inner = _plus_bias(_dot(h_prev, self.recurrent_kernel), recurrent_bias)
        else:
            inner = _dot(h_prev, self.recurrent_kernel[:, : 2 * u])
        recurrent_z, recurrent_r = inner[:, :u], inner[:, u : 2 * u]
        z = self.recurrent_activation(x_z + recurrent_z)
        r = self.recurrent_activation(x_r + recurrent_r)
        if self.reset_after:
            recurrent_h = r * inner[:, 2 * u :]
        else:
            recurrent_h = _dot(r * h_prev, self.recurrent_kernel[:, 2 * u :])
        hh = self.activation(x_h + recurrent_h)
        h = z * h_prev + (1 - z) * hh
        return h, [h]

    def tf_step(self, inputs: Any, states: list[Any]) -> tuple[Any, list[Any]]:
        if self.implementation != 1:
            return self.step(inputs, states)
        # TF 1.15's GRUCell.call, implementation 1: a slice of the kernel, bias and recurrent
        # kernel read per gate (z, r, h).
        u, h_prev = self.units, states[0]
        input_masks, state_masks = self._gate_masks()
        input_bias = recurrent_bias = None
        if self.bias is not None:
            if self.reset_after:
                input_bias, recurrent_bias = array_ops.unstack(self.bias)
            else:
                input_bias = self.bias
        cols = [slice(0, u), slice(u, 2 * u), slice(2 * u, None)]
        x_in = [_masked(inputs, m) for m in input_masks]
        x = [_dot(xi, self.kernel[:, c]) for xi, c in zip(x_in, cols)]
        if input_bias is not None:
            x = [nn_ops.bias_add(xi, input_bias[c]) for xi, c in zip(x, cols)]
        h_in = [_masked(h_prev, m) for m in state_masks]
        recurrent = [_dot(h_in[g], self.recurrent_kernel[:, cols[g]]) for g in (0, 1)]
        if self.reset_after and recurrent_bias is not None:
            recurrent = [nn_ops.bias_add(r, recurrent_bias[c]) for r, c in zip(recurrent, cols)]
        z = self.recurrent_activation(x[0] + recurrent[0])
        r = self.recurrent_activation(x[1] + recurrent[1])
        if self.reset_after:
            recurrent_h = _dot(h_in[2], self.recurrent_kernel[:, cols[2]])
            if recurrent_bias is not None:
                recurrent_h = nn_ops.bias_add(recurrent_h, recurrent_bias[cols[2]])
            recurrent_h = r * recurrent_h
        else:
            recurrent_h = _dot(r * h_in[2], self.recurrent_kernel[:, cols[2]])
        hh = self.activation(x[2] + recurrent_h)
        h = z * h_prev + (1 - z) * hh
        return h, [h]

    def _step_per_gate(self, inputs: Any, h_prev: Any) -> tuple[Any, list[Any]]:
        """Implementation 1 with dropout: each gate its own masked inputs and state."""
        u = self.units
        input_masks, state_masks = self._gate_masks()
        input_bias = recurrent_bias = None
        if self.bias is not None:
            if self.reset_after:
                input_bias, recurrent_bias = self.bias[0], self.bias[1]
            else:
                input_bias = self.bias
        cols = [slice(0, u), slice(u, 2 * u), slice(2 * u, None)]
        x = [
            _plus_bias(
                _dot(_masked(inputs, m), self.kernel[:, c]),
                None if input_bias is None else input_bias[c],
            )
            for m, c in zip(input_masks, cols)
        ]
        h_gates = [_masked(h_prev, m) for m in state_masks]
        recurrent = [_dot(h_gates[g], self.recurrent_kernel[:, cols[g]]) for g in (0, 1)]
        if self.reset_after and recurrent_bias is not None:
            recurrent = [_plus_bias(r, recurrent_bias[c]) for r, c in zip(recurrent, cols)]
        z = self.recurrent_activation(x[0] + recurrent[0])
        r = self.recurrent_activation(x[1] + recurrent[1])
        if self.reset_after:
            recurrent_h = _dot(h_gates[2], self.recurrent_kernel[:, cols[2]])
            if recurrent_bias is not None:
                recurrent_h = _plus_bias(recurrent_h, recurrent_bias[cols[2]])
            recurrent_h = r * recurrent_h
        else:
            recurrent_h = _dot(r * h_gates[2], self.recurrent_kernel[:, cols[2]])
        hh = self.activation(x[2] + recurrent_h)
        h = z * h_prev + (1 - z) * hh
        return h, [h]


class LSTMCell(_KerasCell):
    _gates = 4

    def __init__(
        self,
        units: int,
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
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        implementation: int = 1,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            units,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            **kwargs,
        )
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.implementation = implementation

    def _bias_initializer(self) -> Any:
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, units = self.bias_initializer, self.units

        def forget_ones(shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
            # Keras's order: input gate's bias, forget gate's ones, then cell and output.
            return array_ops.concat(
                [
                    base((units,), dtype=dtype),
                    initializers.get("ones")((units,), dtype=dtype),
                    base((2 * units,), dtype=dtype),
                ],
                0,
            )

        return forget_ones

    @property
    def state_size(self) -> Any:
        return [self.units, self.units]

    def step(self, inputs: Any, states: list[Any]) -> tuple[Any, list[Any]]:
        if self.implementation != 1:
            return self._step_fused(inputs, states)
        if self._has_dropout():
            return self._step_per_gate(inputs, states)
        u, (h_prev, c_prev) = self.units, states
        input_masks, state_masks = self._gate_masks()
        inputs = _masked(inputs, input_masks[0])
        h_prev = _masked(h_prev, state_masks[0])
        z = _plus_bias(_dot(inputs, self.kernel), self.bias)
        z = z + _dot(h_prev, self.recurrent_kernel)
        gates = [z[:, :u], z[:, u : 2 * u], z[:, 2 * u : 3 * u], z[:, 3 * u :]]
        c, o = self._carry_and_output(gates, c_prev)
        h = o * self.activation(c)
        return h, [h, c]

    def tf_step(self, inputs: Any, states: list[Any]) -> tuple[Any, list[Any]]:
        if self.implementation != 1 or type(self) is not LSTMCell:
            return self.step(inputs, states)
        # TF 1.15's LSTMCell.call, implementation 1: the kernel and bias split in four, a
        # slice of the recurrent kernel read per gate.
        u, (h_prev, c_prev) = self.units, states
        input_masks, state_masks = self._gate_masks()
        x_in = [_masked(inputs, m) for m in input_masks]
        kernels = array_ops.split(self.kernel, num_or_size_splits=4, axis=1)
        x = [_dot(xi, k) for xi, k in zip(x_in, kernels)]
        if self.bias is not None:
            biases = array_ops.split(self.bias, num_or_size_splits=4, axis=0)
            x = [nn_ops.bias_add(xi, b) for xi, b in zip(x, biases)]
        h_in = [_masked(h_prev, m) for m in state_masks]
        act, rec_act, rk = self.activation, self.recurrent_activation, self.recurrent_kernel
        i = rec_act(x[0] + _dot(h_in[0], rk[:, :u]))
        f = rec_act(x[1] + _dot(h_in[1], rk[:, u : 2 * u]))
        c = f * c_prev + i * act(x[2] + _dot(h_in[2], rk[:, 2 * u : 3 * u]))
        o = rec_act(x[3] + _dot(h_in[3], rk[:, 3 * u :]))
        h = o * act(c)
        return h, [h, c]

    def _step_fused(self, inputs: Any, states: list[Any]) -> tuple[Any, list[Any]]:
        """Implementation 2 as TF 1.15 computes it: both products added, then the bias, the
        gates split apart (the first dropout masks for all gates)."""
        h_prev, c_prev = states
        input_masks, state_masks = self._gate_masks()
        z = _dot(_masked(inputs, input_masks[0]), self.kernel)
        z = z + _dot(_masked(h_prev, state_masks[0]), self.recurrent_kernel)
        z = _plus_bias(z, self.bias)
        c, o = self._carry_and_output(array_ops.split(z, num_or_size_splits=4, axis=1), c_prev)
        h = o * self.activation(c)
        return h, [h, c]

    def _carry_and_output(self, gates: list[Any], c_prev: Any) -> tuple[Any, Any]:
        """The new cell state and output gate from the four gates' pre-activations."""
        i = self.recurrent_activation(gates[0])
        f = self.recurrent_activation(gates[1])
        c = f * c_prev + i * self.activation(gates[2])
        o = self.recurrent_activation(gates[3])
        return c, o

    def _step_per_gate(self, inputs: Any, states: list[Any]) -> tuple[Any, list[Any]]:
        """Implementation 1 with dropout: each gate (i, f, c, o) its own masked inputs and
        state, as Keras computes it."""
        u, (h_prev, c_prev) = self.units, states
        input_masks, state_masks = self._gate_masks()
        gates = []
        for g, (m_in, m_state) in enumerate(zip(input_masks, state_masks)):
            cols = slice(g * u, (g + 1) * u)
            x = _dot(_masked(inputs, m_in), self.kernel[:, cols])
            if self.bias is not None:
                x = _plus_bias(x, self.bias[cols])
            gates.append(x + _dot(_masked(h_prev, m_state), self.recurrent_kernel[:, cols]))
        c, o = self._carry_and_output(gates, c_prev)
        h = o * self.activation(c)
        return h, [h, c]


class PeepholeLSTMCell(LSTMCell):
    """tf.keras.experimental.PeepholeLSTMCell: an LSTMCell whose input and forget gates also
    see the previous cell state, and whose output gate the new one, each through a weight
    vector (Gers & Schmidhuber's peephole connections, as TF 1.15 adds them)."""

    def build(self, input_shape: Any) -> None:
        super().build(input_shape)
        self.input_gate_peephole_weights = self._peephole("input")
        self.forget_gate_peephole_weights = self._peephole("forget")
        self.output_gate_peephole_weights = self._peephole("output")

    def _peephole(self, gate: str) -> Any:
        return self.add_weight(
            f"{gate}_gate_peephole_weights",
            shape=(self.units,),
            initializer=self.kernel_initializer,
        )

    def _carry_and_output(self, gates: list[Any], c_prev: Any) -> tuple[Any, Any]:
        i = self.recurrent_activation(gates[0] + self.input_gate_peephole_weights * c_prev)
        f = self.recurrent_activation(gates[1] + self.forget_gate_peephole_weights * c_prev)
        c = f * c_prev + i * self.activation(gates[2])
        o = self.recurrent_activation(gates[3] + self.output_gate_peephole_weights * c)
        return c, o


class _LoopCell:
    """The state and output sizes of a Keras cell, its states flattened (a stacked cell's
    nested ones, an LSTM's pair)."""

    def __init__(self, cell: Any) -> None:
        self.state_size = tuple(_flat(cell.state_size))
        self.output_size = getattr(cell, "output_size", self.state_size[0])


def _takes(fn: Any, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _nones_like(nested: Any) -> Any:
    """nested with every leaf None (Keras's states of an RNN that keeps none)."""
    if isinstance(nested, (list, tuple)):
        return type(nested)(_nones_like(item) for item in nested)
    return None


def _flat(nested: Any) -> list[Any]:
    """The leaves of nested lists and tuples (states, or a cell's state sizes), in order."""
    if isinstance(nested, (list, tuple)):
        out: list[Any] = []
        for item in nested:
            out.extend(_flat(item))
        return out
    return [nested]


class RNN(Layer):
    """Runs a Keras cell over the time axis of [batch, time, features] inputs."""

    _fills_training = False

    def __init__(
        self,
        cell: Any,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        time_major: bool = False,
        **kwargs: Any,
    ) -> None:
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError("`cell` should have a `call` method. The RNN was passed:", cell)
        # Masked steps output zeros, not the previous output (Bidirectional sets it).
        self.zero_output_for_mask = bool(kwargs.pop("zero_output_for_mask", False))
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.time_major = time_major
        # The specs of the initial states and constants (set when the layer is built).
        self.state_spec: Any = None
        self.constants_spec: Any = None
        self._states: Any = None

    @property
    def states(self) -> Any:
        """A stateful RNN's state variables; before them (and in a stateless RNN) a None
        per state, as Keras has it."""
        if self._states is None:
            sizes = self.cell.state_size
            if isinstance(sizes, (list, tuple)):
                return type(sizes)(_nones_like(size) for size in sizes)
            return [None]
        return self._states

    @states.setter
    def states(self, states: Any) -> None:
        self._states = states

    def get_initial_state(self, inputs: Any) -> list[Any]:
        """The zero states (or the cell's own initial state) for a batch of `inputs`."""
        if isinstance(inputs, (list, tuple)):
            inputs = inputs[0]
        batch = array_ops.shape(inputs)[1 if self.time_major else 0]
        own = getattr(self.cell, "get_initial_state", None)
        if own is not None:
            state = own(inputs=None, batch_size=batch, dtype=inputs.dtype)
        else:
            state = [
                array_ops.zeros(array_ops.stack([batch, size]), inputs.dtype)
                for size in _LoopCell(self.cell).state_size
            ]
        return list(state) if isinstance(state, (list, tuple)) else [state]

    def build(self, input_shape: Any) -> None:
        shape = TensorShape(input_shape)
        if self.state_spec is None:
            # One spec per item of the cell's state_size, as TF 1.15 makes them (a stacked
            # cell's LSTM pair becomes one spec of shape [None, units, units]).
            sizes = self.cell.state_size
            items = list(sizes) if isinstance(sizes, (list, tuple)) else [sizes]
            self.state_spec = [InputSpec(shape=[None, *TensorShape(i).as_list()]) for i in items]
        # The cell's weights are made here, in this layer's name scope (`lstm/kernel`).
        if not self.cell.built or not self.cell.weights:
            self.cell.build(TensorShape([shape[0]]).concatenate(shape[2:]))
            self.cell.built = True
        self._trainable_weights.extend(self.cell.trainable_weights)
        self._non_trainable_weights.extend(self.cell.non_trainable_weights)
        if self.stateful:
            self._make_state_variables(shape[1] if self.time_major else shape[0])
        self.built = True

    # ---- stateful RNNs: the last batch's final states start the next batch -------------------
    def _make_state_variables(self, batch_size: Any) -> None:
        batch_size = TensorShape([batch_size]).as_list()[0]
        if batch_size is None:
            raise ValueError(
                "If a RNN is stateful, it needs to know its batch size. Specify the batch size "
                "of your input tensors: \n- If using a Sequential model, specify the batch size "
                "by passing a `batch_input_shape` argument to your first layer.\n- If using the "
                "functional API, specify the batch size by passing a `batch_shape` argument to "
                "your Input layer."
            )
        self._state_batch_size = batch_size
        # Keras's K.zeros variables (`lstm/Variable`, `lstm/Variable_1`), not among the weights.
        self.states = [
            backend.zeros((batch_size, size)) for size in _LoopCell(self.cell).state_size
        ]

    def reset_states(self, states: Any = None) -> None:
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        if self._states is None:
            raise ValueError("The layer has not been built yet: its states do not exist.")
        sizes = _LoopCell(self.cell).state_size
        batch = self._state_batch_size
        if states is None:
            values = [np.zeros((batch, size)) for size in sizes]
        else:
            values = list(states) if isinstance(states, (list, tuple)) else [states]
            if len(values) != len(self.states):
                raise ValueError(
                    f"Layer {self.name} expects {len(self.states)} states, but it received "
                    f"{len(values)} state values. Input received: {states}"
                )
            for index, (value, size) in enumerate(zip(values, sizes)):
                if np.shape(value) != (batch, size):
                    raise ValueError(
                        f"State {index} is incompatible with layer {self.name}: expected "
                        f"shape={(batch, size)}, found shape={np.shape(value)}"
                    )
        backend.batch_set_value(list(zip(self.states, values)))

    def compute_mask(self, inputs: Any, mask: Any) -> Any:  # type: ignore[override]  # TF 1.15's signature
        if isinstance(mask, list):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(_LoopCell(self.cell).state_size)
        return output_mask

    def call(
        self,
        inputs: Any,
        mask: Any = None,
        training: Any = None,
        initial_state: Any = None,
        constants: Any = None,
    ) -> Any:
        if constants is not None:
            if "constants" not in inspect.signature(self.cell.call).parameters:
                raise ValueError("RNN cell does not support constants")
            constants = list(constants) if isinstance(constants, (list, tuple)) else [constants]
        if isinstance(inputs, (list, tuple)):
            inputs, initial_state = inputs[0], list(inputs[1:]) or initial_state
        if isinstance(mask, list):
            mask = mask[0]
        if inputs.dtype.base_dtype != dtypes.float32 and inputs.dtype.is_integer:
            inputs = math_ops.cast(inputs, backend.floatx())
        if self.unroll and inputs.shape.as_list()[0 if self.time_major else 1] is None:
            raise ValueError(
                "Cannot unroll a RNN if the time dimension is undefined. \n- If using a "
                "Sequential model, specify the time dimension by passing an `input_shape` or "
                "`batch_input_shape` argument to your first layer. If your first layer is an "
                "Embedding, you can also use the `input_length` argument.\n- If using the "
                "functional API, specify the time dimension by passing a `shape` or "
                "`batch_shape` argument to your Input layer."
            )
        return self._call_keras_loop(inputs, training, initial_state, mask, constants)

    def _call_keras_loop(
        self, inputs: Any, training: Any, initial_state: Any, mask: Any, constants: Any
    ) -> Any:
        """TF 1.15's graph for an RNN: K.rnn's loop (or its steps, unrolled)
        (recurrent_loop.py) from the cell's zero state (K.zeros of [batch, size]); the
        built-in cells draw their dropout masks in the step K.rnn calls before the loop."""
        if initial_state is None and self.stateful:
            states = list(self.states)  # the variables, read where TF's ops read them
        elif initial_state is None:
            batch = array_ops.shape(inputs)[1 if self.time_major else 0]
            states = [
                array_ops.zeros([batch, size], dtype=inputs.dtype)
                for size in _LoopCell(self.cell).state_size
            ]
        else:
            states = (
                list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
            )
        for cell in getattr(self.cell, "cells", None) or [self.cell]:
            if isinstance(cell, _KerasCell):
                cell.reset_dropout_mask()
                cell.reset_recurrent_dropout_mask()
        kwargs: dict[str, Any] = (
            {"training": training} if _takes(self.cell.call, "training") else {}
        )
        if constants is not None:
            kwargs["constants"] = constants
        cell = self.cell

        def step(step_inputs: Any, step_states: Any) -> tuple[Any, list[Any]]:
            if not isinstance(cell, _KerasCell):
                output, new_states = cell.call(step_inputs, list(step_states), **kwargs)
                if not isinstance(new_states, (list, tuple)):
                    new_states = [new_states]
                return output, list(new_states)
            # The cell's call: its dropout masks (drawn by the step before the loop, reused
            # by the loop's), then TF's ops for the step, in the loop too: the loop's
            # gradient then is TF's, op for op.
            cell.get_dropout_mask_for_cell(step_inputs, training, count=cell._gates)
            cell.get_recurrent_dropout_mask_for_cell(step_states[0], training, count=cell._gates)
            return cell.tf_step(step_inputs, list(step_states))

        if self.unroll:
            last, outputs, final = keras_rnn_unrolled(
                step,
                inputs,
                states,
                go_backwards=self.go_backwards,
                time_major=self.time_major,
                mask=mask,
                zero_output_for_mask=self.zero_output_for_mask,
            )
        else:
            last, outputs, final = keras_rnn_loop(
                step,
                inputs,
                states,
                go_backwards=self.go_backwards,
                time_major=self.time_major,
                mask=mask,
                zero_output_for_mask=self.zero_output_for_mask,
            )
        if self.stateful:
            self.add_update([state_ops.assign(v, s) for v, s in zip(self.states, final)], inputs)
        output = outputs if self.return_sequences else last
        if self.return_state:
            return [output, *final]
        return output

    def get_config(self) -> dict[str, Any]:
        config = {
            **super().get_config(),
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "time_major": self.time_major,
        }
        if self.zero_output_for_mask:
            config["zero_output_for_mask"] = True
        config["cell"] = {
            "class_name": type(self.cell).__name__,
            "config": self.cell.get_config(),
        }
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        from tfcluster.lib.keras.layers.serialization import deserialize

        config = dict(config)
        cell = deserialize(config.pop("cell"), custom_objects=custom_objects)
        return cls(cell, **config)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = TensorShape(input_shape).as_list()
        batch = shape[1] if self.time_major else shape[0]
        units = _LoopCell(self.cell).output_size
        output = TensorShape([*shape[:2], units] if self.return_sequences else [batch, units])
        if self.return_state:
            sizes = _LoopCell(self.cell).state_size
            return [output] + [TensorShape([batch, s]) for s in sizes]
        return output


class _CellOwner(RNN):
    """SimpleRNN/GRU/LSTM: the cell's arguments and the RNN's in one constructor."""

    _cell_class: type[_KerasCell] = _KerasCell
    _rnn_args = (
        "return_sequences",
        "return_state",
        "go_backwards",
        "stateful",
        "unroll",
        "zero_output_for_mask",
    )

    def __init__(self, units: int, **kwargs: Any) -> None:
        rnn_kwargs = {k: kwargs.pop(k) for k in self._rnn_args if k in kwargs}
        layer_kwargs = {
            k: kwargs.pop(k)
            for k in ("name", "input_shape", "batch_input_shape", "input_dim", "batch_size",
                      "dtype", "trainable", "weights", "activity_regularizer", "time_major")
            if k in kwargs
        }  # fmt: skip
        if "activity_regularizer" in layer_kwargs:
            layer_kwargs["activity_regularizer"] = get_regularizer(
                layer_kwargs["activity_regularizer"]
            )
        cell = self._cell_class(units, dtype=layer_kwargs.get("dtype"), **kwargs)
        super().__init__(cell, **rnn_kwargs, **layer_kwargs)

    def call(  # type: ignore[override]  # TF 1.15's signature
        self, inputs: Any, mask: Any = None, training: Any = None, initial_state: Any = None
    ) -> Any:
        # SimpleRNN/GRU/LSTM take no constants (their cells have none), as in TF 1.15.
        return super().call(inputs, mask=mask, training=training, initial_state=initial_state)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        cell_config = config.pop("cell")["config"]
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key, None)
        config.update(cell_config)
        config["activity_regularizer"] = config_fields.regularizer(self.activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        config = dict(config)
        if config.get("implementation") == 0:
            config["implementation"] = 1
        return cls(**config)

    def __getattr__(self, name: str) -> Any:
        # Keras forwards units, activation, ... to the cell.
        if name.startswith("_") or name == "cell":
            raise AttributeError(name)
        return getattr(self.cell, name)


def _owner_init(sig: Any) -> Any:
    """_CellOwner's constructor behind TF 1.15's signature of the layer (tf_signature.py)."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        kwargs = tf_signature.given_arguments(sig, self, args, kwargs)
        _CellOwner.__init__(self, kwargs.pop("units"), **kwargs)

    __init__.__signature__ = sig  # type: ignore[attr-defined]
    return __init__


class SimpleRNN(_CellOwner):
    _cell_class = SimpleRNNCell
    __init__ = _owner_init(tf_signature.SIMPLE_RNN)


class GRU(_CellOwner):
    _cell_class = GRUCell
    __init__ = _owner_init(tf_signature.GRU)


class LSTM(_CellOwner):
    _cell_class = LSTMCell
    __init__ = _owner_init(tf_signature.LSTM)


class AbstractRNNCell(Layer):
    """The base of a user's Keras RNN cell: call(inputs, states) -> (output, new states),
    with state_size and output_size."""

    def call(self, inputs: Any, states: Any) -> Any:
        raise NotImplementedError("Abstract method")

    @property
    def state_size(self) -> Any:
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self) -> Any:
        raise NotImplementedError("Abstract method")

    def get_initial_state(
        self, inputs: Any = None, batch_size: Any = None, dtype: Any = None
    ) -> Any:
        return _zero_filled_state(self, inputs, batch_size, dtype)


class StackedRNNCells(Layer):
    """Cells run one after another in each time step: cell i's output is cell i+1's input; the
    states are every cell's, in order."""

    def __init__(self, cells: Any, **kwargs: Any) -> None:
        for cell in cells:
            if not hasattr(cell, "call"):
                raise ValueError("All cells must have a `call` method. received cells:", cells)
            if not hasattr(cell, "state_size"):
                raise ValueError(
                    "All cells must have a `state_size` attribute. received cells:", cells
                )
        self.cells = list(cells)
        self.reverse_state_order = kwargs.pop("reverse_state_order", False)
        if self.reverse_state_order:
            raise backend.unimplemented("tf.keras.layers.StackedRNNCells(reverse_state_order=True)")
        super().__init__(**kwargs)

    @property
    def state_size(self) -> Any:
        # Each cell's own state size, as TF 1.15 has them (nested, not flattened).
        return tuple(cell.state_size for cell in self.cells)

    def cells_state_sizes(self) -> list[Any]:
        out: list[Any] = []
        for cell in self.cells:
            out.extend(_flat(cell.state_size))
        return out

    @property
    def output_size(self) -> Any:
        last = self.cells[-1]
        if getattr(last, "output_size", None) is not None:
            return last.output_size
        return _flat(last.state_size)[0]

    def build(self, input_shape: Any) -> None:
        # TF 1.15 names the cells' weights in the RNN's scope only: rnn/kernel, rnn/kernel_1.
        shape = TensorShape(input_shape)
        for cell in self.cells:
            if not cell.built:
                cell.build(shape)
                cell.built = True
            size = getattr(cell, "output_size", None) or _flat(cell.state_size)[0]
            shape = TensorShape([shape[0], size])
        for cell in self.cells:
            self._trainable_weights.extend(cell.trainable_weights)
            self._non_trainable_weights.extend(cell.non_trainable_weights)
        self.built = True

    def get_initial_state(
        self, inputs: Any = None, batch_size: Any = None, dtype: Any = None
    ) -> tuple[Any, ...]:
        """Each cell's initial state, in order (its own get_initial_state, or zeros)."""
        states = []
        for cell in self.cells:
            fn = getattr(cell, "get_initial_state", None)
            if fn is not None:
                states.append(fn(inputs=inputs, batch_size=batch_size, dtype=dtype))
            else:
                states.append(_zero_filled_state(cell, inputs, batch_size, dtype))
        return tuple(states)

    def call(self, inputs: Any, states: Any, constants: Any = None, **kwargs: Any) -> Any:
        """One step of every cell; constants (and training, ...) go to the cells that take
        them, as Keras hands them on."""
        states = list(states)
        new_states: list[Any] = []
        for cell in self.cells:
            count = len(_flat(cell.state_size))
            cell_states, states = states[:count], states[count:]
            params = inspect.signature(cell.call).parameters
            given = {k: v for k, v in kwargs.items() if k in params}
            if constants is not None and "constants" in params:
                given["constants"] = constants
            # A tf.nn.rnn_cell cell takes its one state as a tensor, not a list (as TF's).
            if len(cell_states) == 1 and getattr(cell, "_is_tf_rnn_cell", False):
                inputs, produced = cell.call(inputs, cell_states[0], **given)
            else:
                inputs, produced = cell.call(inputs, cell_states, **given)
            new_states.extend(_flat(produced))
        return inputs, new_states

    def get_config(self) -> dict[str, Any]:
        cells = [{"class_name": type(c).__name__, "config": c.get_config()} for c in self.cells]
        return {**super().get_config(), "cells": cells}

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        from tfcluster.lib.keras.layers.serialization import deserialize

        config = dict(config)
        cells = [deserialize(c, custom_objects=custom_objects) for c in config.pop("cells")]
        return cls(cells, **config)
