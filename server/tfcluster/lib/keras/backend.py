"""tf.keras.backend as TF 1.15 has it in graph mode: one session per process (made on first
use over the default graph, or the one set with set_session), the learning-phase placeholder
(`keras_learning_phase`, False by default), floatx/epsilon, and the small tensor helpers
Keras programs call (placeholder, variable, eval, get_value, set_value, int_shape, ...)."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from tfcluster.client.session import Session
from tfcluster.framework import default_session, device_spec, dtypes, errors
from tfcluster.framework.graph import (
    Graph,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    reset_default_graph,
)
from tfcluster.framework.graph import (
    name_scope as _name_scope,
)
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.layers import base as layers_base
from tfcluster.ops import array_ops, constant_op, math_ops, variables

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_SESSION: Session | None = None
_MANUAL_VAR_INIT = False
# The learning phase per graph: a placeholder_with_default(False), or an int set by hand.
_GRAPH_LEARNING_PHASES: weakref.WeakKeyDictionary[Graph, Any] = weakref.WeakKeyDictionary()
# Variables Keras initializes though no collection holds them (metrics' state, as TF 1.15's
# track_variable keeps them), per graph.
_GRAPH_VARIABLES: weakref.WeakKeyDictionary[Graph, list[Any]] = weakref.WeakKeyDictionary()


def track_variable(v: Any) -> None:
    """Keras's session initializes v though it is in no collection."""
    _GRAPH_VARIABLES.setdefault(v.graph, []).append(v)


def unimplemented(what: str) -> Exception:
    return errors.UnimplementedError(
        None, None, f"{what} is not implemented in tfcluster (it is part of TensorFlow 1.15's API)"
    )


# ---- configuration -------------------------------------------------------------------------
def floatx() -> str:
    return _FLOATX


def set_floatx(value: str) -> None:
    global _FLOATX
    if value not in ("float16", "float32", "float64"):
        raise ValueError(f"Unknown floatx type: {value}")
    _FLOATX = str(value)


def epsilon() -> float:
    return _EPSILON


def set_epsilon(value: float) -> None:
    global _EPSILON
    _EPSILON = value


def image_data_format() -> str:
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format: str) -> None:
    global _IMAGE_DATA_FORMAT
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"Unknown data_format: {data_format}")
    _IMAGE_DATA_FORMAT = data_format


def cast_to_floatx(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=_FLOATX)


def manual_variable_initialization(value: bool) -> None:
    global _MANUAL_VAR_INIT
    _MANUAL_VAR_INIT = value


# ---- names ---------------------------------------------------------------------------------
def get_uid(prefix: str = "") -> int:
    """1, 2, ... per prefix and graph (Keras's get_uid: the same counters layer names use)."""
    name = layers_base.unique_object_name(prefix)
    return int(name.rsplit("_", 1)[1])


def reset_uids() -> None:
    layers_base._NAME_UIDS.pop(get_default_graph(), None)


# ---- the session ---------------------------------------------------------------------------
def get_session(op_input_list: Any = ()) -> Session:
    """The default session if one is entered, else Keras's own session (made on first use
    over the default graph, and again when its graph is not op_input_list's graph, the
    default one when the list is empty); variables it has not initialized yet are
    initialized."""
    global _SESSION
    from tfcluster.framework.graph import get_graph_from_inputs

    session = default_session.get_default_session()
    if session is None:
        graph = get_graph_from_inputs(list(op_input_list))
        if _SESSION is None or _SESSION.graph is not graph or _closed(_SESSION):
            _SESSION = Session(graph=get_default_graph())
        session = _SESSION
    if not _MANUAL_VAR_INIT:
        _initialize_variables(session)
    return session  # type: ignore[no-any-return]


# The devices the Keras session lists, asked once per process (TF 1.15's _LOCAL_DEVICES).
_LOCAL_DEVICES: list[Any] | None = None


def has_nchw_support() -> bool:
    """TF 1.15's _has_nchw_support: not placed on the CPU explicitly and a GPU listed. The
    first ask of the process opens the Keras session (get_session, which initializes the
    graph's variables: its VarIsInitializedOp ops and `init` count towards later op seeds)."""
    global _LOCAL_DEVICES
    explicitly_on_cpu = _current_device_type() == "CPU"
    if _LOCAL_DEVICES is None:
        _LOCAL_DEVICES = list(get_session().list_devices())
    gpus_available = any(d.device_type == "GPU" for d in _LOCAL_DEVICES)
    return not explicitly_on_cpu and gpus_available


