"""The RNN drivers of tf.nn: dynamic_rnn and bidirectional_dynamic_rnn (one tf.while_loop over
the time steps, inputs and outputs in TensorArrays), raw_rnn (the loop driven by a loop_fn),
static_rnn, static_bidirectional_rnn and static_state_saving_rnn (the steps unrolled into the
graph).

They build TF 1.15's graphs: the same scopes (`rnn/`, `bidirectional_rnn/fw/`), the same
sequence_length handling (outputs past a sequence's end are zeros and its state is carried
through unchanged), so variables and the tensors programs look up by name match TF's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations, tensor_util
from tfcluster.framework.graph import (
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tfcluster.framework.tensor_shape import Dimension, TensorShape, as_shape
from tfcluster.lib.rnn import nest
from tfcluster.lib.rnn.cells import RNNCell, assert_like_rnncell, concat_shapes
from tfcluster.ops import (
    array_ops,
    constant_op,
    control_flow_ops,
    counting_ops,
    logging_ops,
    math_ops,
)
from tfcluster.ops import variable_scope as vs
from tfcluster.ops.tensor_array_ops import TensorArray


def _transpose_batch_time(x: Tensor) -> Tensor:
    """x with its first two dimensions swapped (static shape kept); rank < 2 unchanged."""
    static = x.shape
    if static.ndims is not None and static.ndims < 2:
        return x
    x_rank = array_ops.rank(x)
    x_t = array_ops.transpose(x, array_ops.concat(([1, 0], math_ops.range(2, x_rank)), axis=0))
    if static.ndims is None:
        x_t.set_shape(TensorShape(None))
    else:
        dims = static.as_list()
        x_t.set_shape(TensorShape([dims[1], dims[0]]).concatenate(static[2:]))
    return x_t


def _best_effort_input_batch_size(flat_input: Any) -> Any:
    """The static batch size of time-major inputs where known, else a tensor."""
    for input_ in flat_input:
        shape = input_.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError(f"Expected input tensor {input_} to have rank at least 2")
        batch_size = shape.as_list()[1]
        if batch_size is not None:
            return batch_size
    return array_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype: Any, state: Any) -> Any:
    if explicit_dtype is not None:
        return explicit_dtype
    if nest.is_sequence(state):
        inferred = [element.dtype for element in nest.flatten(state)]
        if not inferred:
            raise ValueError("Unable to infer dtype from empty state.")
        if not all(x == inferred[0] for x in inferred):
            raise ValueError(
                "State has tensors of different inferred_dtypes. Unable to infer a single "
                "representative dtype."
            )
        return inferred[0]
    return state.dtype


def _maybe_tensor_shape_from_tensor(shape: Any) -> Any:
    if isinstance(shape, Tensor):
        return as_shape(tensor_util.constant_value(shape))
    return shape


def _should_cache() -> bool:
    """TF sets a caching device for the variables, except inside a loop body (where cached
    reads would go stale across iterations)."""
    return not getattr(get_default_graph(), "building_function", False)


def _set_caching(varscope: vs.VariableScope) -> None:
    if _should_cache() and varscope.caching_device is None:
        varscope.set_caching_device(lambda op: op.device)


def _rnn_step(
    time: Any,
    sequence_length: Tensor,
    min_sequence_length: Tensor,
    max_sequence_length: Tensor,
    zero_output: Any,
    state: Any,
    call_cell: Callable[[], Any],
    state_size: Any,
    skip_conditionals: bool = False,
) -> tuple[Any, Any]:
    """One step under sequence_length: rows whose sequence has ended (time >= length) output
    zeros and keep their state. Without skip_conditionals, whole-batch conds skip the
    selection (time < min length) or the cell itself (time >= max length), as static_rnn
    builds it."""
    flat_state = nest.flatten(state)
    flat_zero_output = nest.flatten(zero_output)
    copy_cond = time >= sequence_length

    def copy_one_through(output: Any, new_output: Any) -> Any:
        if isinstance(output, TensorArray):
            return new_output
        if output.shape.ndims == 0:
            return new_output
        with colocate_with(new_output):
            internal_deprecations.called_internally(internal_deprecations.WHERE)
            return array_ops.where(copy_cond, output, new_output)

    def copy_some_through(flat_new_output: list[Any], flat_new_state: list[Any]) -> list[Any]:
        outs = [copy_one_through(z, o) for z, o in zip(flat_zero_output, flat_new_output)]
        states = [copy_one_through(s, n) for s, n in zip(flat_state, flat_new_state)]
        return outs + states

    def maybe_copy_some_through() -> list[Any]:
        new_output, new_state = call_cell()
        nest.assert_same_structure(zero_output, new_output)
        nest.assert_same_structure(state, new_state)
        flat_new_state = nest.flatten(new_state)
        flat_new_output = nest.flatten(new_output)
        return control_flow_ops.cond(
            time < min_sequence_length,
            lambda: flat_new_output + flat_new_state,
            lambda: copy_some_through(flat_new_output, flat_new_state),
        )

    if skip_conditionals:
        new_output, new_state = call_cell()
        nest.assert_same_structure(zero_output, new_output)
        nest.assert_same_structure(state, new_state)
        final = copy_some_through(nest.flatten(new_output), nest.flatten(new_state))
    else:
        final = control_flow_ops.cond(
            time >= max_sequence_length,
            lambda: flat_zero_output + flat_state,
            maybe_copy_some_through,
        )
    if len(final) != len(flat_zero_output) + len(flat_state):
        raise ValueError("Internal error: state and output were not concatenated correctly.")
    final_output = final[: len(flat_zero_output)]
    final_state = final[len(flat_zero_output) :]
    for output, flat_output in zip(final_output, flat_zero_output):
        output.set_shape(flat_output.shape)
    for substate, flat_substate in zip(final_state, flat_state):
        if not isinstance(substate, TensorArray):
            substate.set_shape(flat_substate.shape)
    return (
        nest.pack_sequence_as(zero_output, final_output),
        nest.pack_sequence_as(state, final_state),
    )


def _reverse_seq(input_seq: list[Any], lengths: Any) -> list[Any]:
    """The list of steps reversed, each sequence only up to its length."""
    if lengths is None:
        return list(reversed(input_seq))
    flat_input_seq = tuple(nest.flatten(input_) for input_ in input_seq)
    flat_results: list[list[Any]] = [[] for _ in range(len(input_seq))]
    for sequence in zip(*flat_input_seq):
        input_shape = TensorShape(None)
        rank = sequence[0].shape.ndims
        if rank is not None:
            input_shape = TensorShape([None] * rank)
        for input_ in sequence:
            # As TF: the merged shape is checked, not kept.
            input_shape.merge_with(input_.shape)
            input_.set_shape(input_shape)
        s_joined = array_ops.stack(sequence)
        s_reversed = counting_ops.reverse_sequence(s_joined, lengths, 0, 1)
        result = array_ops.unstack(s_reversed)
        for r, flat_result in zip(result, flat_results):
            r.set_shape(input_shape)
            flat_result.append(r)
    return [
        nest.pack_sequence_as(input_, flat_result)
        for input_, flat_result in zip(input_seq, flat_results)
    ]


def _assert_has_shape(x: Tensor, shape: list[Any]) -> Any:
    x_shape = array_ops.shape(x)
    packed_shape = array_ops.stack(shape)
    return logging_ops.Assert(
        math_ops.reduce_all(math_ops.equal(x_shape, packed_shape)),
        [f"Expected shape for Tensor {x.name} is ", packed_shape, " but saw shape: ", x_shape],
    )


def dynamic_rnn(
    cell: Any,
    inputs: Any,
    sequence_length: Any = None,
    initial_state: Any = None,
    dtype: Any = None,
    parallel_iterations: int | None = None,
    swap_memory: bool = False,
    time_major: bool = False,
    scope: Any = None,
) -> tuple[Any, Any]:
    """Runs `cell` over the time steps of `inputs` ([batch, time, ...], or [time, batch, ...]
    with time_major) in a while loop; returns (outputs, final state).

    With sequence_length, a row's outputs past its length are zeros and its final state is
    the state at its last step. swap_memory is accepted (tensors stay where they are).
    """
    assert_like_rnncell("cell", cell)
    with vs.variable_scope(scope or "rnn") as varscope:
        _set_caching(varscope)
        flat_input = nest.flatten(inputs)
        if not time_major:
            flat_input = [convert_to_tensor(input_) for input_ in flat_input]
            flat_input = [_transpose_batch_time(input_) for input_ in flat_input]
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError(
                    "sequence_length must be a vector of length batch_size, but saw shape: "
                    f"{sequence_length.shape}"
                )
            sequence_length = array_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_input)
        if initial_state is not None:
            state = initial_state
        else:
            if not dtype:
                raise ValueError("If there is no initial_state, you must give a dtype.")
            if getattr(cell, "get_initial_state", None) is not None:
                state = cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
            else:
                state = cell.zero_state(batch_size, dtype)
        if sequence_length is not None:
            with control_dependencies([_assert_has_shape(sequence_length, [batch_size])]):
                sequence_length = array_ops.identity(sequence_length, name="CheckSeqLen")
        inputs = nest.pack_sequence_as(inputs, flat_input)
        outputs, final_state = _dynamic_rnn_loop(
            cell,
            inputs,
            state,
            parallel_iterations=parallel_iterations,
            swap_memory=swap_memory,
            sequence_length=sequence_length,
            dtype=dtype,
        )
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _dynamic_rnn_loop(
    cell: Any,
    inputs: Any,
    initial_state: Any,
    parallel_iterations: int,
    swap_memory: bool,
    sequence_length: Tensor | None = None,
    dtype: Any = None,
) -> tuple[Any, Any]:
    state = initial_state
    if not isinstance(parallel_iterations, int):
        raise TypeError("parallel_iterations must be int")
    state_size = cell.state_size
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)
    input_shape = array_ops.shape(flat_input[0])
    time_steps = input_shape[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    inputs_got_shape = tuple(input_.shape.with_rank_at_least(3) for input_ in flat_input)
    const_time_steps, const_batch_size = inputs_got_shape[0].as_list()[:2]
    for shape in inputs_got_shape:
        if not shape[2:].is_fully_defined():
            raise ValueError(
                "Input size (depth of inputs) must be accessible via shape inference, but saw "
                "value None."
            )
        got_time_steps, got_batch_size = shape.as_list()[:2]
        if const_time_steps != got_time_steps:
            raise ValueError(
                "Time steps is not the same for all the elements in the input in a batch."
            )
        if const_batch_size != got_batch_size:
            raise ValueError("Batch_size is not the same for all the elements in the input.")

    def create_zero_arrays(size: Any) -> Tensor:
        shape = concat_shapes(batch_size, size)
        return array_ops.zeros(array_ops.stack(shape), _infer_state_dtype(dtype, state))

    flat_zero_output = tuple(create_zero_arrays(output) for output in flat_output_size)
    zero_output = nest.pack_sequence_as(cell.output_size, flat_zero_output)
    min_sequence_length: Any = None
    if sequence_length is not None:
        min_sequence_length = math_ops.reduce_min(sequence_length)
        max_sequence_length = math_ops.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = constant_op.constant(0, dtype=dtypes.int32, name="time")
    with name_scope("dynamic_rnn") as base_name:
        pass

    def create_ta(name: str, element_shape: Any, ta_dtype: Any) -> TensorArray:
        return TensorArray(
            dtype=ta_dtype,
            size=time_steps,
            element_shape=element_shape,
            tensor_array_name=base_name + name,
        )

    output_ta = tuple(
        create_ta(
            f"output_{i}",
            element_shape=TensorShape([const_batch_size]).concatenate(
                _maybe_tensor_shape_from_tensor(out_size)
            ),
            ta_dtype=_infer_state_dtype(dtype, state),
        )
        for i, out_size in enumerate(flat_output_size)
    )
    input_ta = tuple(
        create_ta(f"input_{i}", element_shape=flat_input_i.shape[1:], ta_dtype=flat_input_i.dtype)
        for i, flat_input_i in enumerate(flat_input)
    )
    input_ta = tuple(ta.unstack(input_) for ta, input_ in zip(input_ta, flat_input))

    def time_step(time: Any, output_ta_t: Any, state: Any) -> Any:
        input_t = tuple(ta.read(time) for ta in input_ta)
        for input_, shape in zip(input_t, inputs_got_shape):
            input_.set_shape(shape[1:])
        input_t = nest.pack_sequence_as(inputs, input_t)

        def call_cell() -> Any:
            return cell(input_t, state)

        if sequence_length is not None:
            output, new_state = _rnn_step(
                time=time,
                sequence_length=sequence_length,
                min_sequence_length=min_sequence_length,
                max_sequence_length=max_sequence_length,
                zero_output=zero_output,
                state=state,
                call_cell=call_cell,
                state_size=state_size,
                skip_conditionals=True,
            )
        else:
            output, new_state = call_cell()
        flat_output = nest.flatten(output)
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, flat_output))
        return (time + 1, output_ta_t, new_state)

    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = control_flow_ops.while_loop(
        cond=lambda time, *_: time < loop_bound,
        body=time_step,
        loop_vars=(time, output_ta, state),
        parallel_iterations=parallel_iterations,
        maximum_iterations=time_steps,
        swap_memory=swap_memory,
    )
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, output_size in zip(final_outputs, flat_output_size):
        shape = concat_shapes([const_time_steps, const_batch_size], output_size, static=True)
        output.set_shape(shape)
    return nest.pack_sequence_as(cell.output_size, final_outputs), final_state


def bidirectional_dynamic_rnn(
    cell_fw: Any,
    cell_bw: Any,
    inputs: Any,
    sequence_length: Any = None,
    initial_state_fw: Any = None,
    initial_state_bw: Any = None,
    dtype: Any = None,
    parallel_iterations: int | None = None,
    swap_memory: bool = False,
    time_major: bool = False,
    scope: Any = None,
) -> tuple[Any, Any]:
    """A forward and a backward dynamic_rnn (in `fw/` and `bw/`); the backward one reads each
    sequence reversed up to its length. Returns ((out_fw, out_bw), (state_fw, state_bw))."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)

    def reverse(input_: Any, seq_lengths: Any) -> Tensor:
        if seq_lengths is not None:
            return counting_ops.reverse_sequence(
                input=input_, seq_lengths=seq_lengths, seq_axis=time_axis, batch_axis=batch_axis
            )
        return array_ops.reverse(input_, axis=[time_axis])

    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            internal_deprecations.called_internally(internal_deprecations.DYNAMIC_RNN)
            output_fw, output_state_fw = dynamic_rnn(
                cell=cell_fw,
                inputs=inputs,
                sequence_length=sequence_length,
                initial_state=initial_state_fw,
                dtype=dtype,
                parallel_iterations=parallel_iterations,
                swap_memory=swap_memory,
                time_major=time_major,
                scope=fw_scope,
            )
        with vs.variable_scope("bw") as bw_scope:
            inputs_reverse = nest.map_structure(lambda x: reverse(x, sequence_length), inputs)
            tmp, output_state_bw = dynamic_rnn(
                cell=cell_bw,
                inputs=inputs_reverse,
                sequence_length=sequence_length,
                initial_state=initial_state_bw,
                dtype=dtype,
                parallel_iterations=parallel_iterations,
                swap_memory=swap_memory,
                time_major=time_major,
                scope=bw_scope,
            )
    output_bw = reverse(tmp, sequence_length)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)


