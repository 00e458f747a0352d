"""The cell wrappers of tf.nn.rnn_cell: DropoutWrapper (per-step or variational dropout of
inputs, states and outputs), ResidualWrapper and DeviceWrapper.

A wrapper calls its cell's `__call__` directly (no scope of its own), so the wrapped cell's
variables keep the names they would have unwrapped, as in TF.
"""

from __future__ import annotations

import hashlib
import numbers
from collections.abc import Callable
from typing import Any

from tfcluster.framework import internal_deprecations, tensor_util
from tfcluster.framework.graph import convert_to_tensor, device, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.rnn import nest
from tfcluster.lib.rnn.cells import LSTMStateTuple, RNNCell, assert_like_rnncell
from tfcluster.ops import array_ops, math_ops, nn_ops, random_ops
from tfcluster.ops.tensor_array_ops import TensorArray


class _RNNCellWrapper(RNNCell):
    def __init__(self, cell: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    def _call_wrapped_cell(
        self, inputs: Any, state: Any, cell_call_fn: Callable[..., Any], **kwargs: Any
    ) -> Any:
        raise NotImplementedError

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Any:
        return self._call_wrapped_cell(inputs, state, cell_call_fn=self.cell.__call__, scope=scope)

    @property
    def state_size(self) -> Any:
        return self.cell.state_size

    @property
    def output_size(self) -> Any:
        return self.cell.output_size

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return self.cell.zero_state(batch_size, dtype)


def _default_dropout_state_filter_visitor(substate: Any) -> Any:
    if isinstance(substate, LSTMStateTuple):
        # The memory state c is never dropped.
        return LSTMStateTuple(c=False, h=True)
    return not isinstance(substate, TensorArray)


def _enumerated_map_structure_up_to(shallow: Any, map_fn: Callable[..., Any], *args: Any) -> Any:
    counter = [0]

    def enumerated(*inner: Any) -> Any:
        r = map_fn(counter[0], *inner)
        counter[0] += 1
        return r

    return nest.map_structure_up_to(shallow, enumerated, *args)


class DropoutWrapper(_RNNCellWrapper):
    """Dropout on the cell's inputs, outputs and (all but the LSTM memory) states. With
    variational_recurrent=True one mask per run is drawn and used at every step."""

    def __init__(
        self,
        cell: Any,
        input_keep_prob: Any = 1.0,
        output_keep_prob: Any = 1.0,
        state_keep_prob: Any = 1.0,
        variational_recurrent: bool = False,
        input_size: Any = None,
        dtype: Any = None,
        seed: int | None = None,
        dropout_state_filter_visitor: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._dropout_state_filter = (
            dropout_state_filter_visitor or _default_dropout_state_filter_visitor
        )
        self._input_keep_prob: Any
        self._state_keep_prob: Any
        self._output_keep_prob: Any
        with name_scope("DropoutWrapperInit"):
            for prob, attr in [
                (input_keep_prob, "input_keep_prob"),
                (state_keep_prob, "state_keep_prob"),
                (output_keep_prob, "output_keep_prob"),
            ]:
                tensor_prob = convert_to_tensor(prob)
                const_prob = tensor_util.constant_value(tensor_prob)
                if const_prob is not None:
                    if const_prob < 0 or const_prob > 1:
                        raise ValueError(
                            f"Parameter {attr} must be between 0 and 1: {int(const_prob)}"
                        )
                    setattr(self, f"_{attr}", float(const_prob))
                else:
                    setattr(self, f"_{attr}", tensor_prob)
        self._variational_recurrent = variational_recurrent
        self._input_size = input_size
        self._seed = seed
        self._recurrent_input_noise = None
        self._recurrent_state_noise = None
        self._recurrent_output_noise = None
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")

            def batch_noise(s: Any, inner_seed: int | None) -> Any:
                shape = array_ops.concat(([1], TensorShape(s).as_list()), 0)
                return random_ops.random_uniform(shape, seed=inner_seed, dtype=dtype)

            if not isinstance(self._input_keep_prob, numbers.Real) or self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError(
                        "When variational_recurrent=True and input_keep_prob < 1.0 or is "
                        "unknown, input_size must be provided"
                    )
                self._recurrent_input_noise = _enumerated_map_structure_up_to(
                    input_size,
                    lambda i, s: batch_noise(s, self._gen_seed("input", i)),
                    input_size,
                )
            self._recurrent_state_noise = _enumerated_map_structure_up_to(
                cell.state_size,
                lambda i, s: batch_noise(s, self._gen_seed("state", i)),
                cell.state_size,
            )
            self._recurrent_output_noise = _enumerated_map_structure_up_to(
                cell.output_size,
                lambda i, s: batch_noise(s, self._gen_seed("output", i)),
                cell.output_size,
            )

    def _gen_seed(self, salt_prefix: str, index: int) -> int | None:
        """The op seed of one dropout: TF's md5 of the wrapper's seed and a salt."""
        if self._seed is None:
            return None
        salt = f"{salt_prefix}_{index}"
        string = (str(self._seed) + salt).encode("utf-8")
        return int(hashlib.md5(string).hexdigest()[:8], 16) & 0x7FFFFFFF

    @property
    def wrapped_cell(self) -> Any:
        return self.cell

    def _variational_recurrent_dropout_value(
        self, unused_index: int, value: Any, noise: Any, keep_prob: Any
    ) -> Any:
        random_tensor = keep_prob + noise
        binary_tensor = math_ops.floor(random_tensor)
        internal_deprecations.called_internally(internal_deprecations.DIV)
        ret = math_ops.div(value, keep_prob) * binary_tensor
        ret.set_shape(value.shape)
        return ret

    def _dropout(
        self,
        values: Any,
        salt_prefix: str,
        recurrent_noise: Any,
        keep_prob: Any,
        shallow_filtered_substructure: Any = None,
    ) -> Any:
        if shallow_filtered_substructure is None:
            shallow_filtered_substructure = values
        if not self._variational_recurrent:

            def dropout(i: int, do_dropout: Any, v: Any) -> Any:
                if not isinstance(do_dropout, bool) or do_dropout:
                    return nn_ops.dropout_v2(
                        v, rate=1.0 - keep_prob, seed=self._gen_seed(salt_prefix, i)
                    )
                return v

            return _enumerated_map_structure_up_to(
                shallow_filtered_substructure, dropout, shallow_filtered_substructure, values
            )

        def variational(i: int, do_dropout: Any, v: Any, n: Any) -> Any:
            if not isinstance(do_dropout, bool) or do_dropout:
                return self._variational_recurrent_dropout_value(i, v, n, keep_prob)
            return v

        return _enumerated_map_structure_up_to(
            shallow_filtered_substructure,
            variational,
            shallow_filtered_substructure,
            values,
            recurrent_noise,
        )

    def _call_wrapped_cell(
        self, inputs: Any, state: Any, cell_call_fn: Callable[..., Any], **kwargs: Any
    ) -> Any:
        def should_dropout(p: Any) -> bool:
            return (not isinstance(p, float)) or p < 1

        if should_dropout(self._input_keep_prob):
            inputs = self._dropout(
                inputs, "input", self._recurrent_input_noise, self._input_keep_prob
            )
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should_dropout(self._state_keep_prob):
            shallow = nest.get_traverse_shallow_structure(self._dropout_state_filter, new_state)
            new_state = self._dropout(
                new_state, "state", self._recurrent_state_noise, self._state_keep_prob, shallow
            )
        if should_dropout(self._output_keep_prob):
            output = self._dropout(
                output, "output", self._recurrent_output_noise, self._output_keep_prob
            )
        return output, new_state

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "input_keep_prob": self._input_keep_prob,
            "output_keep_prob": self._output_keep_prob,
            "state_keep_prob": self._state_keep_prob,
            "variational_recurrent": self._variational_recurrent,
            "input_size": self._input_size,
            "seed": self._seed,
        }


class ResidualWrapper(_RNNCellWrapper):
    """The cell's outputs plus its inputs (or residual_fn(inputs, outputs))."""

    def __init__(self, cell: Any, residual_fn: Any = None, **kwargs: Any) -> None:
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(
        self, inputs: Any, state: Any, cell_call_fn: Callable[..., Any], **kwargs: Any
    ) -> Any:
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def assert_shape_match(inp: Any, out: Any) -> None:
            inp.shape.assert_is_compatible_with(out.shape)

        def default_residual_fn(inputs: Any, outputs: Any) -> Any:
            nest.assert_same_structure(inputs, outputs)
            nest.map_structure(assert_shape_match, inputs, outputs)
            return nest.map_structure(lambda inp, out: inp + out, inputs, outputs)

        res_outputs = (self._residual_fn or default_residual_fn)(inputs, outputs)
        return res_outputs, new_state


class DeviceWrapper(_RNNCellWrapper):
    """Runs the cell (and makes its zero state) under tf.device(device)."""

    def __init__(self, cell: Any, device: Any, **kwargs: Any) -> None:
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with (
            name_scope(type(self).__name__ + "ZeroState", values=[batch_size]),
            device(self._device),
        ):
            return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(
        self, inputs: Any, state: Any, cell_call_fn: Callable[..., Any], **kwargs: Any
    ) -> Any:
        with device(self._device):
            return cell_call_fn(inputs, state, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "device": self._device}


__all__ = ["DeviceWrapper", "DropoutWrapper", "ResidualWrapper"]
