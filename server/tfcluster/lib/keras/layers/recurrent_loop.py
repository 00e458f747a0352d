"""TF 1.15's K.rnn time loop for the Keras RNN layers (not unrolled): the inputs swapped to
time-major and unstacked into a TensorArray, one step called before the loop (the output's
shape; a cell draws its dropout masks there), a v1 while_loop of (time, outputs, *states)
over `time < steps`, the outputs stacked, the last one sliced, swapped back. With a mask
(Masking, Embedding(mask_zero=True)) the mask is unstacked into a TensorArray of its own, the
previous output is a loop variable too (zeros at first), and each step keeps the new output
and states where the mask is set, the previous ones elsewhere (tf.where on the mask tiled to
their shape). The ops are TF's, in TF's order and under TF's names in the layer's scope, so
the op count after the layer, hence the seeds of random ops made later, is TF's.
"""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.ops import array_ops, constant_op, control_flow_ops, math_ops
from tfcluster.ops.tensor_array_ops import TensorArray


def _swap_batch_time(x: Any) -> Any:
    axes = list(range(x.shape.ndims))
    axes[0], axes[1] = 1, 0
    return array_ops.transpose(x, axes)


def _time_major_mask(mask: Any, time_major: bool) -> Any:
    """K.rnn's mask as [time, batch, 1] booleans."""
    if mask.dtype.base_dtype != dtypes.bool_:
        mask = math_ops.cast(mask, dtypes.bool_)
    if mask.shape.ndims == 2:
        mask = array_ops.expand_dims(mask, -1)
    return mask if time_major else _swap_batch_time(mask)


def _tiled_mask(mask_t: Any, value: Any) -> Any:
    """K.rnn's _expand_mask: the [batch, 1] mask of a step repeated to the value's shape."""
    for _ in range(value.shape.ndims - mask_t.shape.ndims):
        mask_t = array_ops.expand_dims(mask_t, -1)
    return array_ops.tile(mask_t, [1, *value.shape.as_list()[1:]])


def keras_rnn_loop(
    step_function: Any,
    inputs: Any,
    initial_states: list[Any],
    go_backwards: bool = False,
    time_major: bool = False,
    mask: Any = None,
    zero_output_for_mask: bool = False,
    input_length: int | None = None,
) -> tuple[Any, Any, list[Any]]:
    """(last output, outputs, final states) as TF 1.15's K.rnn builds them (input_length, when
    given, is the while loop's maximum_iterations, as ConvRNN2D passes it);
    step_function(inputs_t, states) -> (output_t, new states) builds TF's ops for a step.
    With a mask, a masked step's output is the previous one, or zeros where
    zero_output_for_mask (a Bidirectional's layers returning sequences)."""
    if not time_major:
        inputs = _swap_batch_time(inputs)
    steps = array_ops.shape(inputs)[0]
    if mask is not None:
        mask = _time_major_mask(mask, time_major)
    input_ta = TensorArray(dtype=inputs.dtype, size=steps, tensor_array_name="input_ta_0")
    input_ta = input_ta.unstack(array_ops.reverse(inputs, [0]) if go_backwards else inputs)
    output_time_zero, _ = step_function(inputs[0], tuple(initial_states))
    output_ta = TensorArray(
        dtype=output_time_zero.dtype,
        size=steps,
        element_shape=output_time_zero.shape,
        tensor_array_name="output_ta_0",
    )
    time = constant_op.constant(0, dtype="int32", name="time")
    if mask is not None:
        return _masked_loop(
            step_function,
            inputs,
            input_ta,
            output_ta,
            output_time_zero,
            time,
            steps,
            mask,
            initial_states,
            go_backwards,
            time_major,
            zero_output_for_mask,
            input_length,
        )

    def body(time: Any, output_ta_t: Any, *states: Any) -> Any:
        current = input_ta.read(time)
        output, new_states = step_function(current, tuple(states))
        for state, new_state in zip(states, new_states):
            new_state.set_shape(state.shape)
        return (time + 1, output_ta_t.write(time, output), *new_states)

    final = control_flow_ops.while_loop(
        cond=lambda time, *_: time < steps,
        body=body,
        loop_vars=(time, output_ta, *initial_states),
        maximum_iterations=input_length,
        parallel_iterations=32,
        swap_memory=True,
    )
    return _stacked(final[1], inputs, time_major, list(final[2:]))