def raw_rnn(
    cell: Any,
    loop_fn: Callable[..., Any],
    parallel_iterations: int | None = None,
    swap_memory: bool = False,
    scope: Any = None,
) -> tuple[Any, Any, Any]:
    """The RNN loop driven by `loop_fn(time, cell_output, cell_state, loop_state)`, which
    returns (finished, next_input, next_cell_state, emit_output, next_loop_state); runs until
    every row is finished. Returns (emit TensorArrays, final state, final loop state)."""
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError("loop_fn must be a callable")
    parallel_iterations = parallel_iterations or 32
    with vs.variable_scope(scope or "rnn") as varscope:
        _set_caching(varscope)
        time = constant_op.constant(0, dtype=dtypes.int32)
        (elements_finished, next_input, initial_state, emit_structure, init_loop_state) = loop_fn(
            time, None, None, None
        )
        flat_input = nest.flatten(next_input)
        loop_state = (
            init_loop_state
            if init_loop_state is not None
            else constant_op.constant(0, dtype=dtypes.int32)
        )
        input_shape = [input_.shape for input_ in flat_input]
        static_batch_size = _dim0(input_shape[0])
        for input_shape_i in input_shape:
            static_batch_size = static_batch_size.merge_with(_dim0(input_shape_i))
        batch_size: Any = static_batch_size.value
        const_batch_size = batch_size
        if batch_size is None:
            batch_size = array_ops.shape(flat_input[0])[0]
        nest.assert_same_structure(initial_state, cell.state_size)
        state = initial_state
        flat_state = [convert_to_tensor(s) for s in nest.flatten(state)]
        state = nest.pack_sequence_as(state, flat_state)
        if emit_structure is not None:
            flat_emit_structure = nest.flatten(emit_structure)
            flat_emit_size = [
                emit.shape if emit.shape.is_fully_defined() else array_ops.shape(emit)
                for emit in flat_emit_structure
            ]
            flat_emit_dtypes = [emit.dtype for emit in flat_emit_structure]
        else:
            emit_structure = cell.output_size
            flat_emit_size = nest.flatten(emit_structure)
            flat_emit_dtypes = [flat_state[0].dtype] * len(flat_emit_size)
        flat_emit_ta = [
            TensorArray(
                dtype=dtype_i,
                dynamic_size=True,
                element_shape=TensorShape([const_batch_size]).concatenate(
                    _maybe_tensor_shape_from_tensor(size_i)
                ),
                size=0,
                name=f"rnn_output_{i}",
            )
            for i, (dtype_i, size_i) in enumerate(zip(flat_emit_dtypes, flat_emit_size))
        ]
        emit_ta = nest.pack_sequence_as(emit_structure, flat_emit_ta)
        flat_zero_emit = [
            array_ops.zeros(concat_shapes(batch_size, size_i), dtype_i)
            for size_i, dtype_i in zip(flat_emit_size, flat_emit_dtypes)
        ]
        zero_emit = nest.pack_sequence_as(emit_structure, flat_zero_emit)

        def condition(unused_time: Any, elements_finished: Any, *_: Any) -> Any:
            return math_ops.logical_not(math_ops.reduce_all(elements_finished))

        def body(
            time: Any,
            elements_finished: Any,
            current_input: Any,
            emit_ta: Any,
            state: Any,
            loop_state: Any,
        ) -> Any:
            next_output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            nest.assert_same_structure(cell.output_size, next_output)
            next_time = time + 1
            (next_finished, next_input, next_state, emit_output, next_loop_state) = loop_fn(
                next_time, next_output, cell_state, loop_state
            )
            nest.assert_same_structure(state, next_state)
            nest.assert_same_structure(current_input, next_input)
            nest.assert_same_structure(emit_ta, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state

            def copy_some_through(current: Any, candidate: Any) -> Any:
                def copy_fn(cur_i: Any, cand_i: Any) -> Any:
                    if isinstance(cur_i, TensorArray):
                        return cand_i
                    if cur_i.shape.ndims == 0:
                        return cand_i
                    with colocate_with(cand_i):
                        internal_deprecations.called_internally(internal_deprecations.WHERE)
                        return array_ops.where(elements_finished, cur_i, cand_i)

                return nest.map_structure(copy_fn, current, candidate)

            emit_output = copy_some_through(zero_emit, emit_output)
            next_state = copy_some_through(state, next_state)
            emit_ta = nest.map_structure(
                lambda ta, emit: ta.write(time, emit), emit_ta, emit_output
            )
            elements_finished = math_ops.logical_or(elements_finished, next_finished)
            return (next_time, elements_finished, next_input, emit_ta, next_state, loop_state)

        returned = control_flow_ops.while_loop(
            condition,
            body,
            loop_vars=[time, elements_finished, next_input, emit_ta, state, loop_state],
            parallel_iterations=parallel_iterations,
            swap_memory=swap_memory,
        )
        emit_ta, final_state, final_loop_state = returned[-3:]
        if init_loop_state is None:
            final_loop_state = None
        return emit_ta, final_state, final_loop_state


def _dim0(shape: TensorShape) -> Dimension:
    if shape.ndims is None:
        return Dimension(None)
    if shape.ndims < 1:
        raise ValueError(f"Tensor's shape {shape} must have at least 1 dimension.")
    return Dimension(shape.as_list()[0])


def static_rnn(
    cell: Any,
    inputs: Any,
    initial_state: Any = None,
    dtype: Any = None,
    sequence_length: Any = None,
    scope: Any = None,
) -> tuple[list[Any], Any]:
    """The cell unrolled over a Python list of per-step inputs ([batch, depth] each); returns
    (list of outputs, final state). With sequence_length, steps past a row's length give zeros
    and carry its state through (conds skip the work when no row, or every row, is done)."""
    assert_like_rnncell("cell", cell)
    if not nest.is_sequence(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    outputs = []
    with vs.variable_scope(scope or "rnn") as varscope:
        _set_caching(varscope)
        first_input = inputs
        while nest.is_sequence(first_input):
            first_input = first_input[0]
        if first_input.shape.ndims != 1:
            input_shape = first_input.shape.with_rank_at_least(2)
            fixed_batch_size = Dimension(input_shape.as_list()[0])
            for flat_input in nest.flatten(inputs):
                input_shape = flat_input.shape.with_rank_at_least(2)
                dims = input_shape.as_list()
                fixed_batch_size = fixed_batch_size.merge_with(Dimension(dims[0]))
                for i, size in enumerate(dims[1:]):
                    if size is None:
                        raise ValueError(
                            f"Input size (dimension {i} of inputs) must be accessible via shape "
                            "inference, but saw value None."
                        )
        else:
            fixed_batch_size = Dimension(first_input.shape.with_rank_at_least(1).as_list()[0])
        batch_size: Any = fixed_batch_size.value or array_ops.shape(first_input)[0]
        if initial_state is not None:
            state = initial_state
        else:
            if not dtype:
                raise ValueError("If no initial_state is provided, dtype must be specified")
            if getattr(cell, "get_initial_state", None) is not None:
                state = cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
            else:
                state = cell.zero_state(batch_size, dtype)
        zero_output: Any = None
        min_sequence_length: Any = None
        max_sequence_length: Any = None
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size")

            def create_zero_output(output_size: Any) -> Tensor:
                size = concat_shapes(batch_size, output_size)
                output = array_ops.zeros(array_ops.stack(size), _infer_state_dtype(dtype, state))
                shape = concat_shapes(fixed_batch_size.value, output_size, static=True)
                output.set_shape(TensorShape(shape))
                return output

            output_size = cell.output_size
            flat_zero_output = tuple(create_zero_output(size) for size in nest.flatten(output_size))
            zero_output = nest.pack_sequence_as(output_size, flat_zero_output)
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            min_sequence_length = math_ops.reduce_min(sequence_length)
            max_sequence_length = math_ops.reduce_max(sequence_length)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_: Any = input_, state: Any = state) -> Any:
                return cell(input_, state)

            if sequence_length is not None:
                output, state = _rnn_step(
                    time=time,
                    sequence_length=sequence_length,
                    min_sequence_length=min_sequence_length,
                    max_sequence_length=max_sequence_length,
                    zero_output=zero_output,
                    state=state,
                    call_cell=call_cell,
                    state_size=cell.state_size,
                )
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


def static_state_saving_rnn(
    cell: Any,
    inputs: Any,
    state_saver: Any,
    state_name: Any,
    sequence_length: Any = None,
    scope: Any = None,
) -> tuple[list[Any], Any]:
    """static_rnn whose initial state comes from `state_saver.state(name)` and whose final
    state is saved with `state_saver.save_state(name, value)` before the last output."""
    state_size = cell.state_size
    state_is_tuple = nest.is_sequence(state_size)
    state_name_tuple = nest.is_sequence(state_name)
    if state_is_tuple != state_name_tuple:
        raise ValueError(
            "state_name should be the same type as cell.state_size.  state_name: "
            f"{state_name}, cell.state_size: {state_size}"
        )
    if state_is_tuple:
        state_name_flat = nest.flatten(state_name)
        state_size_flat = nest.flatten(state_size)
        if len(state_name_flat) != len(state_size_flat):
            raise ValueError(
                f"#elems(state_name) != #elems(state_size): {len(state_name_flat)} vs. "
                f"{len(state_size_flat)}"
            )
        initial_state = nest.pack_sequence_as(
            state_size, [state_saver.state(s) for s in state_name_flat]
        )
    else:
        initial_state = state_saver.state(state_name)
    outputs, state = static_rnn(
        cell, inputs, initial_state=initial_state, sequence_length=sequence_length, scope=scope
    )
    if state_is_tuple:
        flat_state = nest.flatten(state)
        save_state = [
            state_saver.save_state(name, substate)
            for name, substate in zip(nest.flatten(state_name), flat_state)
        ]
    else:
        save_state = [state_saver.save_state(state_name, state)]
    with control_dependencies(save_state):
        last_output = outputs[-1]
        flat_last_output = [array_ops.identity(output) for output in nest.flatten(last_output)]
        outputs[-1] = nest.pack_sequence_as(last_output, flat_last_output)
        if state_is_tuple:
            state = nest.pack_sequence_as(
                state, [array_ops.identity(s) for s in nest.flatten(state)]
            )
        else:
            state = array_ops.identity(state)
    return outputs, state


def static_bidirectional_rnn(
    cell_fw: Any,
    cell_bw: Any,
    inputs: Any,
    initial_state_fw: Any = None,
    initial_state_bw: Any = None,
    dtype: Any = None,
    sequence_length: Any = None,
    scope: Any = None,
) -> tuple[list[Any], Any, Any]:
    """Forward and backward static_rnns (in `fw/` and `bw/`); each step's output is the two
    outputs concatenated. Returns (outputs, state_fw, state_bw)."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not nest.is_sequence(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            internal_deprecations.called_internally(internal_deprecations.STATIC_RNN)
            output_fw, output_state_fw = static_rnn(
                cell_fw, inputs, initial_state_fw, dtype, sequence_length, scope=fw_scope
            )
        with vs.variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            tmp, output_state_bw = static_rnn(
                cell_bw, reversed_inputs, initial_state_bw, dtype, sequence_length, scope=bw_scope
            )
    output_bw = _reverse_seq(tmp, sequence_length)
    flat_outputs = tuple(
        array_ops.concat([fw, bw], 1)
        for fw, bw in zip(nest.flatten(output_fw), nest.flatten(output_bw))
    )
    outputs = nest.pack_sequence_as(output_fw, flat_outputs)
    return outputs, output_state_fw, output_state_bw


__all__ = [
    "RNNCell",
    "bidirectional_dynamic_rnn",
    "dynamic_rnn",
    "raw_rnn",
    "static_bidirectional_rnn",
    "static_rnn",
    "static_state_saving_rnn",
]
