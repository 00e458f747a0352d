"""tf.nn.rnn_cell: RNNCell and the cells TF 1.15 defines (BasicRNNCell, GRUCell,
BasicLSTMCell, LSTMCell, MultiRNNCell) and LSTMStateTuple.

Each cell builds the ops TF's does, in the same order and scopes, so its variables
(`<scope>/basic_lstm_cell/kernel`, `.../gates/bias`, `.../projection/kernel`) and ops are
named as TF names them and TF's checkpoints restore into them.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, internal_deprecations, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import as_shape
from tfcluster.lib.platform import tf_logging
from tfcluster.lib.rnn import nest
from tfcluster.lib.rnn.layer_base import InputSpec, Layer
from tfcluster.ops import (
    array_ops,
    clip_ops,
    constant_op,
    init_ops,
    math_ops,
    nn_ops,
    partitioned_variables,
)
from tfcluster.ops import variable_scope as vs
from tfcluster.ops.variables import PartitionedVariable, trainable_variables

_BIAS_VARIABLE_NAME = "bias"
_WEIGHTS_VARIABLE_NAME = "kernel"


# Keras's activation names (activations.get): a string picks one of these.
_ACTIVATIONS = {
    "tanh": math_ops.tanh,
    "sigmoid": math_ops.sigmoid,
    "relu": nn_ops.relu,
    "elu": nn_ops.elu,
    "selu": nn_ops.selu,
    "softplus": nn_ops.softplus,
    "softsign": nn_ops.softsign,
    "exponential": math_ops.exp,
    "linear": lambda x: x,
}


def get_activation(activation: Any) -> Any:
    if activation is None:
        return lambda x: x
    if isinstance(activation, str):
        fn = _ACTIVATIONS.get(activation)
        if fn is None:
            raise ValueError("Unknown activation function:" + activation)
        return fn
    if callable(activation):
        return activation
    raise ValueError(f"Could not interpret activation function identifier: {activation!r}")


def _zeros_with_dtype(dtype: Any) -> Any:
    """TF's cells' bias initializer, made with dtype (a deprecated argument TF announces)."""
    internal_deprecations.called_internally_with_argument(internal_deprecations.ZEROS_DTYPE, 2)
    return init_ops.zeros_initializer(dtype=dtype)


def _constant_with_dtype(value: float, dtype: Any) -> Any:
    internal_deprecations.called_internally_with_argument(internal_deprecations.CONSTANT_DTYPE, 2)
    return init_ops.constant_initializer(value, dtype=dtype)


def _get_initializer(initializer: Any) -> Any:
    """Keras's initializers.get: None stays None, a name picks TF's initializer."""
    if initializer is None or callable(initializer):
        return initializer
    if isinstance(initializer, str):
        by_name = {
            "zeros": init_ops.zeros_initializer,
            "ones": init_ops.ones_initializer,
            "glorot_uniform": init_ops.glorot_uniform_initializer,
            "glorot_normal": init_ops.glorot_normal_initializer,
            "orthogonal": init_ops.orthogonal_initializer,
            "random_uniform": init_ops.random_uniform_initializer,
            "random_normal": init_ops.random_normal_initializer,
            "truncated_normal": init_ops.truncated_normal_initializer,
        }
        if initializer not in by_name:
            raise ValueError("Unknown initializer: " + initializer)
        return by_name[initializer]()
    raise ValueError(f"Could not interpret initializer identifier: {initializer!r}")


def _hasattr(obj: Any, attr_name: str) -> bool:
    try:
        getattr(obj, attr_name)
    except AttributeError:
        return False
    return True


def assert_like_rnncell(cell_name: str, cell: Any) -> None:
    """TypeError unless `cell` has what an RNN needs of a cell."""
    conditions = [
        _hasattr(cell, "output_size"),
        _hasattr(cell, "state_size"),
        _hasattr(cell, "get_initial_state") or _hasattr(cell, "zero_state"),
        callable(cell),
    ]
    problems = [
        "'output_size' property is missing",
        "'state_size' property is missing",
        "either 'zero_state' or 'get_initial_state' method is required",
        "is not callable",
    ]
    if not all(conditions):
        missing = [p for p, ok in zip(problems, conditions) if not ok]
        raise TypeError(
            f"The argument {cell_name!r} ({cell}) is not an RNNCell: {', '.join(missing)}."
        )


def concat_shapes(prefix: Any, suffix: Any, static: bool = False) -> Any:
    """TF's rnn_cell_impl._concat: prefix + suffix as a shape tensor, or (static=True) as a
    list with None for unknown dims. Each side is an int, a TensorShape or a tensor."""
    p_tensor, p_static = _shape_part(prefix, "prefix")
    s_tensor, s_static = _shape_part(suffix, "suffix")
    if static:
        shape = as_shape(p_static).concatenate(s_static)
        return shape.as_list() if shape.ndims is not None else None
    if p_tensor is None or s_tensor is None:
        raise ValueError(f"Provided a prefix or suffix of None: {prefix} and {suffix}")
    return array_ops.concat((p_tensor, s_tensor), 0)


def _shape_part(value: Any, what: str) -> tuple[Tensor | None, Any]:
    if isinstance(value, Tensor):
        static: Any = tensor_util.constant_value(value)
        if static is not None and np.ndim(static) == 0:
            static = [int(static)]  # TF's TensorShape takes a scalar as one dimension
        t = value
        if t.shape.ndims == 0:
            t = array_ops.expand_dims(t, 0)
        elif t.shape.ndims != 1:
            raise ValueError(
                f"{what} tensor must be either a scalar or vector, but saw tensor: {value}"
            )
        return t, static
    shape = as_shape(value)
    static_dims = shape.as_list() if shape.ndims is not None else None
    tensor = (
        constant_op.constant(shape.as_list(), dtype=dtypes.int32)
        if shape.is_fully_defined()
        else None
    )
    return tensor, static_dims


def zero_state_tensors(state_size: Any, batch_size: Any, dtype: Any) -> Any:
    def zeros_of(s: Any) -> Tensor:
        size = array_ops.zeros(concat_shapes(batch_size, s), dtype=dtype)
        size.set_shape(concat_shapes(batch_size, s, static=True))
        return size

    return nest.map_structure(zeros_of, state_size)


def check_supported_dtypes(dtype: Any) -> None:
    if dtype is None:
        return
    dt = dtypes.as_dtype(dtype)
    if not (dt.is_floating or dt.is_complex):
        raise ValueError(
            f"RNN cell only supports floating point inputs, but saw dtype: <dtype: '{dt.name}'>"
        )


def check_rnn_cell_input_dtypes(inputs: Any) -> None:
    for t in nest.flatten(inputs):
        check_supported_dtypes(t.dtype)


class RNNCell(Layer):
    """An RNN cell: `(output, new_state) = cell(inputs, state)`; a subclass defines
    `state_size`, `output_size` and `call` (or overrides `__call__`, as cells written for TF
    1.0 do). Variables a subclass makes with tf.get_variable in `call` are tracked in its
    weights."""

    def __init__(
        self, trainable: bool = True, name: Any = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._is_tf_rnn_cell = True

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Any:
        if scope is not None:
            with vs.variable_scope(scope, custom_getter=self._rnn_get_variable) as entered:
                return super().__call__(inputs, state, scope=entered)
        cell_scope = getattr(self, "rnncell_scope", None)
        if cell_scope is None:
            cell_scope = vs.variable_scope(
                vs.get_variable_scope(), custom_getter=self._rnn_get_variable
            )
            self.rnncell_scope = cell_scope
        with cell_scope:
            return super().__call__(inputs, state)

    def _rnn_get_variable(self, getter: Any, *args: Any, **kwargs: Any) -> Any:
        variable = getter(*args, **kwargs)
        trainables = trainable_variables()
        if isinstance(variable, PartitionedVariable):
            first = next(iter(variable))
            trainable = any(first is v for v in trainables)
        else:
            trainable = any(variable is v for v in trainables)
        weights = self._trainable_weights if trainable else self._non_trainable_weights
        if all(variable is not w for w in weights):
            weights.append(variable)
        return variable

    @property
    def state_size(self) -> Any:
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self) -> Any:
        raise NotImplementedError("Abstract method")

    def build(self, _: Any) -> None:
        # Cells may make variables in `call` (tf.get_variable): nothing to do here.
        pass

    def get_initial_state(
        self, inputs: Any = None, batch_size: Any = None, dtype: Any = None
    ) -> Any:
        if inputs is not None:
            inputs = convert_to_tensor(inputs, name="inputs")
            if batch_size is not None:
                static = (
                    tensor_util.constant_value(batch_size)
                    if isinstance(batch_size, Tensor)
                    else batch_size
                )
                if inputs.shape.as_list()[0] != static:
                    raise ValueError(
                        "batch size from input tensor is different from the input param. Input "
                        f"tensor batch: {inputs.shape.as_list()[0]}, batch_size: {batch_size}"
                    )
            if dtype is not None and inputs.dtype != dtype:
                raise ValueError(
                    "dtype from input tensor is different from the input param. Input tensor "
                    f"dtype: {inputs.dtype}, dtype: {dtype}"
                )
            batch_size = inputs.shape.as_list()[0] or array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError(
                "batch_size and dtype cannot be None while constructing initial state: "
                f"batch_size={batch_size}, dtype={dtype}"
            )
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """Zeros shaped [batch_size, s] for each s in state_size (nested like it)."""
        with name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return zero_state_tensors(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """A cell that acts as a tf.layers Layer: variables made in `build`, none in `call`."""

    def __call__(
        self, inputs: Any, state: Any, scope: Any = None, *args: Any, **kwargs: Any
    ) -> Any:
        return Layer.__call__(self, inputs, state, *args, scope=scope, **kwargs)


class BasicRNNCell(LayerRNNCell):
    """output = new_state = activation(W [inputs, state] + b)."""

    def __init__(
        self,
        num_units: int,
        activation: Any = None,
        reuse: Any = None,
        name: Any = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        check_supported_dtypes(self.dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = get_activation(activation) if activation else math_ops.tanh

    @property
    def state_size(self) -> Any:
        return self._num_units

    @property
    def output_size(self) -> Any:
        return self._num_units

    def build(self, input_shape: Any) -> None:  # TF's shape_type_conversion's name
        depth = _input_depth(input_shape)
        check_supported_dtypes(self.dtype)
        self._kernel = self.add_variable(
            _WEIGHTS_VARIABLE_NAME, shape=[depth + self._num_units, self._num_units]
        )
        self._bias = self.add_variable(
            _BIAS_VARIABLE_NAME,
            shape=[self._num_units],
            initializer=_zeros_with_dtype(self.dtype),
        )
        self.built = True

    def call(self, inputs: Any, state: Any) -> Any:
        check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        output = self._activation(gate_inputs)
        return output, output

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "num_units": self._num_units, "reuse": self._reuse}


class GRUCell(LayerRNNCell):
    """Gated recurrent unit (Cho et al., 2014), as TF 1.15's GRUCell computes it."""

    def __init__(
        self,
        num_units: int,
        activation: Any = None,
        reuse: Any = None,
        kernel_initializer: Any = None,
        bias_initializer: Any = None,
        name: Any = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        check_supported_dtypes(self.dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = get_activation(activation) if activation else math_ops.tanh
        self._kernel_initializer = _get_initializer(kernel_initializer)
        self._bias_initializer = _get_initializer(bias_initializer)

    @property
    def state_size(self) -> Any:
        return self._num_units

    @property
    def output_size(self) -> Any:
        return self._num_units

    def build(self, input_shape: Any) -> None:  # TF's shape_type_conversion's name
        depth = _input_depth(input_shape)
        check_supported_dtypes(self.dtype)
        self._gate_kernel = self.add_variable(
            f"gates/{_WEIGHTS_VARIABLE_NAME}",
            shape=[depth + self._num_units, 2 * self._num_units],
            initializer=self._kernel_initializer,
        )
        self._gate_bias = self.add_variable(
            f"gates/{_BIAS_VARIABLE_NAME}",
            shape=[2 * self._num_units],
            initializer=(
                self._bias_initializer
                if self._bias_initializer is not None
                else _constant_with_dtype(1.0, self.dtype)
            ),
        )
        self._candidate_kernel = self.add_variable(
            f"candidate/{_WEIGHTS_VARIABLE_NAME}",
            shape=[depth + self._num_units, self._num_units],
            initializer=self._kernel_initializer,
        )
        self._candidate_bias = self.add_variable(
            f"candidate/{_BIAS_VARIABLE_NAME}",
            shape=[self._num_units],
            initializer=(
                self._bias_initializer
                if self._bias_initializer is not None
                else _zeros_with_dtype(self.dtype)
            ),
        )
        self.built = True

    def call(self, inputs: Any, state: Any) -> Any:
        check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._gate_bias)
        value = math_ops.sigmoid(gate_inputs)
        r, u = array_ops.split(value=value, num_or_size_splits=2, axis=1)
        r_state = r * state
        candidate = math_ops.matmul(array_ops.concat([inputs, r_state], 1), self._candidate_kernel)
        candidate = nn_ops.bias_add(candidate, self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "num_units": self._num_units, "reuse": self._reuse}


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """(c, h): an LSTM's memory and output state."""

    __slots__ = ()

    @property
    def dtype(self) -> Any:
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


class BasicLSTMCell(LayerRNNCell):
    """The basic LSTM cell (Zaremba et al., 2014): one matmul for the four gates, forget_bias
    added to the forget gate; no peepholes, clipping or projection."""

    def __init__(
        self,
        num_units: int,
        forget_bias: float = 1.0,
        state_is_tuple: bool = True,
        activation: Any = None,
        reuse: Any = None,
        name: Any = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        check_supported_dtypes(self.dtype)
        if not state_is_tuple:
            tf_logging.warning(
                "%s: Using a concatenated state is slower and will soon be deprecated.  Use "
                "state_is_tuple=True.",
                self,
            )
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = get_activation(activation) if activation else math_ops.tanh

    @property
    def state_size(self) -> Any:
        if self._state_is_tuple:
            return LSTMStateTuple(self._num_units, self._num_units)
        return 2 * self._num_units

    @property
    def output_size(self) -> Any:
        return self._num_units

    def build(self, input_shape: Any) -> None:  # TF's shape_type_conversion's name
        depth = _input_depth(input_shape)
        check_supported_dtypes(self.dtype)
        self._kernel = self.add_variable(
            _WEIGHTS_VARIABLE_NAME, shape=[depth + self._num_units, 4 * self._num_units]
        )
        self._bias = self.add_variable(
            _BIAS_VARIABLE_NAME,
            shape=[4 * self._num_units],
            initializer=_zeros_with_dtype(self.dtype),
        )
        self.built = True

    def call(self, inputs: Any, state: Any) -> Any:
        check_rnn_cell_input_dtypes([inputs, state])
        sigmoid = math_ops.sigmoid
        one = constant_op.constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        # i = input gate, j = new input, f = forget gate, o = output gate
        i, j, f, o = array_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias_tensor = constant_op.constant(self._forget_bias, dtype=f.dtype)
        add = math_ops.add
        multiply = math_ops.multiply
        new_c = add(
            multiply(c, sigmoid(add(f, forget_bias_tensor))),
            multiply(sigmoid(i), self._activation(j)),
        )
        new_h = multiply(self._activation(new_c), sigmoid(o))
        if self._state_is_tuple:
            new_state: Any = LSTMStateTuple(new_c, new_h)
        else:
            new_state = array_ops.concat([new_c, new_h], 1)
        return new_h, new_state

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "num_units": self._num_units,
            "forget_bias": self._forget_bias,
            "state_is_tuple": self._state_is_tuple,
            "reuse": self._reuse,
        }


class LSTMCell(LayerRNNCell):
    """The LSTM cell with optional peepholes (w_f_diag, w_i_diag, w_o_diag), cell clipping and
    an output projection (projection/kernel), as TF 1.15's LSTMCell."""

    def __init__(
        self,
        num_units: int,
        use_peepholes: bool = False,
        cell_clip: float | None = None,
        initializer: Any = None,
        num_proj: int | None = None,
        proj_clip: float | None = None,
        num_unit_shards: int | None = None,
        num_proj_shards: int | None = None,
        forget_bias: float = 1.0,
        state_is_tuple: bool = True,
        activation: Any = None,
        reuse: Any = None,
        name: Any = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        check_supported_dtypes(self.dtype)
        if not state_is_tuple:
            tf_logging.warning(
                "%s: Using a concatenated state is slower and will soon be deprecated.  Use "
                "state_is_tuple=True.",
                self,
            )
        if num_unit_shards is not None or num_proj_shards is not None:
            tf_logging.warning(
                "%s: The num_unit_shards and proj_unit_shards parameters are deprecated and "
                "will be removed in Jan 2017.  Use a variable scope with a partitioner instead.",
                self,
            )
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = _get_initializer(initializer)
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = get_activation(activation) if activation else math_ops.tanh
        if num_proj:
            self._state_size: Any = (
                LSTMStateTuple(num_units, num_proj) if state_is_tuple else num_units + num_proj
            )
            self._output_size = num_proj
        else:
            self._state_size = (
                LSTMStateTuple(num_units, num_units) if state_is_tuple else 2 * num_units
            )
            self._output_size = num_units

    @property
    def state_size(self) -> Any:
        return self._state_size

    @property
    def output_size(self) -> Any:
        return self._output_size

    def build(self, input_shape: Any) -> None:  # TF's shape_type_conversion's name
        depth = _input_depth(input_shape)
        check_supported_dtypes(self.dtype)
        h_depth = self._num_units if self._num_proj is None else self._num_proj
        unit_partitioner = (
            partitioned_variables.fixed_size_partitioner(self._num_unit_shards)
            if self._num_unit_shards is not None
            else None
        )
        self._kernel = self.add_variable(
            _WEIGHTS_VARIABLE_NAME,
            shape=[depth + h_depth, 4 * self._num_units],
            initializer=self._initializer,
            partitioner=unit_partitioner,
        )
        bias_init = (
            init_ops.zeros_initializer if self.dtype is None else _zeros_with_dtype(self.dtype)
        )
        self._bias = self.add_variable(
            _BIAS_VARIABLE_NAME, shape=[4 * self._num_units], initializer=bias_init
        )
        if self._use_peepholes:
            self._w_f_diag = self.add_variable(
                "w_f_diag", shape=[self._num_units], initializer=self._initializer
            )
            self._w_i_diag = self.add_variable(
                "w_i_diag", shape=[self._num_units], initializer=self._initializer
            )
            self._w_o_diag = self.add_variable(
                "w_o_diag", shape=[self._num_units], initializer=self._initializer
            )
        if self._num_proj is not None:
            proj_partitioner = (
                partitioned_variables.fixed_size_partitioner(self._num_proj_shards)
                if self._num_proj_shards is not None
                else None
            )
            self._proj_kernel = self.add_variable(
                f"projection/{_WEIGHTS_VARIABLE_NAME}",
                shape=[self._num_units, self._num_proj],
                initializer=self._initializer,
                partitioner=proj_partitioner,
            )
        self.built = True

    def call(self, inputs: Any, state: Any) -> Any:
        check_rnn_cell_input_dtypes([inputs, state])
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = math_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, self._num_units])
            m_prev = array_ops.slice(state, [0, self._num_units], [-1, num_proj])
        input_size = inputs.shape.with_rank(2).as_list()[1]
        if input_size is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        lstm_matrix = math_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel)
        lstm_matrix = nn_ops.bias_add(lstm_matrix, self._bias)
        # i = input gate, j = new input, f = forget gate, o = output gate
        i, j, f, o = array_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev + sigmoid(
                i + self._w_i_diag * c_prev
            ) * self._activation(j)
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = clip_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else array_ops.concat([c, m], 1)
        return m, new_state

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "num_units": self._num_units,
            "use_peepholes": self._use_peepholes,
            "cell_clip": self._cell_clip,
            "num_proj": self._num_proj,
            "proj_clip": self._proj_clip,
            "num_unit_shards": self._num_unit_shards,
            "num_proj_shards": self._num_proj_shards,
            "forget_bias": self._forget_bias,
            "state_is_tuple": self._state_is_tuple,
            "reuse": self._reuse,
        }


