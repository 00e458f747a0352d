"""What the tf.layers layers share (TF 1.15's layers/utils.py and Keras's conv_utils,
activations and initializers as tf.layers reads them): argument normalisation, output-size
arithmetic, `smart_cond` on a Python or tensor predicate, and activations/initializers/
regularisers given by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import tensor_util
from tfcluster.framework.graph import Tensor
from tfcluster.lib.keras import regularizers
from tfcluster.ops import control_flow_ops, init_ops, math_ops, nn_ops
from tfcluster.ops.variables import Variable


# ---- arguments ---------------------------------------------------------------------------------
def normalize_tuple(value: Any, n: int, name: str) -> tuple[int, ...]:
    """An int or n ints as a tuple of n ints (Keras's conv_utils.normalize_tuple)."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    try:
        values = tuple(value)
    except TypeError:
        raise ValueError(
            f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
        ) from None
    if len(values) != n:
        raise ValueError(
            f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
        )
    for v in values:
        try:
            int(v)
        except (ValueError, TypeError):
            raise ValueError(
                f"The `{name}` argument must be a tuple of {n} integers. Received: {value} "
                f"including element {v} of type {type(v)}"
            ) from None
    return tuple(int(v) for v in values)


def normalize_data_format(value: Any) -> str:
    data_format = "channels_last" if value is None else str(value).lower()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(
            'The `data_format` argument must be one of "channels_first", "channels_last". '
            f"Received: {value}"
        )
    return data_format


def normalize_padding(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return value  # type: ignore[return-value]
    padding = str(value).lower()
    if padding not in ("valid", "same", "causal"):
        raise ValueError(
            f'The `padding` argument must be one of "valid", "same" (or "causal", only for '
            f"`Conv1D). Received: {padding}"
        )
    return padding


def convert_data_format(data_format: str, ndim: int) -> str:
    table = {
        "channels_last": {3: "NWC", 4: "NHWC", 5: "NDHWC"},
        "channels_first": {3: "NCW", 4: "NCHW", 5: "NCDHW"},
    }
    if data_format not in table:
        raise ValueError("Invalid data_format:", data_format)
    if ndim not in table[data_format]:
        raise ValueError("Input rank not supported:", ndim)
    return table[data_format][ndim]


def conv_output_length(
    input_length: int | None, filter_size: int, padding: str, stride: int, dilation: int = 1
) -> int | None:
    if input_length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if padding in ("same", "causal"):
        length = input_length
    elif padding == "valid":
        length = input_length - dilated + 1
    elif padding == "full":
        length = input_length + dilated - 1
    else:
        raise ValueError(f"Unknown padding {padding!r}")
    return (length + stride - 1) // stride


def deconv_output_length(
    input_length: Any,
    filter_size: int,
    padding: str,
    output_padding: int | None = None,
    stride: int = 0,
    dilation: int = 1,
) -> Any:
    """The transposed convolution's output length (Keras's conv_utils, TF 1.15)."""
    if input_length is None:
        return None
    filter_size = filter_size + (filter_size - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return input_length * stride + max(filter_size - stride, 0)
        if padding == "full":
            return input_length * stride - (stride + filter_size - 2)
        return input_length * stride
    pad = {"same": filter_size // 2, "valid": 0, "full": filter_size - 1}[padding]
    return (input_length - 1) * stride + filter_size - 2 * pad + output_padding


# ---- activations, initializers, regularizers by name ------------------------------------------
def _linear(x: Any) -> Any:
    return x


_ACTIVATIONS: dict[str, Callable[..., Any]] = {
    "relu": nn_ops.relu,
    "relu6": nn_ops.relu6,
    "elu": nn_ops.elu,
    "selu": nn_ops.selu,
    "softplus": nn_ops.softplus,
    "softsign": nn_ops.softsign,
    "softmax": nn_ops.softmax,
    "sigmoid": math_ops.sigmoid,
    "tanh": math_ops.tanh,
    "linear": _linear,
}


def get_activation(identifier: Any) -> Callable[..., Any] | None:
    if identifier is None or callable(identifier):
        return identifier  # type: ignore[no-any-return]
    if isinstance(identifier, str) and identifier in _ACTIVATIONS:
        fn = _ACTIVATIONS[identifier]
        return None if fn is _linear else fn
    raise ValueError(f"Unknown activation function:{identifier}")


_INITIALIZERS: dict[str, Callable[[], Any]] = {
    "zeros": init_ops.zeros_initializer,
    "ones": init_ops.ones_initializer,
    "constant": init_ops.constant_initializer,
    "glorot_uniform": init_ops.glorot_uniform_initializer,
    "glorot_normal": init_ops.glorot_normal_initializer,
    "he_normal": init_ops.he_normal,
    "he_uniform": init_ops.he_uniform,
    "lecun_normal": init_ops.lecun_normal,
    "lecun_uniform": init_ops.lecun_uniform,
    "random_normal": init_ops.random_normal_initializer,
    "random_uniform": init_ops.random_uniform_initializer,
    "truncated_normal": init_ops.truncated_normal_initializer,
    "orthogonal": init_ops.orthogonal_initializer,
    "identity": init_ops.identity_initializer,
    "variance_scaling": init_ops.variance_scaling_initializer,
}


def get_initializer(identifier: Any) -> Any:
    """An initializer from None, a name ('glorot_uniform', 'zeros', ...), a class or an
    instance/callable (returned as it is)."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        key = identifier.lower()
        if key not in _INITIALIZERS:
            raise ValueError(f"Unknown initializer: {identifier}")
        return _INITIALIZERS[key]()
    if isinstance(identifier, type):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


def get_regularizer(identifier: Any) -> Any:
    return regularizers.get(identifier)


# ---- smart_cond ----------------------------------------------------------------------------------
def constant_value(pred: Any) -> bool | None:
    """The value of a Python or constant-tensor predicate, None when only a run knows it."""
    if isinstance(pred, (int, np.integer)) and not isinstance(pred, bool) and pred in (0, 1):
        pred = bool(pred)
    if isinstance(pred, Variable):
        return None
    if isinstance(pred, (bool, np.bool_)):
        return bool(pred)
    if isinstance(pred, Tensor):
        value = tensor_util.constant_value(pred)
        return None if value is None else bool(value)
    raise TypeError(
        f"`pred` must be a Tensor, or a Python bool, or 1 or 0. Found instead: {pred!r}"
    )


def smart_cond(
    pred: Any,
    true_fn: Callable[[], Any],
    false_fn: Callable[[], Any],
    name: str | None = None,
) -> Any:
    """true_fn() or false_fn() when pred is known when building, else tf.cond."""
    value = constant_value(pred)
    if value is None:
        return control_flow_ops.cond(pred, true_fn=true_fn, false_fn=false_fn, name=name)
    return true_fn() if value else false_fn()