class _DeviceCapture:
    """What the device scopes would give a new op (TF's _TfDeviceCaptureOp)."""

    type = None
    name = ""
    device = ""

    def _set_device(self, device: Any) -> None:
        self.device = str(device or "")


def _current_device_type() -> str | None:
    capture = _DeviceCapture()
    get_default_graph()._apply_device_functions(capture)  # type: ignore[arg-type]
    if not capture.device:
        return None
    device_type = device_spec.DeviceSpec.from_string(capture.device).device_type
    return device_type.upper() if device_type else None


def _closed(session: Any) -> bool:
    return bool(getattr(session, "_closed", False))


def _initialize_variables(session: Any) -> None:
    graph = session.graph
    candidates = [v for v in _graph_variables(graph) if not getattr(v, "_keras_initialized", False)]
    if not candidates:
        return
    with graph.as_default():
        flags = session.run([variables.is_variable_initialized(v) for v in candidates])
        pending = [v for v, done in zip(candidates, flags) if not done]
        for v in candidates:
            marked: Any = v  # as TF 1.15's Keras marks them
            marked._keras_initialized = True
        if pending:
            session.run(variables.variables_initializer(pending))


def _graph_variables(graph: Graph) -> list[Any]:
    with graph.as_default():
        found = variables.global_variables() + variables.local_variables()
    seen = {id(v) for v in found}
    return found + [v for v in _GRAPH_VARIABLES.get(graph, []) if id(v) not in seen]


def set_session(session: Any) -> None:
    global _SESSION
    _SESSION = session


def clear_session() -> None:
    """A fresh default graph, no Keras session, layer-name counters and learning phase reset."""
    global _SESSION
    reset_default_graph()
    _SESSION = None
    _GRAPH_LEARNING_PHASES.clear()
    # TF 1.15 makes the new graph's `keras_learning_phase` at once: its two ops come first, and
    # the op count sets the seeds of the initializers made after.
    learning_phase()


# ---- learning phase ------------------------------------------------------------------------
def learning_phase() -> Any:
    """The graph's learning phase: a bool placeholder defaulting to False (1.15's
    `keras_learning_phase`), or the 0/1 set with set_learning_phase."""
    graph = get_default_graph()
    if graph not in _GRAPH_LEARNING_PHASES:
        with _name_scope(""):
            _GRAPH_LEARNING_PHASES[graph] = array_ops.placeholder_with_default(
                False, shape=(), name="keras_learning_phase"
            )
    return _GRAPH_LEARNING_PHASES[graph]


def learning_phase_if_made() -> Any:
    """The graph's learning phase if a layer or a train function made it, else None (TF 1.15's
    predict feeds it only when the model uses it)."""
    return _GRAPH_LEARNING_PHASES.get(get_default_graph())


def set_learning_phase(value: int) -> None:
    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")
    _GRAPH_LEARNING_PHASES[get_default_graph()] = value


def symbolic_learning_phase() -> Any:
    return learning_phase()


# ---- tensors -------------------------------------------------------------------------------
def is_sparse(tensor: Any) -> bool:
    return False


def placeholder(
    shape: Any = None,
    ndim: int | None = None,
    dtype: Any = None,
    sparse: bool = False,
    name: str | None = None,
    ragged: bool = False,
) -> Tensor:
    if sparse or ragged:
        raise unimplemented("tf.keras.backend.placeholder with sparse=True or ragged=True")
    dtype = dtype or floatx()
    if shape is None and ndim:
        shape = (None,) * ndim
    x = array_ops.placeholder(dtype, shape=shape, name=name)
    return x


def is_placeholder(x: Any) -> bool:
    return isinstance(x, Tensor) and x.op.type == "Placeholder"


