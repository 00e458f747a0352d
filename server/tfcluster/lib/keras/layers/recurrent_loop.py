"""TF 1.15's K.rnn time loop for the Keras RNN layers (not unrolled, no mask): the inputs
swapped to time-major and unstacked into a TensorArray, one step called before the loop (the
output's shape; a cell draws its dropout masks there), a v1 while_loop of (time, outputs,
*states) over `time < steps`, the outputs stacked, the last one sliced, swapped back. The ops
are TF's, in TF's order and under TF's names in the layer's scope, so the op count after the
layer, hence the seeds of random ops made later, is TF's.
"""

from __future__ import annotations

from typing import Any

from tfcluster.ops import array_ops, constant_op, control_flow_ops
from tfcluster.ops.tensor_array_ops import TensorArray


def _swap_batch_time(x: Any) -> Any:
    axes = list(range(x.shape.ndims))
    axes[0], axes[1] = 1, 0
    return array_ops.transpose(x, axes)


def keras_rnn_loop(
    step_function: Any,
    inputs: Any,
    initial_states: list[Any],
    go_backwards: bool = False,
    time_major: bool = False,
    loop_step: Any = None,
) -> tuple[Any, Any, list[Any]]:
    """(last output, outputs, final states) as TF 1.15's K.rnn builds them;
    step_function(inputs_t, states) -> (output_t, new states) builds TF's ops for a step.
    loop_step, when given, is what the loop runs (the same step, maybe with fewer ops)."""
    if not time_major:
        inputs = _swap_batch_time(inputs)
    steps = array_ops.shape(inputs)[0]
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

    def body(time: Any, output_ta_t: Any, *states: Any) -> Any:
        current = input_ta.read(time)
        output, new_states = (loop_step or step_function)(current, tuple(states))
        for state, new_state in zip(states, new_states):
            new_state.set_shape(state.shape)
        return (time + 1, output_ta_t.write(time, output), *new_states)

    final = control_flow_ops.while_loop(
        cond=lambda time, *_: time < steps,
        body=body,
        loop_vars=(time, output_ta, *initial_states),
        parallel_iterations=32,
        swap_memory=True,
    )
    outputs = final[1].stack()
    last_output = outputs[-1]
    shape = outputs.shape.as_list()
    shape[0] = inputs.shape.as_list()[0]
    shape[1] = inputs.shape.as_list()[1]
    outputs.set_shape(shape)
    if not time_major:
        outputs = _swap_batch_time(outputs)
    return last_output, outputs, list(final[2:])
