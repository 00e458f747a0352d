"""The rest of tf.keras.backend's tensor functions (TF 1.15): reductions, comparisons,
element-wise maths, shapes, padding/resizing, random tensors, convolutions and pools by
Keras's data_format, the learning-phase switches, and K.rnn (unrolled over known time steps).
Each builds the TF ops TF 1.15's backend builds, so values (and gradients) are TF's."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.keras import backend
from tfcluster.ops import (
    array_ops,
    constant_op,
    control_flow_ops,
    conv_ops,
    functional_ops,
    logging_ops,
    math_ops,
    nn_ops,
    pooling_ops,
    random_ops,
    state_ops,
    variables,
)


def _rank(x: Any) -> int:
    """The static rank (Keras's backend needs it known)."""
    ndims = convert_to_tensor(x).shape.ndims
    if ndims is None:
        raise ValueError(f"The rank of {x} must be known.")
    return int(ndims)


def _dims(x: Any) -> list[Any]:
    """K.int_shape as a list: a variable's or tensor's static shape, read without making an
    op (a resource variable converted to a tensor would add a read TF's graph lacks)."""
    shape = getattr(x, "shape", None)
    if isinstance(shape, TensorShape):
        return list(shape.as_list())
    return list(convert_to_tensor(x).shape.as_list())


def _bool_to_float(x: Any) -> Any:
    x = convert_to_tensor(x)
    return math_ops.cast(x, backend.floatx()) if x.dtype.base_dtype == dtypes.bool_ else x


# ---- reductions ---------------------------------------------------------------------------
def max(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return math_ops.reduce_max(x, axis=axis, keepdims=keepdims)


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return math_ops.reduce_min(x, axis=axis, keepdims=keepdims)


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return math_ops.reduce_prod(x, axis=axis, keepdims=keepdims)


def var(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    x = _bool_to_float(x)
    m = math_ops.reduce_mean(x, axis=axis, keepdims=True)
    return math_ops.reduce_mean(math_ops.square(x - m), axis=axis, keepdims=keepdims)


def std(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return math_ops.sqrt(var(x, axis=axis, keepdims=keepdims))


def all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return math_ops.reduce_all(math_ops.cast(x, dtypes.bool_), axis=axis, keepdims=keepdims)


def any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return math_ops.reduce_any(math_ops.cast(x, dtypes.bool_), axis=axis, keepdims=keepdims)


def argmin(x: Any, axis: int = -1) -> Any:
    return math_ops.argmin(x, axis)


def cumsum(x: Any, axis: int = 0) -> Any:
    return math_ops.cumsum(x, axis=axis)


def cumprod(x: Any, axis: int = 0) -> Any:
    return math_ops.cumprod(x, axis=axis)


# ---- element-wise -------------------------------------------------------------------------
def equal(x: Any, y: Any) -> Any:
    return math_ops.equal(x, y)


def not_equal(x: Any, y: Any) -> Any:
    return math_ops.not_equal(x, y)


def greater(x: Any, y: Any) -> Any:
    return math_ops.greater(x, y)


def greater_equal(x: Any, y: Any) -> Any:
    return math_ops.greater_equal(x, y)


def less(x: Any, y: Any) -> Any:
    return math_ops.less(x, y)


def less_equal(x: Any, y: Any) -> Any:
    return math_ops.less_equal(x, y)


def maximum(x: Any, y: Any) -> Any:
    return math_ops.maximum(x, y)


def minimum(x: Any, y: Any) -> Any:
    return math_ops.minimum(x, y)


def sin(x: Any) -> Any:
    return math_ops.sin(x)


def cos(x: Any) -> Any:
    return math_ops.cos(x)


def sign(x: Any) -> Any:
    return math_ops.sign(x)


def round(x: Any) -> Any:
    return math_ops.round(x)


def pow(x: Any, a: Any) -> Any:
    return math_ops.pow(x, a)


# ---- shapes and building tensors ------------------------------------------------------------
def zeros_like(x: Any, dtype: Any = None, name: str | None = None) -> Any:
    return array_ops.zeros_like(x, dtype=dtype, name=name)


def ones_like(x: Any, dtype: Any = None, name: str | None = None) -> Any:
    return array_ops.ones_like(x, dtype=dtype, name=name)


def eye(size: Any, dtype: Any = None, name: str | None = None) -> Any:
    from tfcluster.ops import linalg_ops

    if dtype is None:
        dtype = backend.floatx()
    return backend.variable(linalg_ops.eye(size, dtype=dtype), dtype, name)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: str = "int32") -> Any:
    if stop is None and start < 0:
        start = 0
    result = math_ops.range(start, limit=stop, delta=step, name="arange")
    if dtype != "int32":
        result = math_ops.cast(result, dtype)
    return result


def one_hot(indices: Any, num_classes: int) -> Any:
    return array_ops.one_hot(indices, depth=num_classes, axis=-1)


def transpose(x: Any) -> Any:
    return array_ops.transpose(x)


def permute_dimensions(x: Any, pattern: Any) -> Any:
    return array_ops.transpose(x, perm=list(pattern))


def gather(reference: Any, indices: Any) -> Any:
    return array_ops.gather(reference, indices)


def stack(x: Any, axis: int = 0) -> Any:
    return array_ops.stack(list(x), axis=axis)


def tile(x: Any, n: Any) -> Any:
    if isinstance(n, int):
        n = [n]
    return array_ops.tile(x, n)


def reverse(x: Any, axes: Any) -> Any:
    if isinstance(axes, int):
        axes = [axes]
    return array_ops.reverse(x, axes)


def flatten(x: Any) -> Any:
    return array_ops.reshape(x, [-1])


def batch_flatten(x: Any) -> Any:
    x = convert_to_tensor(x)
    dims: list[Any] = x.shape.as_list() if x.shape.ndims is not None else [None, None]
    if builtins.all(d is not None for d in dims[1:]):
        # TF's shape inference folds the product of known dimensions: the same static shape.
        size = 1
        for d in dims[1:]:
            size *= int(d)
        out = array_ops.reshape(x, [-1, size])
        out.set_shape([dims[0], size])
        return out
    return array_ops.reshape(x, array_ops.stack([-1, math_ops.reduce_prod(array_ops.shape(x)[1:])]))


def repeat(x: Any, n: int) -> Any:
    """[batch, dim] -> [batch, n, dim]."""
    x = array_ops.expand_dims(x, 1)
    return array_ops.tile(x, array_ops.stack([1, n, 1]))


def repeat_elements(x: Any, rep: int, axis: int) -> Any:
    """Each slice along `axis` repeated `rep` times, with TF 1.15's ops: a known axis is
    split and its slices concatenated; an unknown one tiled on a new axis and reshaped to the
    input's shape times the repeats. (An UpSampling1D/3D then makes TF's op count, which a
    seeded layer built after it takes its op seed from.)"""
    x = convert_to_tensor(x)
    x_shape = x.shape.as_list()
    if x_shape[axis] is not None:
        splits = array_ops.split(value=x, num_or_size_splits=x_shape[axis], axis=axis)
        x_rep = [s for s in splits for _ in range(rep)]
        concat_axis = axis % len(x_shape) if axis < 0 else axis
        return array_ops.concat(x_rep, concat_axis)
    auxiliary_axis = axis + 1
    dynamic_shape = array_ops.shape(x)
    tiled = array_ops.expand_dims(x, axis=auxiliary_axis)
    reps = np.ones(len(x_shape) + 1, dtype=np.int32)
    reps[auxiliary_axis] = rep
    tiled = array_ops.tile(tiled, reps)
    reps = np.delete(reps, auxiliary_axis)
    reps[axis] = rep
    dynamic_shape = dynamic_shape * constant_op.constant(reps, dtype=dtypes.int32)
    out = array_ops.reshape(tiled, dynamic_shape)
    out.set_shape(x_shape)
    return out


def to_dense(tensor: Any) -> Any:
    from tfcluster.framework.sparse_tensor import SparseTensor
    from tfcluster.ops import sparse_ops

    if isinstance(tensor, SparseTensor):
        return sparse_ops.sparse_tensor_to_dense(tensor)
    return tensor


def batch_dot(x: Any, y: Any, axes: Any = None) -> Any:
    """TF 1.15's batch_dot: a dot per sample over `axes` (default: x's last, y's second to
    last), a 1-D result made [batch, 1]."""
    if isinstance(axes, int):
        axes = (axes, axes)
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    x_ndim, y_ndim = _rank(x), _rank(y)
    if axes is None:
        axes = [x_ndim - 1, y_ndim - 2]
    diff = 0
    if x_ndim > y_ndim:
        diff = x_ndim - y_ndim
        y = array_ops.reshape(y, array_ops.concat([array_ops.shape(y), [1] * diff], axis=0))
    elif y_ndim > x_ndim:
        diff = y_ndim - x_ndim
        x = array_ops.reshape(x, array_ops.concat([array_ops.shape(x), [1] * diff], axis=0))
    nx, ny = builtins.max(x_ndim, y_ndim), builtins.max(x_ndim, y_ndim)
    if nx == 2 and ny == 2:
        if axes[0] == axes[1]:
            out = math_ops.reduce_sum(math_ops.multiply(x, y), axes[0])
        else:
            out = math_ops.reduce_sum(math_ops.multiply(array_ops.transpose(x, [1, 0]), y), axes[1])
    else:
        adj_x = axes[0] != nx - 1
        adj_y = axes[1] == ny - 1
        out = math_ops.matmul(x, y, adjoint_a=adj_x, adjoint_b=adj_y)
    if diff:
        idx = x_ndim + y_ndim - 3 if x_ndim > y_ndim else x_ndim - 1
        out = array_ops.squeeze(out, list(builtins.range(idx, idx + diff)))
    if out.shape.ndims == 1:
        out = array_ops.expand_dims(out, 1)
    return out


# ---- padding and resizing ------------------------------------------------------------------
def temporal_padding(x: Any, padding: Any = (1, 1)) -> Any:
    return array_ops.pad(x, [[0, 0], list(padding), [0, 0]])


def spatial_2d_padding(
    x: Any, padding: Any = ((1, 1), (1, 1)), data_format: str | None = None
) -> Any:
    data_format = data_format or backend.image_data_format()
    spatial = [list(padding[0]), list(padding[1])]
    if data_format == "channels_first":
        pattern = [[0, 0], [0, 0], *spatial]
    else:
        pattern = [[0, 0], *spatial, [0, 0]]
    return array_ops.pad(x, pattern)


def spatial_3d_padding(
    x: Any, padding: Any = ((1, 1), (1, 1), (1, 1)), data_format: str | None = None
) -> Any:
    data_format = data_format or backend.image_data_format()
    spatial = [list(p) for p in padding]
    if data_format == "channels_first":
        pattern = [[0, 0], [0, 0], *spatial]
    else:
        pattern = [[0, 0], *spatial, [0, 0]]
    return array_ops.pad(x, pattern)


def resize_images(
    x: Any,
    height_factor: int,
    width_factor: int,
    data_format: str,
    interpolation: str = "nearest",
) -> Any:
    """TF 1.15's K.resize_images: the new size is the input's run-time shape times the
    factors, and resize_images_v2 (half-pixel centres, under a `resize` name scope) makes
    it, so an UpSampling2D makes TF's ops (and the op count a later seeded initializer
    takes its seed from)."""
    from tfcluster.ops import image_ops

    if data_format == "channels_first":
        rows, cols = 2, 3
    elif data_format == "channels_last":
        rows, cols = 1, 2
    else:
        raise ValueError(f"Invalid `data_format` argument: {data_format}")
    original = _dims(x)
    new_shape = array_ops.shape(x)[rows : cols + 1]
    new_shape = new_shape * constant_op.constant(
        np.array([height_factor, width_factor], dtype="int32")
    )
    if data_format == "channels_first":
        x = permute_dimensions(x, [0, 2, 3, 1])
    if interpolation == "nearest":
        resizer = image_ops.resize_nearest_neighbor
    elif interpolation == "bilinear":
        resizer = image_ops.resize_bilinear
    else:
        raise ValueError('interpolation should be one of "nearest" or "bilinear".')
    with name_scope(None, "resize", [x, new_shape]):
        x = resizer(x, new_shape, half_pixel_centers=True)
    if data_format == "channels_first":
        x = permute_dimensions(x, [0, 3, 1, 2])
    height = None if original[rows] is None else original[rows] * height_factor
    width = None if original[cols] is None else original[cols] * width_factor
    if data_format == "channels_first":
        x.set_shape((None, None, height, width))
    else:
        x.set_shape((None, height, width, None))
    return x


def resize_volumes(
    x: Any, depth_factor: int, height_factor: int, width_factor: int, data_format: str
) -> Any:
    if data_format == "channels_first":
        axes = (2, 3, 4)
    elif data_format == "channels_last":
        axes = (1, 2, 3)
    else:
        raise ValueError(f"Invalid data_format: {data_format}")
    for axis, factor in zip(axes, (depth_factor, height_factor, width_factor)):
        x = repeat_elements(x, factor, axis)
    return x


# ---- the learning phase --------------------------------------------------------------------
def switch(condition: Any, then_expression: Any, else_expression: Any) -> Any:
    condition = convert_to_tensor(condition)
    if condition.dtype.base_dtype != dtypes.bool_:
        condition = math_ops.cast(condition, dtypes.bool_)
    cond_ndim = condition.shape.ndims
    if not cond_ndim:

        def as_fn(e: Any) -> Callable[[], Any]:
            return e if callable(e) else (lambda: e)

        return control_flow_ops.cond(condition, as_fn(then_expression), as_fn(else_expression))
    if callable(then_expression):
        then_expression = then_expression()
    if callable(else_expression):
        else_expression = else_expression()
    then_expression = convert_to_tensor(then_expression)
    expr_ndim = _rank(then_expression)
    if cond_ndim > expr_ndim:
        raise ValueError(
            "Rank of `condition` should be less than or equal to rank of `then_expression` "
            f"and `else_expression`. ndim(condition)={cond_ndim}, "
            f"ndim(then_expression)={expr_ndim}"
        )
    internal_deprecations.called_internally(internal_deprecations.WHERE)
    if cond_ndim > 1:
        cond_shape = array_ops.concat(
            [array_ops.shape(condition), [1] * (expr_ndim - cond_ndim)], axis=0
        )
        condition = array_ops.reshape(condition, cond_shape)
        expr_shape = array_ops.shape(then_expression)
        tile_shape = array_ops.where(
            (expr_shape - cond_shape) > 0, expr_shape, array_ops.ones_like(expr_shape)
        )
        condition = array_ops.tile(condition, tile_shape)
    return array_ops.where(condition, then_expression, else_expression)


def in_train_phase(x: Any, alt: Any, training: Any = None) -> Any:
    if training is None:
        training = backend.learning_phase()
    if not isinstance(training, (Tensor, variables.Variable)):
        if training == 1 or training is True:
            return x() if callable(x) else x
        if training == 0 or training is False:
            return alt() if callable(alt) else alt
    return switch(training, x, alt)


def in_test_phase(x: Any, alt: Any, training: Any = None) -> Any:
    return in_train_phase(alt, x, training=training)


class learning_phase_scope:
    """`with learning_phase_scope(1):` runs layers as in training, then restores the phase."""

    def __init__(self, value: int) -> None:
        if value not in (0, 1):
            raise ValueError("Expected learning phase to be 0 or 1.")
        self.value = value
        self.previous: Any = None

    def __enter__(self) -> None:
        graph = backend.get_default_graph()
        self.previous = backend._GRAPH_LEARNING_PHASES.get(graph)
        backend._GRAPH_LEARNING_PHASES[graph] = self.value

    def __exit__(self, *args: Any) -> None:
        graph = backend.get_default_graph()
        if self.previous is None:
            backend._GRAPH_LEARNING_PHASES.pop(graph, None)
        else:
            backend._GRAPH_LEARNING_PHASES[graph] = self.previous


# ---- random tensors ------------------------------------------------------------------------
def _seed(seed: Any) -> int:
    return int(np.random.randint(10_000_000)) if seed is None else int(seed)


def random_normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None, seed: Any = None
) -> Any:
    return random_ops.random_normal(
        shape, mean=mean, stddev=stddev, dtype=dtype or backend.floatx(), seed=_seed(seed)
    )


def random_uniform(
    shape: Any, minval: float = 0.0, maxval: float = 1.0, dtype: Any = None, seed: Any = None
) -> Any:
    return random_ops.random_uniform(
        shape, minval=minval, maxval=maxval, dtype=dtype or backend.floatx(), seed=_seed(seed)
    )


def truncated_normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None, seed: Any = None
) -> Any:
    return random_ops.truncated_normal(
        shape, mean=mean, stddev=stddev, dtype=dtype or backend.floatx(), seed=_seed(seed)
    )


def random_binomial(shape: Any, p: float = 0.0, dtype: Any = None, seed: Any = None) -> Any:
    dtype = dtype or backend.floatx()
    internal_deprecations.called_internally(internal_deprecations.WHERE)
    return array_ops.where(
        random_ops.random_uniform(shape, dtype=dtype, seed=_seed(seed)) <= p,
        array_ops.ones(shape, dtype=dtype),
        array_ops.zeros(shape, dtype=dtype),
    )


def random_uniform_variable(
    shape: Any,
    low: float,
    high: float,
    dtype: Any = None,
    name: str | None = None,
    seed: Any = None,
) -> Any:
    from tfcluster.ops import init_ops

    dtype = dtypes.as_dtype(dtype or backend.floatx())
    init = init_ops.RandomUniform(low, high, seed=_seed(seed), dtype=dtype)
    return backend.variable(init(shape), dtype=dtype, name=name)


def random_normal_variable(
    shape: Any,
    mean: float,
    scale: float,
    dtype: Any = None,
    name: str | None = None,
    seed: Any = None,
) -> Any:
    from tfcluster.ops import init_ops

    dtype = dtypes.as_dtype(dtype or backend.floatx())
    init = init_ops.RandomNormal(mean, scale, seed=_seed(seed), dtype=dtype)
    return backend.variable(init(shape), dtype=dtype, name=name)


def dropout(x: Any, level: float, noise_shape: Any = None, seed: Any = None) -> Any:
    return nn_ops.dropout(x, rate=level, noise_shape=noise_shape, seed=_seed(seed))


# ---- nn --------------------------------------------------------------------------------------
def l2_normalize(x: Any, axis: Any = None) -> Any:
    return nn_ops.l2_normalize(x, axis=axis)


def in_top_k(predictions: Any, targets: Any, k: int) -> Any:
    return nn_ops.in_top_k(predictions, targets, k)


def bias_add(x: Any, bias: Any, data_format: str | None = None) -> Any:
    """TF 1.15's K.bias_add: BiasAdd for a 4-D channels-last input (or a rank other than 3 to
    5) and a vector bias; otherwise the bias reshaped to broadcast and added. (A 4-D
    channels-first input takes the reshape, as TF's on a machine without a GPU.)"""
    data_format = data_format or backend.image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("Unknown data_format: " + str(data_format))
    bias_shape = tuple(_dims(bias))
    ndim = _rank(x)
    if len(bias_shape) != 1 and len(bias_shape) != ndim - 1:
        raise ValueError(
            f"Unexpected bias dimensions {len(bias_shape)}, expect to be 1 or {ndim} dimensions"
        )
    first = data_format == "channels_first"
    vector = len(bias_shape) == 1
    if ndim == 4 and not first and vector:
        return nn_ops.bias_add(x, bias, data_format="NHWC")
    if ndim == 4 and first and vector:
        backend.has_nchw_support()  # asked as TF 1.15's, the reshape used either way
    if ndim not in (3, 4, 5):
        return nn_ops.bias_add(x, bias)
    spatial = ndim - 2
    if vector:
        shape = (1, bias_shape[0], *[1] * spatial) if first else (*[1] * (ndim - 1), bias_shape[0])
    elif first:
        shape = (1, bias_shape[-1], *bias_shape[:-1])
    else:
        shape = (1, *bias_shape)
    return x + array_ops.reshape(bias, shape)


def batch_normalization(
    x: Any, mean: Any, var: Any, beta: Any, gamma: Any, axis: int = -1, epsilon: float = 1e-3
) -> Any:
    from tfcluster.ops import nn_impl

    return nn_impl.batch_normalization(x, mean, var, beta, gamma, epsilon)


def normalize_batch_in_training(
    x: Any, gamma: Any, beta: Any, reduction_axes: Any, epsilon: float = 1e-3
) -> Any:
    """(normalized, mean, variance) over reduction_axes, broadcast back to x's shape."""
    from tfcluster.ops import nn_impl

    if _rank(x) == 4 and list(reduction_axes) in ([0, 1, 2], [0, 2, 3]):
        backend.has_nchw_support()  # asked as TF 1.15's (the first ask opens the session)
    mean, variance = nn_ops.moments(x, list(reduction_axes), keep_dims=False)
    ndim = _rank(x)
    if sorted(reduction_axes) == list(builtins.range(ndim))[:-1]:
        normed = nn_impl.batch_normalization(x, mean, variance, beta, gamma, epsilon)
        return normed, mean, variance
    target_shape = [
        1 if axis in reduction_axes else array_ops.shape(x)[axis] for axis in builtins.range(ndim)
    ]
    target = array_ops.stack(target_shape)

    def broadcast(t: Any) -> Any:
        return None if t is None else array_ops.reshape(t, target)

    normed = nn_impl.batch_normalization(
        x, broadcast(mean), broadcast(variance), broadcast(beta), broadcast(gamma), epsilon
    )
    return normed, mean, variance


def moving_average_update(x: Any, value: Any, momentum: float) -> Any:
    """TF 1.15's assign_moving_average with zero_debias=True: a `biased` average and a
    `local_step` beside x (under x's name), x set to biased / (1 - momentum**step)."""
    from tfcluster.framework.graph import name_scope
    from tfcluster.ops import init_ops
    from tfcluster.ops import variable_scope as vs

    with name_scope(None, "AssignMovingAvg", [x, value, momentum]):
        dtype = x.dtype.base_dtype
        decay = math_ops.cast(convert_to_tensor(1.0 - momentum, name="decay"), dtype)
        value = convert_to_tensor(value)
        with vs.variable_scope(x.op.name, values=[x, value, decay]):
            biased = vs.get_variable(
                "biased", shape=value.shape, dtype=dtype,
                initializer=init_ops.zeros_initializer(), trainable=False,
            )  # fmt: skip
            local_step = vs.get_variable(
                "local_step", shape=[], dtype=dtype,
                initializer=init_ops.zeros_initializer(), trainable=False,
            )  # fmt: skip
            update_biased = state_ops.assign_sub(biased, (biased - value) * decay)
            update_step = state_ops.assign_add(local_step, 1)
            bias_factor = 1 - math_ops.pow(1.0 - decay, update_step)
            return state_ops.assign(x, update_biased / bias_factor)


def _to_nhwc(x: Any, data_format: str | None) -> tuple[Any, bool]:
    data_format = data_format or backend.image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("Unknown data_format: " + str(data_format))
    first = data_format == "channels_first"
    if first:
        # TF 1.15 asks whether NCHW runs here (its first ask opens the Keras session, which
        # initializes the graph's variables); the channels-last layout is used either way.
        backend.has_nchw_support()
    return x, first


def _padding(padding: str) -> str:
    if padding == "same":
        return "SAME"
    if padding == "valid":
        return "VALID"
    raise ValueError("Invalid padding: " + str(padding))


def conv1d(
    x: Any,
    kernel: Any,
    strides: int = 1,
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: int = 1,
) -> Any:
    _, first = _to_nhwc(x, data_format)
    kernel_shape = _dims(kernel)
    if padding == "causal":
        left_pad = dilation_rate * (kernel_shape[0] - 1)
        x = temporal_padding(x, (left_pad, 0))
        padding = "valid"
    if first:
        x = array_ops.transpose(x, (0, 2, 1))
    out = conv_ops.convolution(
        x, kernel, padding=_padding(padding), strides=(strides,), dilation_rate=(dilation_rate,)
    )
    return array_ops.transpose(out, (0, 2, 1)) if first else out


def conv2d(
    x: Any,
    kernel: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = (1, 1),
) -> Any:
    _, first = _to_nhwc(x, data_format)
    if first:
        x = array_ops.transpose(x, (0, 2, 3, 1))
    out = conv_ops.convolution(
        x, kernel, padding=_padding(padding), strides=strides, dilation_rate=dilation_rate
    )
    return array_ops.transpose(out, (0, 3, 1, 2)) if first else out


def conv3d(
    x: Any,
    kernel: Any,
    strides: Any = (1, 1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = (1, 1, 1),
) -> Any:
    _, first = _to_nhwc(x, data_format)
    if first:
        x = array_ops.transpose(x, (0, 2, 3, 4, 1))
    out = conv_ops.convolution(
        x, kernel, padding=_padding(padding), strides=strides, dilation_rate=dilation_rate
    )
    return array_ops.transpose(out, (0, 4, 1, 2, 3)) if first else out


def conv2d_transpose(
    x: Any,
    kernel: Any,
    output_shape: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = (1, 1),
) -> Any:
    _, first = _to_nhwc(x, data_format)
    if first:
        x = array_ops.transpose(x, (0, 2, 3, 1))
        if isinstance(output_shape, (tuple, list)):
            output_shape = (output_shape[0], output_shape[2], output_shape[3], output_shape[1])
    if output_shape[0] is None:
        output_shape = (array_ops.shape(x)[0], *tuple(output_shape[1:]))
    if isinstance(output_shape, (tuple, list)):
        output_shape = array_ops.stack(list(output_shape))
    if tuple(dilation_rate) != (1, 1):
        raise backend.unimplemented("tf.keras.backend.conv2d_transpose with dilation_rate")
    out = conv_ops.conv2d_transpose(
        x, kernel, output_shape, (1, *tuple(strides), 1), padding=_padding(padding)
    )
    return array_ops.transpose(out, (0, 3, 1, 2)) if first else out


def separable_conv2d(
    x: Any,
    depthwise_kernel: Any,
    pointwise_kernel: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = (1, 1),
) -> Any:
    _, first = _to_nhwc(x, data_format)
    if first:
        x = array_ops.transpose(x, (0, 2, 3, 1))
    out = conv_ops.separable_conv2d(
        x,
        depthwise_kernel,
        pointwise_kernel,
        strides=(1, *tuple(strides), 1),
        padding=_padding(padding),
        rate=dilation_rate,
    )
    return array_ops.transpose(out, (0, 3, 1, 2)) if first else out


def depthwise_conv2d(
    x: Any,
    depthwise_kernel: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = (1, 1),
) -> Any:
    _, first = _to_nhwc(x, data_format)
    if first:
        x = array_ops.transpose(x, (0, 2, 3, 1))
    out = conv_ops.depthwise_conv2d(
        x,
        depthwise_kernel,
        strides=(1, *tuple(strides), 1),
        padding=_padding(padding),
        rate=dilation_rate,
    )
    return array_ops.transpose(out, (0, 3, 1, 2)) if first else out


def _pool(
    x: Any, rank: int, pool_size: Any, strides: Any, padding: str, data_format: Any, mode: str
) -> Any:
    _, first = _to_nhwc(x, data_format)
    if first:
        x = array_ops.transpose(x, (0, *builtins.range(2, rank + 2), 1))
    if mode not in ("max", "avg"):
        raise ValueError("Invalid pooling mode: " + str(mode))
    fn: Any
    if rank == 2:
        fn = pooling_ops.max_pool if mode == "max" else pooling_ops.avg_pool
    else:
        fn = pooling_ops.max_pool3d if mode == "max" else pooling_ops.avg_pool3d
    out = fn(x, (1, *tuple(pool_size), 1), (1, *tuple(strides), 1), padding=_padding(padding))
    if first:
        out = array_ops.transpose(out, (0, rank + 1, *builtins.range(1, rank + 1)))
    return out


def pool2d(
    x: Any,
    pool_size: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    pool_mode: str = "max",
) -> Any:
    return _pool(x, 2, pool_size, strides, padding, data_format, pool_mode)


def pool3d(
    x: Any,
    pool_size: Any,
    strides: Any = (1, 1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    pool_mode: str = "max",
) -> Any:
    return _pool(x, 3, pool_size, strides, padding, data_format, pool_mode)


def local_conv(
    inputs: Any, kernel: Any, kernel_size: Any, strides: Any, output_shape: Any, data_format: Any
) -> Any:
    """A different kernel per output position: the input patches stacked, then one batched
    matmul (TF 1.15's local_conv)."""
    ndims = len(output_shape)
    first = data_format == "channels_first"
    xs = []
    for position in np.ndindex(*output_shape):
        slices = [slice(None)]
        if first:
            slices.append(slice(None))
        slices.extend(
            slice(position[d] * strides[d], position[d] * strides[d] + kernel_size[d])
            for d in builtins.range(ndims)
        )
        patch = inputs[tuple(slices)]
        xs.append(array_ops.reshape(patch, (1, -1, int(kernel.shape.as_list()[1]))))
    x_aggregate = array_ops.concat(xs, axis=0)
    output = math_ops.matmul(x_aggregate, kernel)
    output = array_ops.reshape(output, (*tuple(output_shape), -1, int(kernel.shape.as_list()[-1])))
    if first:
        return array_ops.transpose(output, (ndims, ndims + 1, *builtins.range(ndims)))
    return array_ops.transpose(output, (ndims, *builtins.range(ndims), ndims + 1))


def local_conv1d(
    inputs: Any, kernel: Any, kernel_size: Any, strides: Any, data_format: Any = None
) -> Any:
    output_shape = (int(kernel.shape.as_list()[0]),)
    return local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format)


def local_conv2d(
    inputs: Any,
    kernel: Any,
    kernel_size: Any,
    strides: Any,
    output_shape: Any,
    data_format: Any = None,
) -> Any:
    return local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format)


# ---- functional ------------------------------------------------------------------------------
def map_fn(fn: Any, elems: Any, name: str | None = None, dtype: Any = None) -> Any:
    return functional_ops.map_fn(fn, elems, name=name, dtype=dtype)


def foldl(fn: Any, elems: Any, initializer: Any = None, name: str | None = None) -> Any:
    return functional_ops.foldl(fn, elems, initializer=initializer, name=name)


def foldr(fn: Any, elems: Any, initializer: Any = None, name: str | None = None) -> Any:
    return functional_ops.foldr(fn, elems, initializer=initializer, name=name)


def print_tensor(x: Any, message: str = "") -> Any:
    return logging_ops.Print(x, [x], message)


def rnn(
    step_function: Any,
    inputs: Any,
    initial_states: Any,
    go_backwards: bool = False,
    mask: Any = None,
    constants: Any = None,
    unroll: bool = False,
    input_length: Any = None,
    time_major: bool = False,
    zero_output_for_mask: bool = False,
) -> tuple[Any, Any, list[Any]]:
    """(last output, outputs [batch, time, ...], new states), stepping over the time axis.
    Steps are unrolled: the number of time steps must be known."""
    inputs = convert_to_tensor(inputs)
    if not time_major:
        axes = list(builtins.range(_rank(inputs)))
        axes[0], axes[1] = 1, 0
        inputs = array_ops.transpose(inputs, axes)
    steps = inputs.shape.as_list()[0]
    if steps is None:
        raise backend.unimplemented("tf.keras.backend.rnn over an unknown number of time steps")
    if mask is not None:
        mask = math_ops.cast(mask, dtypes.bool_)
        if _rank(mask) == 2:
            mask = array_ops.expand_dims(mask, -1)
        if not time_major:
            mask = array_ops.transpose(mask, [1, 0, *builtins.range(2, _rank(mask))])
    constants = list(constants or [])
    states = list(initial_states)
    order = list(builtins.range(steps))
    if go_backwards:
        order.reverse()
    outputs: list[Any] = []
    last_output: Any = None
    for t in order:
        output, new_states = step_function(inputs[t], states + constants)
        new_states = list(new_states) if isinstance(new_states, (list, tuple)) else [new_states]
        if mask is not None:
            internal_deprecations.called_internally(internal_deprecations.WHERE)
            keep = mask[t]
            previous = last_output if last_output is not None else array_ops.zeros_like(output)
            if zero_output_for_mask:
                previous = array_ops.zeros_like(output)
            output = array_ops.where(_tile_like(keep, output), output, previous)
            new_states = [
                array_ops.where(_tile_like(keep, s), s, old) for s, old in zip(new_states, states)
            ]
        outputs.append(output)
        last_output = output
        states = new_states
    stacked = array_ops.stack(outputs)
    if not time_major:
        axes = list(builtins.range(_rank(stacked)))
        axes[0], axes[1] = 1, 0
        stacked = array_ops.transpose(stacked, axes)
    return last_output, stacked, states


def _tile_like(mask_t: Any, x: Any) -> Any:
    """The [batch, 1] step mask expanded and tiled to x's shape (K.rnn's _expand_mask)."""
    x = convert_to_tensor(x)
    for _ in builtins.range(_rank(x) - _rank(mask_t)):
        mask_t = array_ops.expand_dims(mask_t, -1)
    multiples = [1, *x.shape.as_list()[1:]]
    multiples = [m if m is not None else 1 for m in multiples]
    if mask_t.shape.as_list()[1] == multiples[1]:
        multiples[1] = 1
    return array_ops.tile(mask_t, multiples)
