"""Normalisation and statistics of tf.nn (TF's nn_impl / nn_ops): batch_normalization,
fused_batch_norm, weighted_moments, normalize_moments, sufficient_statistics, local response
normalisation, crelu, swish and zero_fraction, with their op types and node names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, constant_op, math_ops, nn_ops
from tfcluster.ops.infer_util import check_dtype, shape_list, with_rank
from tfcluster.ops.op_util import FLOATS, Outputs, make_op

_BN_FORMATS = ("NHWC", "NCHW", "NDHWC", "NCDHW")


def _fused_batch_norm_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, scale = inputs[0], inputs[1]
    fmt = str(attrs.get("data_format", "NHWC"))
    if fmt not in _BN_FORMATS:
        raise ValueError(f"Invalid data format: {fmt}")
    x_shape = with_rank(x.shape, len(fmt), "x")
    for t, what in zip(inputs[1:], ("scale", "offset", "mean", "variance")):
        with_rank(t.shape, 1, what)
    dims = x_shape.as_list()
    depth = dims[1] if fmt.startswith("NC") else dims[-1]
    for t, what in zip(inputs[1:3], ("scale", "offset")):
        n = t.shape.as_list()[0] if t.shape.ndims else None
        if depth is not None and n is not None and n != depth:
            raise ValueError(
                f"Dimensions must be equal, but are {depth} and {n} for '{what}' of FusedBatchNorm"
            )
    u = scale.dtype.base_dtype
    vec = TensorShape([depth])
    return [(x.dtype.base_dtype, x_shape), (u, vec), (u, vec), (u, vec), (u, vec)]


def _fused_batch_norm_v3_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    outs = _fused_batch_norm_infer(inputs, attrs)
    return [*outs, (inputs[1].dtype.base_dtype, TensorShape(None))]


def _fused_batch_norm_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dy, x, scale = inputs[0], inputs[1], inputs[2]
    shape = x.shape.merge_with(dy.shape)
    u = scale.dtype.base_dtype
    vec = scale.shape
    return [
        (x.dtype.base_dtype, shape),
        (u, vec),
        (u, vec),
        (u, TensorShape([0])),
        (u, TensorShape([0])),
    ]


def _lrn_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank(inputs[0].shape, 4, "input")
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


def _lrn_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = inputs[0].shape.merge_with(inputs[1].shape).merge_with(inputs[2].shape)
    with_rank(shape, 4, "input_grads")
    return [(inputs[0].dtype.base_dtype, shape)]


op_def_registry.register("FusedBatchNorm", _fused_batch_norm_infer)
op_def_registry.register("FusedBatchNormV2", _fused_batch_norm_infer)
op_def_registry.register("FusedBatchNormV3", _fused_batch_norm_v3_infer)
for _v in ("", "V2", "V3"):
    op_def_registry.register(f"FusedBatchNormGrad{_v}", _fused_batch_norm_grad_infer)
op_def_registry.register("LRN", _lrn_infer)
op_def_registry.register("LRNGrad", _lrn_grad_infer)


def batch_normalization(
    x: Any,
    mean: Any,
    variance: Any,
    offset: Any,
    scale: Any,
    variance_epsilon: Any,
    name: str | None = None,
) -> Tensor:
    """scale * (x - mean) / sqrt(variance + epsilon) + offset, in TF's order of ops."""
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        # TF's one expression, its arguments left as given: Python numbers stay numbers
        # (variance + epsilon one constant), and x * inv is made before mean * inv.
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv = inv * scale
        scaled = x * math_ops.cast(inv, x.dtype)
        shift = offset - mean * inv if offset is not None else -mean * inv
        return scaled + math_ops.cast(shift, x.dtype)


