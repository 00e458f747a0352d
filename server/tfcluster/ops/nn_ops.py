"""Neural-network ops (tf.nn): activations, losses, bias_add, dropout, in_top_k, moments.

Op types, attrs and node names follow TF1's gen_nn_ops / nn_ops. The `*_grad` and
`*_backprop_*` builders below create the gradient op types the gradient table uses
(gradients/nn_grad.py); they are not part of tf.nn unless TF exports them there.
"""

from __future__ import annotations

import itertools
import logging
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors, internal_deprecations, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, check_ops, math_ops, random_ops

# Convolutions and pooling have modules of their own (conv_ops, pooling_ops); callers of
# nn_ops.conv2d and friends find them here as before.
from tfcluster.ops.conv_ops import (  # noqa: F401
    conv2d,
    conv2d_backprop_filter,
    conv2d_backprop_input,
    conv2d_transpose,
)
from tfcluster.ops.op_util import FLOATS, INTS, Outputs, check_dtype, make_op, unary_same
from tfcluster.ops.pooling_ops import avg_pool, avg_pool_grad, max_pool, max_pool_grad  # noqa: F401

REAL = (*FLOATS, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8)
PADDINGS = ("SAME", "VALID")


# ---- static shape helpers ----------------------------------------------------------------
def _dims(shape: TensorShape, rank: int, op_type: str, what: str) -> list[int | None]:
    """The dims of a shape that must have `rank` dims; unknown rank gives all-None dims."""
    if shape.ndims is None:
        return [None] * rank
    if shape.ndims != rank:
        raise ValueError(
            f"Shape must be rank {rank} but is rank {shape.ndims} for '{op_type}' ({what}) "
            f"with input shape {shape}."
        )
    return shape.as_list()


def _at_least(shape: TensorShape, rank: int, op_type: str, what: str) -> None:
    if shape.ndims is not None and shape.ndims < rank:
        raise ValueError(
            f"Shape must be at least rank {rank} but is rank {shape.ndims} for '{op_type}' "
            f"({what}) with input shape {shape}."
        )


def _merge_dim(a: int | None, b: int | None, op_type: str, sa: Any, sb: Any) -> int | None:
    if a is not None and b is not None and a != b:
        raise ValueError(
            f"Dimensions must be equal, but are {a} and {b} for '{op_type}' with input "
            f"shapes: {sa}, {sb}."
        )
    return a if a is not None else b


# ---- shape inference ---------------------------------------------------------------------
def _softmax_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _at_least(inputs[0].shape, 1, "Softmax", "logits")
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


def _xent_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    logits, labels = inputs
    a = _dims(logits.shape, 2, "SoftmaxCrossEntropyWithLogits", "logits")
    b = _dims(labels.shape, 2, "SoftmaxCrossEntropyWithLogits", "labels")
    dims = [
        _merge_dim(x, y, "SoftmaxCrossEntropyWithLogits", logits.shape, labels.shape)
        for x, y in zip(a, b)
    ]
    dtype = logits.dtype.base_dtype
    return [(dtype, TensorShape(dims[:1])), (dtype, TensorShape(dims))]


def _sparse_xent_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    logits, labels = inputs
    a = _dims(logits.shape, 2, "SparseSoftmaxCrossEntropyWithLogits", "logits")
    b = _dims(labels.shape, 1, "SparseSoftmaxCrossEntropyWithLogits", "labels")
    batch = _merge_dim(
        a[0], b[0], "SparseSoftmaxCrossEntropyWithLogits", logits.shape, labels.shape
    )
    dtype = logits.dtype.base_dtype
    return [(dtype, TensorShape([batch])), (dtype, TensorShape([batch, a[1]]))]


def _bias_dim(rank: int, data_format: str) -> int:
    return 1 if data_format == "NCHW" and rank >= 3 else rank - 1