def variable(value: Any, dtype: Any = None, name: str | None = None, constraint: Any = None) -> Any:
    dtype = dtype or floatx()
    # TF 1.15's K.variable makes a tf.Variable of the v2 class: a resource variable.
    v = variables.Variable(
        np.asarray(value, dtype=dtypes.as_dtype(dtype).as_numpy_dtype),
        dtype=dtype,
        name=name,
        constraint=constraint,
        use_resource=True,
    )
    return v


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str | None = None) -> Any:
    from tfcluster.ops import constant_op

    return constant_op.constant(value, dtype=dtype or floatx(), shape=shape, name=name or "Const")


def zeros(shape: Any, dtype: Any = None, name: str | None = None) -> Any:
    """TF 1.15's K.zeros: array_ops.zeros (`zeros`), then a resource variable made from it
    when no dimension is 0 (else the tensor)."""
    dtype = dtype or floatx()
    value = array_ops.zeros(shape, dtype=dtype, name=name)
    if not all(value.shape.as_list()):
        return value
    return variables.Variable(value, dtype=dtype, name=name, use_resource=True)


def ones(shape: Any, dtype: Any = None, name: str | None = None) -> Any:
    return variable(np.ones(shape), dtype=dtype, name=name)


def int_shape(x: Any) -> tuple[Any, ...] | None:
    shape = x.shape if hasattr(x, "shape") else TensorShape(np.shape(x))
    shape = TensorShape(shape)
    if shape.ndims is None:
        return None
    return tuple(shape.as_list())


def shape(x: Any) -> Any:
    return array_ops.shape(x)


def ndim(x: Any) -> int | None:
    return TensorShape(x.shape).ndims


def dtype(x: Any) -> str:
    return str(x.dtype.base_dtype.name)


def count_params(x: Any) -> int:
    return int(np.prod(int_shape(x) or ()))


def cast(x: Any, dtype: Any) -> Any:
    return math_ops.cast(x, dtype)


def eval(x: Any) -> Any:
    return get_value(convert_to_tensor(x) if not isinstance(x, variables.Variable) else x)


def get_value(x: Any) -> Any:
    return get_session().run(x)


def batch_get_value(tensors: list[Any]) -> list[Any]:
    return list(get_session().run(list(tensors))) if tensors else []


def set_value(x: Any, value: Any) -> None:
    batch_set_value([(x, value)])


def batch_set_value(tuples: list[tuple[Any, Any]]) -> None:
    """Assigns each value through one cached placeholder per variable (as Keras does)."""
    if not tuples:
        return
    # The assignments first, then the session (TF 1.15's order: a first call's placeholders
    # come before the session's variable initialization ops).
    ops, feed = [], {}
    for x, value in tuples:
        value = np.asarray(value, dtype=x.dtype.base_dtype.as_numpy_dtype)
        cached = getattr(x, "_keras_assign", None)
        if cached is None:
            with x.graph.as_default() if hasattr(x, "graph") else get_default_graph().as_default():
                ph = array_ops.placeholder(x.dtype.base_dtype, shape=value.shape)
                cached = (ph, x.assign(ph))
            holder: Any = x
            holder._keras_assign = cached
        ops.append(cached[1])
        feed[cached[0]] = value
    get_session().run(ops, feed_dict=feed)


def function(
    inputs: list[Any], outputs: Any, updates: Any = None, name: str | None = None, **kwargs: Any
) -> Any:
    """A callable that feeds `inputs` with its arguments and returns the run `outputs`
    (TF 1.15's GraphExecutionFunction)."""
    from tfcluster.lib.keras.backend_function import GraphExecutionFunction

    return GraphExecutionFunction(inputs, outputs, updates=updates, name=name, **kwargs)


# ---- a few maths helpers programs reach for -------------------------------------------------
def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = convert_to_tensor(x)
    if x.dtype.base_dtype == dtypes.bool_:
        x = math_ops.cast(x, floatx())  # as TF 1.15: the mean of booleans is a fraction
    return math_ops.reduce_mean(x, axis=axis, keepdims=keepdims)


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return math_ops.reduce_sum(x, axis=axis, keepdims=keepdims)


def square(x: Any) -> Any:
    return math_ops.square(x)


def _constant_to_tensor(x: Any, dtype: Any) -> Any:
    """A bound as TF's Keras backend makes it: a Const of x's dtype (tensors kept)."""
    if isinstance(x, Tensor) or hasattr(x, "op"):
        return x
    return constant_op.constant(x, dtype=dtype)


