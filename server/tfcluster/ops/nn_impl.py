"""Batch normalisation of tf.nn (TF 1.15's nn_impl): batch_normalization from ordinary ops and
fused_batch_norm as one FusedBatchNormV3 node, named and shaped as TF builds them.

(The mathops branch grows this module into the rest of nn_impl's normalisation; the two
functions here keep its signatures and node names.)"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import constant_op, math_ops
from tfcluster.ops.op_util import FLOATS, Outputs, check_dtype, make_op

_BN_FORMATS = ("NHWC", "NCHW", "NDHWC", "NCDHW")


def _fused_batch_norm_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, scale = inputs[0], inputs[1]
    fmt = str(attrs.get("data_format", "NHWC"))
    if fmt not in _BN_FORMATS:
        raise ValueError(f"Invalid data format: {fmt}")
    shape = x.shape
    if shape.ndims is not None and shape.ndims != len(fmt):
        raise ValueError(
            f"Shape must be rank {len(fmt)} but is rank {shape.ndims} for 'FusedBatchNormV3' "
            f"with input shapes: {x.shape}."
        )
    for t, what in zip(inputs[1:], ("scale", "offset", "mean", "variance")):
        if t.shape.ndims is not None and t.shape.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {t.shape.ndims} ({what})")
    depth = None
    if shape.ndims is not None:
        dims = shape.as_list()
        depth = dims[1] if fmt.startswith("NC") else dims[-1]
    for t, what in zip(inputs[1:3], ("scale", "offset")):
        n = t.shape.as_list()[0] if t.shape.ndims else None
        if depth is not None and n is not None and n != depth:
            raise ValueError(
                f"Dimensions must be equal, but are {depth} and {n} for 'FusedBatchNormV3' ({what})"
            )
    u = scale.dtype.base_dtype
    vec = TensorShape([depth])
    return [
        (x.dtype.base_dtype, shape),
        (u, vec),
        (u, vec),
        (u, vec),
        (u, vec),
        (u, TensorShape(None)),
    ]


def _fused_batch_norm_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dy, x, scale = inputs[0], inputs[1], inputs[2]
    u = scale.dtype.base_dtype
    return [
        (x.dtype.base_dtype, x.shape.merge_with(dy.shape)),
        (u, scale.shape),
        (u, scale.shape),
        (u, TensorShape([0])),
        (u, TensorShape([0])),
    ]


op_def_registry.register("FusedBatchNormV3", _fused_batch_norm_infer)
op_def_registry.register("FusedBatchNormGradV3", _fused_batch_norm_grad_infer)


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
        t = convert_to_tensor(x)
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        # Python's left-to-right order gives TF's node names (mul_1 before mul_2).
        return t * math_ops.cast(inv, t.dtype) + math_ops.cast(
            offset - mean * inv if offset is not None else -mean * inv, t.dtype
        )


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
    """(y, batch mean, batch variance) of one FusedBatchNormV3 node: the batch's statistics
    when training (the variance reported with Bessel's correction, as TF), else the given
    mean and variance."""
    t = convert_to_tensor(x, name="input")
    s = convert_to_tensor(scale, name="scale")
    o = convert_to_tensor(offset, name="offset")
    if is_training and (mean is not None or variance is not None):
        raise ValueError("Both 'mean' and 'variance' must be None if is_training is True.")
    m = constant_op.constant([]) if mean is None else mean
    v = constant_op.constant([]) if variance is None else variance
    # cuDNN's floor, which TF applies on every device.
    epsilon = max(float(epsilon), 1.001e-5)
    with name_scope(name, "FusedBatchNormV3", [t, s, o, m, v]) as scope:
        check_dtype(t, FLOATS, "FusedBatchNormV3", "x")
        m = convert_to_tensor(m, dtype=s.dtype.base_dtype, name="mean")
        v = convert_to_tensor(v, dtype=s.dtype.base_dtype, name="variance")
        attrs = {
            "T": t.dtype.base_dtype,
            "U": s.dtype.base_dtype,
            "epsilon": epsilon,
            "data_format": data_format,
            "is_training": bool(is_training),
        }
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


__all__ = ["batch_normalization", "fused_batch_norm"]