def _bias_add_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    value, bias = inputs
    _at_least(value.shape, 2, "BiasAdd", "value")
    (c,) = _dims(bias.shape, 1, "BiasAdd", "bias")
    fmt = attrs.get("data_format", "NHWC")
    if fmt not in ("NHWC", "NCHW"):
        raise ValueError(f"BiasAdd: data_format must be 'NHWC' or 'NCHW', got {fmt!r}")
    shape = value.shape
    if shape.ndims is not None:
        dims = shape.as_list()
        axis = _bias_dim(len(dims), fmt)
        dims[axis] = _merge_dim(dims[axis], c, "BiasAdd", value.shape, bias.shape)
        shape = TensorShape(dims)
    return [(value.dtype.base_dtype, shape)]


def _bias_add_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    g = inputs[0]
    _at_least(g.shape, 2, "BiasAddGrad", "out_backprop")
    if g.shape.ndims is None:
        return [(g.dtype.base_dtype, TensorShape([None]))]
    dims = g.shape.as_list()
    return [(g.dtype.base_dtype, TensorShape([dims[_bias_dim(len(dims), attrs["data_format"])]]))]


def _in_top_k_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    predictions, targets = inputs
    a = _dims(predictions.shape, 2, "InTopK", "predictions")
    b = _dims(targets.shape, 1, "InTopK", "targets")
    return [
        (
            dtypes.bool_,
            TensorShape([_merge_dim(a[0], b[0], "InTopK", predictions.shape, targets.shape)]),
        )
    ]


def _l2_loss_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, TensorShape([]))]


for _op in ("Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign", "LeakyRelu"):
    op_def_registry.register(_op, unary_same)
for _op in (
    "ReluGrad",
    "Relu6Grad",
    "EluGrad",
    "SeluGrad",
    "SoftplusGrad",
    "SoftsignGrad",
    "LeakyReluGrad",
):
    op_def_registry.register(_op, unary_same)