class MultiRNNCell(RNNCell):
    """Cells stacked: the output of one is the input of the next; cell i's variables live in
    `cell_<i>/`. The state is a tuple of the cells' states (or, with state_is_tuple=False,
    their concatenation)."""

    def __init__(self, cells: Any, state_is_tuple: bool = True) -> None:
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_sequence(cells):
            raise TypeError(f"cells must be a list or tuple, but saw: {cells}.")
        if len({id(c) for c in cells}) < len(cells):
            tf_logging.log_first_n(
                tf_logging.WARN,
                "At least two cells provided to MultiRNNCell are the same object and will share "
                "weights.",
                1,
            )
        self._cells = cells
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_sequence(c.state_size) for c in cells):
            raise ValueError(
                "Some cells return tuples of states, but the flag state_is_tuple is not set.  "
                f"State sizes are: {[c.state_size for c in cells]}"
            )

    @property
    def state_size(self) -> Any:
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self) -> Any:
        return self._cells[-1].output_size

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return super().zero_state(batch_size, dtype)

    @property
    def trainable_weights(self) -> list[Any]:
        if not self.trainable:
            return []
        weights: list[Any] = []
        for cell in self._cells:
            if isinstance(cell, Layer):
                weights += cell.trainable_weights
        return weights

    @property
    def non_trainable_weights(self) -> list[Any]:
        weights: list[Any] = []
        for cell in self._cells:
            if isinstance(cell, Layer):
                weights += cell.non_trainable_weights
        if not self.trainable:
            trainable: list[Any] = []
            for cell in self._cells:
                if isinstance(cell, Layer):
                    trainable += cell.trainable_weights
            return trainable + weights
        return weights

    def call(self, inputs: Any, state: Any) -> Any:
        cur_state_pos = 0
        cur_inp = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with vs.variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not nest.is_sequence(state):
                        raise ValueError(
                            f"Expected state to be a tuple of length {len(self.state_size)}, but "
                            f"received: {state}"
                        )
                    cur_state = state[i]
                else:
                    cur_state = array_ops.slice(state, [0, cur_state_pos], [-1, cell.state_size])
                    cur_state_pos += cell.state_size
                cur_inp, new_state = cell(cur_inp, cur_state)
                new_states.append(new_state)
        joined = tuple(new_states) if self._state_is_tuple else array_ops.concat(new_states, 1)
        return cur_inp, joined


def _input_depth(inputs_shape: Any) -> int:
    if inputs_shape is None or inputs_shape[-1] is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {inputs_shape}")
    return int(inputs_shape[-1])


__all__ = [
    "BasicLSTMCell",
    "BasicRNNCell",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "LayerRNNCell",
    "MultiRNNCell",
    "RNNCell",
    "assert_like_rnncell",
    "concat_shapes",
    "zero_state_tensors",
]