def fused_batch_norm(
    x: Any,
    scale: Any,
    offset: Any,
    mean: Any = None,
    variance: Any = None,
    epsilon: float = 0.001,
    data_format: str = "NHWC",
    is_training: bool = True,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """(y, batch mean, batch variance): batch statistics when training (the variance
    reported unbiased), else the given mean and variance; one FusedBatchNormV3 op."""
    t = convert_to_tensor(x, name="input")
    s = convert_to_tensor(scale, name="scale")
    o = convert_to_tensor(offset, name="offset")
    if is_training and (mean is not None or variance is not None):
        raise ValueError("Both 'mean' and 'variance' must be None when is_training is True.")
    if data_format not in _BN_FORMATS:
        raise ValueError(f"data_format must be one of {', '.join(_BN_FORMATS)}, got {data_format}")
    m = constant_op.constant([]) if mean is None else mean
    v = constant_op.constant([]) if variance is None else variance
    m = convert_to_tensor(m, dtype=s.dtype.base_dtype, name="mean")
    v = convert_to_tensor(v, dtype=s.dtype.base_dtype, name="variance")
    check_dtype(t, FLOATS, "FusedBatchNormV3", "x")
    # cuDNN's floor, which TF applies on every device.
    epsilon = max(float(epsilon), 1.001e-5)
    attrs = {
        "T": t.dtype.base_dtype,
        "U": s.dtype.base_dtype,
        "epsilon": epsilon,
        "data_format": data_format,
        "is_training": bool(is_training),
    }
    with name_scope(name, "FusedBatchNormV3", [t, s, o, m, v]) as scope:
        op = make_op("FusedBatchNormV3", [t, s, o, m, v], attrs, name=scope)
    return op.outputs[0], op.outputs[1], op.outputs[2]


def fused_batch_norm_grad(
    y_backprop: Tensor,
    x: Tensor,
    scale: Tensor,
    reserve_1: Tensor,
    reserve_2: Tensor,
    reserve_3: Tensor,
    epsilon: float,
    data_format: str,
    is_training: bool,
) -> list[Tensor]:
    attrs = {
        "T": x.dtype.base_dtype,
        "U": scale.dtype.base_dtype,
        "epsilon": float(epsilon),
        "data_format": data_format,
        "is_training": bool(is_training),
    }
    inputs = [y_backprop, x, scale, reserve_1, reserve_2, reserve_3]
    return list(make_op("FusedBatchNormGradV3", inputs, attrs, name="FusedBatchNormGradV3").outputs)


def _lookup(new: Any, old: Any, names: tuple[str, str]) -> Any:
    if new is not None and old is not None:
        raise ValueError(f"Cannot specify both '{names[0]}' and '{names[1]}'")
    return new if new is not None else old


def weighted_moments(
    x: Any,
    axes: Any,
    frequency_weights: Any,
    name: str | None = None,
    keep_dims: Any = None,
    keepdims: Any = None,
) -> tuple[Tensor, Tensor]:
    """The mean and variance of x weighted by frequency_weights (broadcast against x)."""
    keep = bool(_lookup(keepdims, keep_dims, ("keepdims", "keep_dims")))
    with name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        t = convert_to_tensor(x, name="x")
        w = convert_to_tensor(frequency_weights, name="frequency_weights")
        needs_cast = t.dtype.base_dtype == dtypes.float16
        if needs_cast:
            t = math_ops.cast(t, dtypes.float32)
        if w.dtype.base_dtype != t.dtype.base_dtype:
            w = math_ops.cast(w, t.dtype.base_dtype)
        weighted_input_sum = math_ops.reduce_sum(
            w * t, axes, name="weighted_input_sum", keepdims=True
        )
        broadcasted_weights = w + array_ops.zeros_like(t)
        sum_of_weights = math_ops.reduce_sum(
            broadcasted_weights, axes, name="sum_of_weights", keepdims=True
        )
        divisor = math_ops.reciprocal(sum_of_weights, name="inv_weight_sum")
        weighted_mean = math_ops.multiply(weighted_input_sum, divisor)
        weighted_distsq = math_ops.reduce_sum(
            w * math_ops.squared_difference(t, weighted_mean),
            axes,
            name="weighted_distsq",
            keepdims=True,
        )
        weighted_variance = math_ops.multiply(weighted_distsq, divisor)
        if not keep:
            weighted_mean = array_ops.squeeze(weighted_mean, axis=list(axes))
            weighted_variance = array_ops.squeeze(weighted_variance, axis=list(axes))
        if needs_cast:
            weighted_mean = math_ops.cast(weighted_mean, dtypes.float16)
            weighted_variance = math_ops.cast(weighted_variance, dtypes.float16)
        return weighted_mean, weighted_variance


def normalize_moments(
    counts: Any, mean_ss: Any, variance_ss: Any, shift: Any, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """(mean, variance) from the sufficient statistics."""
    with name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = math_ops.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="shifted_mean")
            mean = math_ops.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = math_ops.subtract(
            math_ops.multiply(variance_ss, divisor),
            math_ops.square(shifted_mean),
            name="variance",
        )
    return mean, variance


def sufficient_statistics(
    x: Any,
    axes: Any,
    shift: Any = None,
    keep_dims: Any = None,
    name: str | None = None,
    keepdims: Any = None,
) -> tuple[Tensor, Tensor, Tensor, Any]:
    """(count, sum of x - shift, sum of (x - shift)^2, shift) over axes."""
    axes = sorted(set(axes))
    keep = bool(_lookup(keepdims, keep_dims, ("keepdims", "keep_dims")))
    with name_scope(name, "sufficient_statistics", [x, shift]):
        t = convert_to_tensor(x, name="x")
        dims = shape_list(t.shape)
        if dims is not None and all(dims[d] is not None for d in axes):
            count = 1
            for d in axes:
                count *= dims[d]  # type: ignore[operator]
            counts: Tensor = constant_op.constant(count, dtype=t.dtype.base_dtype)
        else:
            sizes = array_ops.gather(math_ops.cast(array_ops.shape(t), t.dtype.base_dtype), axes)
            counts = math_ops.reduce_prod(sizes, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, name="shift")
            m_ss = math_ops.subtract(t, shift)
            v_ss = math_ops.squared_difference(t, shift)
        else:
            m_ss = t
            v_ss = math_ops.square(t)
        m_ss = math_ops.reduce_sum(m_ss, axes, keepdims=keep, name="mean_ss")
        v_ss = math_ops.reduce_sum(v_ss, axes, keepdims=keep, name="var_ss")
    return counts, m_ss, v_ss, shift


def local_response_normalization(
    input: Any,
    depth_radius: int = 5,
    bias: float = 1.0,
    alpha: float = 1.0,
    beta: float = 0.5,
    name: str | None = None,
) -> Tensor:
    """input / (bias + alpha * sum of squares over 2r+1 neighbouring channels) ** beta."""
    with name_scope(name, "LRN", [input]) as scope:
        t = convert_to_tensor(input, name="input")
        check_dtype(t, (dtypes.float16, dtypes.float32), "LRN", "input")
        attrs = {
            "depth_radius": int(depth_radius),
            "bias": float(bias),
            "alpha": float(alpha),
            "beta": float(beta),
            "T": t.dtype.base_dtype,
        }
        return make_op("LRN", [t], attrs, name=scope).outputs[0]


lrn = local_response_normalization


def lrn_grad(
    input_grads: Tensor,
    input_image: Tensor,
    output_image: Tensor,
    depth_radius: int,
    bias: float,
    alpha: float,
    beta: float,
) -> Tensor:
    attrs = {
        "depth_radius": int(depth_radius),
        "bias": float(bias),
        "alpha": float(alpha),
        "beta": float(beta),
        "T": input_grads.dtype.base_dtype,
    }
    inputs = [input_grads, input_image, output_image]
    return make_op("LRNGrad", inputs, attrs, name="LRNGrad").outputs[0]


def crelu(features: Any, name: str | None = None, axis: int = -1) -> Tensor:
    """relu of [features, -features] concatenated along axis."""
    with name_scope(name, "CRelu", [features]) as scope:
        t = convert_to_tensor(features, name="features")
        c = array_ops.concat([t, -t], axis, name=scope)
        return nn_ops.relu(c)


def swish(features: Any) -> Tensor:
    """features * sigmoid(features)."""
    t = convert_to_tensor(features, name="features")
    return t * math_ops.sigmoid(t)


def _count_nonzero(t: Tensor, dtype: dtypes.DType) -> Tensor:
    """TF's nn_impl._count_nonzero: the non-zero elements of t, counted in dtype."""
    with name_scope("count_nonzero", values=[t]):
        zero = array_ops.zeros([], dtype=t.dtype.base_dtype)
        return math_ops.reduce_sum(
            math_ops.cast(math_ops.not_equal(t, zero), dtype), name="nonzero_count"
        )


def zero_fraction(value: Any, name: str | None = None) -> Tensor:
    """The fraction of zeros in value, as a float32 scalar. As TF 1.15, the count is a v1 cond
    (int32 while the size fits, else int64): its ops count towards later ops' seeds (a canned
    DNN's hidden layers each make one before the next layer's initializer)."""
    from tfcluster.ops import control_flow_ops

    with name_scope(name, "zero_fraction", [value]):
        t = convert_to_tensor(value, name="value")
        size = array_ops.size(t, out_type=dtypes.int64)
        nonzero = control_flow_ops.cond(
            size <= dtypes.int32.max,
            true_fn=lambda: math_ops.cast(_count_nonzero(t, dtypes.int32), dtypes.int64),
            false_fn=lambda: _count_nonzero(t, dtypes.int64),
        )
        with name_scope("counts_to_fraction"):
            num_zero = size - nonzero
            fraction = math_ops.cast(num_zero, dtypes.float32) / math_ops.cast(size, dtypes.float32)
        return array_ops.identity(fraction, "fraction")


__all__ = [
    "batch_normalization",
    "crelu",
    "fused_batch_norm",
    "local_response_normalization",
    "lrn",
    "normalize_moments",
    "sufficient_statistics",
    "swish",
    "weighted_moments",
    "zero_fraction",
]