op_def_registry.register("Softmax", _softmax_infer)
op_def_registry.register("LogSoftmax", _softmax_infer)
op_def_registry.register("SoftmaxCrossEntropyWithLogits", _xent_infer)
op_def_registry.register("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent_infer)
op_def_registry.register("L2Loss", _l2_loss_infer)
op_def_registry.register("BiasAdd", _bias_add_infer)
op_def_registry.register("BiasAddGrad", _bias_add_grad_infer)
op_def_registry.register("InTopK", _in_top_k_infer)


# ---- argument helpers --------------------------------------------------------------------
def _deprecated_arg(new_name: str, new: Any, old_name: str, old: Any) -> Any:
    if new is not None and old is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return new if new is not None else old


def _float_tensor(
    value: Any, op_type: str, arg: str, allowed: Sequence[dtypes.DType] = FLOATS
) -> Tensor:
    t = convert_to_tensor(value, name=arg)
    check_dtype(t, allowed, op_type, arg)
    return t


def _unary(
    op_type: str,
    features: Any,
    name: str | None,
    allowed: Sequence[dtypes.DType] = FLOATS,
    attrs: dict[str, Any] | None = None,
) -> Tensor:
    t = _float_tensor(features, op_type, "features", allowed)
    all_attrs = {"T": t.dtype.base_dtype, **(attrs or {})}
    return make_op(op_type, [t], all_attrs, name=name or op_type).outputs[0]


# ---- activations -------------------------------------------------------------------------
def relu(features: Any, name: str | None = None) -> Tensor:
    return _unary("Relu", features, name, REAL)


def relu6(features: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "Relu6", [features]) as scope:
        return _unary("Relu6", features, scope, REAL)


def elu(features: Any, name: str | None = None) -> Tensor:
    return _unary("Elu", features, name)


def selu(features: Any, name: str | None = None) -> Tensor:
    return _unary("Selu", features, name)


def softplus(features: Any, name: str | None = None) -> Tensor:
    return _unary("Softplus", features, name)


def softsign(features: Any, name: str | None = None) -> Tensor:
    return _unary("Softsign", features, name)


def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Tensor:
    with name_scope(name, "LeakyRelu", [features, alpha]) as scope:
        t = convert_to_tensor(features, name="features")
        if t.dtype.base_dtype.is_integer:
            t = math_ops.cast(t, dtypes.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        return _unary("LeakyRelu", t, scope, attrs={"alpha": float(alpha)})


def _swap_axis(t: Tensor, axis: Any, last: Tensor, name: str | None = None) -> Tensor:
    """TF 1.15's permutation built in the graph (Range, Pack, ConcatV2 ops, as many as TF makes:
    op counts set later ops' seeds): axis and the last axis swapped."""
    perm = array_ops.concat(
        [math_ops.range(axis), [last], math_ops.range(axis + 1, last), [axis]], 0
    )
    return array_ops.transpose(t, perm, name=name)


def _softmax(logits: Any, op_type: str, axis: Any, name: str | None) -> Tensor:
    t = _float_tensor(logits, op_type, "logits")
    if isinstance(axis, Tensor):
        const = tensor_util.constant_value(axis)
        if const is None:
            raise ValueError(f"{op_type}: axis must be known at graph construction time")
        axis = const
    axis = -1 if axis is None else int(axis)
    rank = t.shape.ndims
    if axis == -1 or (rank is not None and axis == rank - 1):
        return make_op(op_type, [t], {"T": t.dtype.base_dtype}, name=name or op_type).outputs[0]
    if rank is None:
        raise ValueError(f"{op_type} over axis {axis} needs logits of known rank")
    if not -rank <= axis < rank:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Dimension ({axis}) must be in the range [{-rank}, {rank}) where {rank} is the "
            "number of dimensions in the input.",
        )
    # As TF 1.15's _softmax: a negative axis adds the rank tensor, then takes it modulo the
    # static rank; each swap subtracts one from another rank tensor.
    ndims = array_ops.rank(t)
    axis_t: Any = axis + ndims if axis < 0 else axis
    input_rank = array_ops.rank(t)
    axis_t = axis_t % rank
    swapped = _swap_axis(t, axis_t, math_ops.subtract(input_rank, 1))
    out = make_op(op_type, [swapped], {"T": t.dtype.base_dtype}, name=op_type).outputs[0]
    result = _swap_axis(out, axis_t, math_ops.subtract(input_rank, 1), name=name)
    result.set_shape(t.shape)
    return result


def softmax(logits: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Tensor:
    return _softmax(logits, "Softmax", _deprecated_arg("axis", axis, "dim", dim), name)


def log_softmax(logits: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Tensor:
    return _softmax(logits, "LogSoftmax", _deprecated_arg("axis", axis, "dim", dim), name)


# ---- losses ------------------------------------------------------------------------------
def _ensure_xent_args(name: str, sentinel: Any, labels: Any, logits: Any) -> None:
    if sentinel is not None:
        raise ValueError(f"Only call `{name}` with named arguments (labels=..., logits=..., ...)")
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")


def _flatten_outer_dims(t: Tensor) -> Tensor:
    """Reshapes to [-1, last dim], with the ops TF 1.15 builds (its rank, a slice of its shape,
    a concat): the static shape is set where known."""
    rank = array_ops.rank(t)
    last_dim_size = array_ops.slice(array_ops.shape(t), [math_ops.subtract(rank, 1)], [1])
    output = array_ops.reshape(t, array_ops.concat([[-1], last_dim_size], 0))
    dims = t.shape.as_list() if t.shape.ndims is not None else None
    if dims is not None and dims and all(d is not None for d in dims[:-1]):
        product = 1
        for d in dims[:-1]:
            product *= d  # type: ignore[operator]
        output.set_shape([product, dims[-1]])
    return output


def _move_dim_to_end(t: Tensor, dim_index: int, rank: Tensor) -> Tensor:
    perm = array_ops.concat(
        [math_ops.range(dim_index), math_ops.range(dim_index + 1, rank), [dim_index]], 0
    )
    return array_ops.transpose(t, perm)


def softmax_cross_entropy_with_logits_v2(
    labels: Any,
    logits: Any,
    axis: Any = None,
    name: str | None = None,
    dim: Any = None,
) -> Tensor:
    """Softmax cross entropy; gradients flow into both logits and labels. Like TF 1.15's
    (softmax_cross_entropy_with_logits_v2_helper) it takes labels and logits by position too."""
    _ensure_xent_args("softmax_cross_entropy_with_logits", None, labels, logits)
    axis = _deprecated_arg("axis", axis, "dim", dim)
    axis = -1 if axis is None else int(axis)
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits_t = _float_tensor(logits, "SoftmaxCrossEntropyWithLogits", "logits")
        labels_t = convert_to_tensor(labels, name="labels")
        to_f32 = logits_t.dtype.base_dtype == dtypes.float16
        precise = math_ops.cast(logits_t, dtypes.float32) if to_f32 else logits_t
        labels_t = math_ops.cast(labels_t, precise.dtype)
        input_rank = array_ops.rank(precise)
        shape = logits_t.shape
        rank = shape.ndims
        if rank == 0:
            raise ValueError(f"Logits cannot be scalars - received shape {shape}.")
        # Like TF 1.15, no check here that labels have logits' shape: both are flattened to
        # 2-D below (labels [1, ?, 7] meet logits [?, 7]) and the op's shape function judges.
        if axis != -1:
            if axis < 0:
                if rank is None:
                    raise ValueError(
                        "softmax_cross_entropy_with_logits over a negative axis other than "
                        "-1 needs logits of known rank"
                    )
                axis %= rank
            precise = _move_dim_to_end(precise, axis, input_rank)
            labels_t = _move_dim_to_end(labels_t, axis, input_rank)
        input_shape = array_ops.shape(precise)
        precise = _flatten_outer_dims(precise)
        labels_t = _flatten_outer_dims(labels_t)
        op = make_op(
            "SoftmaxCrossEntropyWithLogits",
            [precise, labels_t],
            {"T": precise.dtype.base_dtype},
            name=scope,
        )
        output_shape = array_ops.slice(input_shape, [0], [math_ops.subtract(input_rank, 1)])
        cost = array_ops.reshape(op.outputs[0], output_shape)
        if shape.ndims is not None:
            dims = shape.as_list()
            del dims[axis]
            cost.set_shape(dims)
        return math_ops.cast(cost, dtypes.float16) if to_f32 else cost


def softmax_cross_entropy_with_logits(
    _sentinel: Any = None,
    labels: Any = None,
    logits: Any = None,
    dim: Any = -1,
    name: str | None = None,
    axis: Any = None,
) -> Tensor:
    """TF1's (deprecated) version: no gradient flows into labels."""
    dim = axis if axis is not None else dim
    _ensure_xent_args("softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim, name=scope)


def sparse_softmax_cross_entropy_with_logits(
    _sentinel: Any = None, labels: Any = None, logits: Any = None, name: str | None = None
) -> Tensor:
    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels_t = convert_to_tensor(labels)
        logits_t = _float_tensor(logits, "SparseSoftmaxCrossEntropyWithLogits", "logits")
        check_dtype(labels_t, INTS, "SparseSoftmaxCrossEntropyWithLogits", "labels")
        to_f32 = logits_t.dtype.base_dtype == dtypes.float16
        precise = math_ops.cast(logits_t, dtypes.float32) if to_f32 else logits_t
        lshape, xshape = labels_t.shape, logits_t.shape
        if xshape.ndims == 0:
            raise ValueError(f"Logits cannot be scalars - received shape {xshape}.")
        if (
            xshape.ndims is not None
            and lshape.ndims is not None
            and lshape.ndims != xshape.ndims - 1
        ):
            raise ValueError(
                f"Rank mismatch: Rank of labels (received {lshape.ndims}) should equal rank of "
                f"logits minus 1 (received {xshape.ndims})."
            )
        if xshape.ndims is not None and lshape.ndims is not None:
            outer = TensorShape(xshape.as_list()[:-1])
            if not lshape.is_compatible_with(outer):
                raise ValueError(
                    f"Shape mismatch: The shape of labels (received {lshape}) should equal the "
                    f"shape of logits except for the last dimension (received {xshape})."
                )
        attrs = {"T": precise.dtype.base_dtype, "Tlabels": labels_t.dtype.base_dtype}
        op_type = "SparseSoftmaxCrossEntropyWithLogits"
        # Made whatever the rank, as TF does (its node is part of TF's graph).
        labels_shape = array_ops.shape(labels_t)
        if xshape.ndims == 2:
            cost = make_op(op_type, [precise, labels_t], attrs, name=name).outputs[0]
        else:
            # Shapes not known in full are checked when the step runs, as TF does.
            checks = []
            if not (lshape.is_fully_defined() and xshape[:-1].is_fully_defined()):
                checks.append(
                    check_ops.assert_equal(
                        array_ops.shape(labels_t), array_ops.shape(logits_t)[:-1]
                    )
                )
            with control_dependencies(checks):
                num_classes = array_ops.shape(logits_t)[array_ops.rank(logits_t) - 1]
                flat_logits = array_ops.reshape(precise, [-1, num_classes])
                flat_labels = array_ops.reshape(labels_t, [-1])
                cost = make_op(op_type, [flat_logits, flat_labels], attrs, name=name).outputs[0]
                cost = array_ops.reshape(cost, labels_shape)
                cost.set_shape(lshape)
        return math_ops.cast(cost, dtypes.float16) if to_f32 else cost


def sigmoid_cross_entropy_with_logits(
    _sentinel: Any = None, labels: Any = None, logits: Any = None, name: str | None = None
) -> Tensor:
    """max(x, 0) - x * z + log(1 + exp(-|x|)): stable for large |x|."""
    _ensure_xent_args("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        x = _float_tensor(logits, "sigmoid_cross_entropy_with_logits", "logits")
        z = convert_to_tensor(labels, dtype=x.dtype.base_dtype, name="labels")
        try:
            z.shape.merge_with(x.shape)
        except ValueError:
            raise ValueError(
                f"logits and labels must have the same shape ({x.shape} vs {z.shape})"
            ) from None
        zeros = array_ops.zeros_like(x, dtype=x.dtype)
        cond = x >= zeros
        internal_deprecations.called_internally(internal_deprecations.WHERE)
        relu_logits = array_ops.where(cond, x, zeros)
        neg_abs_logits = array_ops.where(cond, -x, x)
        # Python operators, as TF 1.15 writes it: the ops are named mul and sub.
        return math_ops.add(
            relu_logits - x * z,  # named sub and mul, as TF's operators name them
            math_ops.log1p(math_ops.exp(neg_abs_logits)),
            name=scope,
        )


def weighted_cross_entropy_with_logits(
    labels: Any = None,
    logits: Any = None,
    pos_weight: Any = None,
    name: str | None = None,
    targets: Any = None,
) -> Tensor:
    """(1 - z) * x + (1 + (q - 1) * z) * (log1p(exp(-|x|)) + max(-x, 0)), as TF computes it."""
    z_in = _deprecated_arg("labels", labels, "targets", targets)
    if z_in is None or logits is None or pos_weight is None:
        raise ValueError("labels, logits and pos_weight must be provided.")
    with name_scope(name, "logistic_loss", [logits, z_in]) as scope:
        x = _float_tensor(logits, "weighted_cross_entropy_with_logits", "logits")
        z = convert_to_tensor(z_in, dtype=x.dtype.base_dtype, name="labels")
        try:
            z.shape.merge_with(x.shape)
        except ValueError:
            raise ValueError(
                f"logits and targets must have the same shape ({x.shape} vs {z.shape})"
            ) from None
        # TF's operators, op for op (a Python pos_weight stays Python arithmetic).
        log_weight = 1 + (pos_weight - 1) * z
        return math_ops.add(
            (1 - z) * x,
            log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(x))) + relu(-x)),
            name=scope,
        )


def l2_loss(t: Any, name: str | None = None) -> Tensor:
    x = _float_tensor(t, "L2Loss", "t")
    return make_op("L2Loss", [x], {"T": x.dtype.base_dtype}, name=name or "L2Loss").outputs[0]


# ---- bias_add, dropout -------------------------------------------------------------------
def bias_add(
    value: Any, bias: Any, data_format: str | None = None, name: str | None = None
) -> Tensor:
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        fmt = "NHWC" if data_format is None else str(data_format)
        if fmt not in ("NHWC", "NCHW"):
            raise ValueError(f"data_format must be 'NHWC' or 'NCHW', got {fmt!r}")
        v = convert_to_tensor(value, name="input")
        b = convert_to_tensor(bias, dtype=v.dtype.base_dtype, name="bias")
        attrs = {"T": v.dtype.base_dtype, "data_format": fmt}
        return make_op("BiasAdd", [v, b], attrs, name=scope).outputs[0]


def bias_add_grad(
    out_backprop: Tensor, data_format: str = "NHWC", name: str | None = None
) -> Tensor:
    with name_scope(name, "BiasAddGrad", [out_backprop]) as scope:
        out_backprop = convert_to_tensor(out_backprop, name="out_backprop")
        attrs = {"T": out_backprop.dtype.base_dtype, "data_format": data_format}
        return make_op("BiasAddGrad", [out_backprop], attrs, name=scope).outputs[0]


def xw_plus_b(x: Any, weights: Any, biases: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        mm = math_ops.matmul(x, weights)
        return bias_add(mm, biases, name=scope)


def relu_layer(x: Any, weights: Any, biases: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "relu_layer", [x, weights, biases]) as scope:
        return relu(bias_add(math_ops.matmul(x, weights), biases), name=scope)


def _noise_shape(x: Tensor, noise_shape: Any) -> Any:
    """noise_shape with unknown entries filled from x's static shape (TF's _get_noise_shape)."""
    if noise_shape is None:
        # A Const named Shape when x's shape is known, as TF's array_ops.shape gives.
        return array_ops.shape(x)
    if isinstance(noise_shape, Tensor):
        return noise_shape
    dims = list(noise_shape.as_list() if isinstance(noise_shape, TensorShape) else noise_shape)
    if x.shape.ndims is not None and len(dims) == x.shape.ndims:
        known = x.shape.as_list()
        dims = [k if d is None else d for d, k in zip(dims, known)]
    if any(d is None for d in dims):
        raise ValueError(f"noise_shape {noise_shape} has unknown dims that x's shape cannot fill")
    return dims


def dropout(
    x: Any,
    keep_prob: Any = None,
    noise_shape: Any = None,
    seed: int | None = None,
    name: str | None = None,
    rate: Any = None,
) -> Tensor:
    """Keeps each element with probability 1 - rate, scaled by 1 / (1 - rate)."""
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'rate' and 'keep_prob'")
        try:
            rate = 1.0 - keep_prob
        except TypeError:
            raise ValueError(
                f"keep_prob must be a floating point number or Tensor (got {keep_prob!r})"
            ) from None
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    return dropout_v2(x, rate, noise_shape=noise_shape, seed=seed, name=name)


# TF 1.15 warns of a Python-number rate above 0.5 with log_first_n(WARN, ..., 5) from one call
# site: the first five such calls of the process are logged.
_large_rate_calls = itertools.count()


def dropout_v2(
    x: Any, rate: Any, noise_shape: Any = None, seed: int | None = None, name: str | None = None
) -> Tensor:
    with name_scope(name, "dropout", [x]):
        t = convert_to_tensor(x, name="x")
        if not t.dtype.base_dtype.is_floating:
            raise ValueError(
                "x has to be a floating point tensor since it's going to be scaled. Got a "
                f"{t.dtype.name} tensor instead."
            )
        if isinstance(rate, numbers.Real):
            if not 0 <= float(rate) < 1:
                raise ValueError(
                    f"rate must be a scalar tensor or a float in the range [0, 1), got {rate:g}"
                )
            if float(rate) > 0.5 and next(_large_rate_calls) < 5:
                logging.getLogger("tensorflow").warning(
                    "Large dropout rate: %g (>0.5). In TensorFlow 2.x, dropout() uses dropout "
                    "rate instead of keep_prob. Please ensure that this is intended.",
                    rate,
                )
            if rate == 0:
                return t
        rate_t = convert_to_tensor(rate, dtype=t.dtype.base_dtype, name="rate")
        if not rate_t.shape.is_compatible_with(TensorShape([])):
            raise ValueError(f"rate must be a scalar, got shape {rate_t.shape}")
        const = tensor_util.constant_value(rate_t)
        if const is not None and float(const) == 0:
            return t
        shape = _noise_shape(t, noise_shape)
        random_tensor = random_ops.random_uniform(shape, seed=seed, dtype=t.dtype.base_dtype)
        # Python's operators, as TF writes it: nodes sub, truediv, GreaterEqual, mul, Cast,
        # mul_1 (the result), named as TF names them.
        keep_prob = 1 - rate_t
        scale = 1 / keep_prob
        keep_mask = random_tensor >= rate_t
        ret = t * scale * math_ops.cast(keep_mask, t.dtype.base_dtype)
        ret.set_shape(t.shape)
        return ret


# ---- gradient op builders (gen_nn_ops style, used by gradients/nn_grad.py) ----------------
def activation_grad(
    op_type: str, gradients: Tensor, other: Tensor, attrs: dict[str, Any] | None = None
) -> Tensor:
    """ReluGrad(gradients, features), EluGrad(gradients, outputs), ..."""
    with name_scope(None, op_type, [gradients, other]) as scope:
        # An IndexedSlices (a gather's gradient) is made dense here, as "<op>/gradients".
        gradients = convert_to_tensor(gradients, name="gradients")
        all_attrs = {"T": gradients.dtype.base_dtype, **(attrs or {})}
        return make_op(op_type, [gradients, other], all_attrs, name=scope).outputs[0]


# ---- metrics and normalisation -----------------------------------------------------------
def in_top_k(predictions: Any, targets: Any, k: int, name: str | None = None) -> Tensor:
    p = convert_to_tensor(predictions, dtype=dtypes.float32, name="predictions")
    t = convert_to_tensor(targets, name="targets")
    check_dtype(t, INTS, "InTopK", "targets")
    attrs = {"k": int(k), "T": t.dtype.base_dtype}
    return make_op("InTopK", [p, t], attrs, name=name or "InTopK").outputs[0]


def l2_normalize(
    x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None, dim: Any = None
) -> Tensor:
    """x / sqrt(max(sum(x**2, axis), epsilon))."""
    axis = _deprecated_arg("axis", axis, "dim", dim)
    with name_scope(name, "l2_normalize", [x]) as scope:
        t = _float_tensor(x, "l2_normalize", "x")
        square_sum = math_ops.reduce_sum(math_ops.square(t), axis, keepdims=True)
        # As TF: epsilon becomes the Maximum's own "y" constant.
        x_inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
        return math_ops.multiply(t, x_inv_norm, name=scope)


def moments(
    x: Any,
    axes: Any,
    shift: Any = None,
    name: str | None = None,
    keep_dims: Any = None,
    keepdims: Any = None,
) -> tuple[Tensor, Tensor]:
    """(mean, variance) of x over axes, computed as TF1 does (shifted by the stopped mean)."""
    keep = bool(_deprecated_arg("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name, "moments", [x, axes]):
        t = _float_tensor(x, "moments", "x")
        y = math_ops.cast(t, dtypes.float32) if t.dtype.base_dtype == dtypes.float16 else t
        mean = math_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = math_ops.reduce_mean(
            math_ops.squared_difference(y, array_ops.stop_gradient(mean)),
            axes,
            keepdims=True,
            name="variance",
        )
        if not keep:
            mean = array_ops.squeeze(mean, list(axes))
            variance = array_ops.squeeze(variance, list(axes))
        if t.dtype.base_dtype == dtypes.float16:
            return math_ops.cast(mean, dtypes.float16), math_ops.cast(variance, dtypes.float16)
        return mean, variance


__all__ = [
    "bias_add",
    "dropout",
    "elu",
    "in_top_k",
    "l2_loss",
    "l2_normalize",
    "leaky_relu",
    "log_softmax",
    "moments",
    "relu",
    "relu6",
    "relu_layer",
    "selu",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "softplus",
    "softsign",
    "sparse_softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits",
    "weighted_cross_entropy_with_logits",
    "xw_plus_b",
]