def sqrt(x: Any) -> Any:
    """sqrt of x clipped to [0, inf] first (TF 1.15's K.sqrt: negatives give 0, not NaN)."""
    from tfcluster.ops import clip_ops

    dtype = x.dtype.base_dtype
    zero = _constant_to_tensor(0.0, dtype)
    inf = _constant_to_tensor(np.inf, dtype)
    return math_ops.sqrt(clip_ops.clip_by_value(x, zero, inf))


def exp(x: Any) -> Any:
    return math_ops.exp(x)


def log(x: Any) -> Any:
    return math_ops.log(x)


def abs(x: Any) -> Any:
    return math_ops.abs(x)


def clip(x: Any, min_value: Any, max_value: Any) -> Any:
    """clip_by_value between two Consts of x's dtype (max_value None: inf; below
    min_value: min_value), as TF 1.15's K.clip."""
    from tfcluster.ops import clip_ops

    if max_value is not None and _is_number(max_value) and _is_number(min_value):
        max_value = max(max_value, min_value)
    if max_value is None:
        max_value = np.inf
    if not hasattr(x, "dtype"):
        x = convert_to_tensor(x)
    dtype = x.dtype.base_dtype
    min_value = _constant_to_tensor(min_value, dtype)
    max_value = _constant_to_tensor(max_value, dtype)
    return clip_ops.clip_by_value(x, min_value, max_value)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.number))


def concatenate(tensors: list[Any], axis: int = -1) -> Any:
    return array_ops.concat(list(tensors), axis)


def reshape(x: Any, shape: Any) -> Any:
    return array_ops.reshape(x, shape)


def expand_dims(x: Any, axis: int = -1) -> Any:
    return array_ops.expand_dims(x, axis)


def squeeze(x: Any, axis: int) -> Any:
    return array_ops.squeeze(x, [axis])


def dot(x: Any, y: Any) -> Any:
    """matmul; for N-D operands, x's last axis against y's second to last (as TF 1.15)."""
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    if (x.shape.ndims or 0) <= 2 and (y.shape.ndims or 0) <= 2:
        return math_ops.matmul(x, y)
    x_shape = [
        d if d is not None else s
        for d, s in zip(x.shape.as_list(), array_ops.unstack(array_ops.shape(x)))
    ]
    y_shape = [
        d if d is not None else s
        for d, s in zip(y.shape.as_list(), array_ops.unstack(array_ops.shape(y)))
    ]
    perm = list(range(y.shape.ndims))
    perm = [perm.pop(-2), *perm]
    xt = array_ops.reshape(x, [-1, x_shape[-1]])
    yt = array_ops.reshape(array_ops.transpose(y, perm=perm), [y_shape[-2], -1])
    out_shape = x_shape[:-1] + y_shape[:-2] + y_shape[-1:]
    return array_ops.reshape(
        math_ops.matmul(xt, yt),
        array_ops.stack(out_shape) if any(isinstance(d, Tensor) for d in out_shape) else out_shape,
    )


def argmax(x: Any, axis: int = -1) -> Any:
    return math_ops.argmax(x, axis)


def name_scope(name: str, default_name: str | None = None, values: Any = None) -> Any:
    """TF 1.15's K.name_scope is tf.name_scope (v1's)."""
    return _name_scope(name, default_name, values)


def gradients(loss: Any, variables: Any) -> Any:
    from tfcluster.gradients.gradients_impl import gradients as _gradients

    return _gradients(loss, variables, colocate_gradients_with_ops=True)


def stop_gradient(variables: Any) -> Any:
    """A list of tensors gives each without gradient (TF 1.15 returns them as a map)."""
    if isinstance(variables, (list, tuple)):
        return [array_ops.stop_gradient(v) for v in variables]
    return array_ops.stop_gradient(variables)


def update(x: Any, new_x: Any) -> Any:
    return x.assign(new_x)


def update_add(x: Any, increment: Any) -> Any:
    return x.assign_add(increment)


def update_sub(x: Any, decrement: Any) -> Any:
    return x.assign_sub(decrement)


def backend() -> str:
    """The name of Keras's backend: TF 1.15's tf.keras always answers "tensorflow"."""
    return "tensorflow"