def _masked_loop(
    step: Any,
    inputs: Any,
    input_ta: TensorArray,
    output_ta: TensorArray,
    output_time_zero: Any,
    time: Any,
    steps: Any,
    mask: Any,
    initial_states: list[Any],
    go_backwards: bool,
    time_major: bool,
    zero_output_for_mask: bool,
    input_length: int | None = None,
) -> tuple[Any, Any, list[Any]]:
    """K.rnn's loop with a mask: (time, outputs, previous output, *states)."""
    if go_backwards:
        mask = array_ops.reverse(mask, [0])
    mask_ta = TensorArray(dtype=dtypes.bool_, size=steps, tensor_array_name="mask_ta")
    mask_ta = mask_ta.unstack(mask)
    zero_output = array_ops.zeros_like(output_time_zero)

    def body(time: Any, output_ta_t: Any, prev_output: Any, *states: Any) -> Any:
        current = input_ta.read(time)
        mask_t = mask_ta.read(time)
        output, new_states = step(current, tuple(states))
        masked = zero_output if zero_output_for_mask else prev_output
        internal_deprecations.called_internally(internal_deprecations.WHERE)
        output = array_ops.where(_tiled_mask(mask_t, output), output, masked)
        for state, new_state in zip(states, new_states):
            new_state.set_shape(state.shape)
        tiled = [_tiled_mask(mask_t, state) for state in states]
        kept = [array_ops.where(m, new, old) for m, new, old in zip(tiled, new_states, states)]
        return (time + 1, output_ta_t.write(time, output), output, *kept)

    final = control_flow_ops.while_loop(
        cond=lambda time, *_: time < steps,
        body=body,
        loop_vars=(time, output_ta, zero_output, *initial_states),
        maximum_iterations=input_length,
        parallel_iterations=32,
        swap_memory=True,
    )
    return _stacked(final[1], inputs, time_major, list(final[3:]))


def _stacked(
    output_ta: TensorArray, inputs: Any, time_major: bool, states: list[Any]
) -> tuple[Any, Any, list[Any]]:
    """(last output, outputs batch-major unless time_major, states) from the outputs' array."""
    outputs = output_ta.stack()
    last_output = outputs[-1]
    shape = outputs.shape.as_list()
    shape[0] = inputs.shape.as_list()[0]
    shape[1] = inputs.shape.as_list()[1]
    outputs.set_shape(shape)
    if not time_major:
        outputs = _swap_batch_time(outputs)
    return last_output, outputs, states


def keras_rnn_unrolled(
    step_function: Any,
    inputs: Any,
    initial_states: list[Any],
    go_backwards: bool = False,
    time_major: bool = False,
    mask: Any = None,
    zero_output_for_mask: bool = False,
) -> tuple[Any, Any, list[Any]]:
    """K.rnn with unroll=True: the inputs (and mask) unstacked along time, one step per time
    step in the graph, with a mask the previous output and states kept where it is not set
    (zeros before the first output), the outputs stacked."""
    if not time_major:
        inputs = _swap_batch_time(inputs)
    time_steps = inputs.shape.as_list()[0]
    array_ops.shape(inputs)[0]  # K.rnn's time_steps_t, made whether or not it is used
    if mask is not None:
        mask = _time_major_mask(mask, time_major)
    if not time_steps:
        raise ValueError("Unrolling requires a fixed number of timesteps.")
    step_inputs = array_ops.unstack(inputs)
    if go_backwards:
        step_inputs.reverse()
    states = list(initial_states)
    outputs: list[Any] = []
    if mask is not None:
        masks = array_ops.unstack(mask)
        if go_backwards:
            masks.reverse()
        for step_input, mask_t in zip(step_inputs, masks):
            output, new_states = step_function(step_input, tuple(states))
            tiled = _tiled_mask(mask_t, output)
            prev = array_ops.zeros_like(output) if not outputs else outputs[-1]
            internal_deprecations.called_internally(internal_deprecations.WHERE)
            output = array_ops.where(tiled, output, prev)
            states = [
                array_ops.where(_tiled_mask(mask_t, new), new, old)
                for old, new in zip(states, new_states)
            ]
            outputs.append(output)
    else:
        for step_input in step_inputs:
            output, states = step_function(step_input, tuple(states))
            outputs.append(output)
    stacked = array_ops.stack(outputs)
    last = outputs[-1]
    if mask is not None and zero_output_for_mask:
        # As K.rnn unrolled: the masked steps' outputs zeroed once they are stacked.
        last = array_ops.where(_tiled_mask(masks[-1], last), last, array_ops.zeros_like(last))
        stacked = array_ops.where(
            _tiled_mask(mask, stacked), stacked, array_ops.zeros_like(stacked)
        )
    shape = stacked.shape.as_list()
    shape[0] = inputs.shape.as_list()[0]
    shape[1] = inputs.shape.as_list()[1]
    stacked.set_shape(shape)
    if not time_major:
        stacked = _swap_batch_time(stacked)
    return last, stacked, list(states)
