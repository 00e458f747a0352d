"""TF 1.15's constructor signatures for Keras layers whose code takes **kwargs: the names,
positional order and defaults TF shows, so that positional calls (Conv2D(32, 3, 2, "same"))
bind as in TF. The arguments a call gave are handed on by name; those it left out keep the
layer's own defaults (the same values TF's signature shows)."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

REQUIRED = inspect.Parameter.empty
_POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD


def signature(params: Sequence[tuple[str, Any]]) -> inspect.Signature:
    """(self, *params, **kwargs), params as (name, default or REQUIRED)."""
    return inspect.Signature(
        [inspect.Parameter("self", _POSITIONAL)]
        + [inspect.Parameter(name, _POSITIONAL, default=default) for name, default in params]
        + [inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)]
    )


def given_arguments(
    sig: inspect.Signature, layer: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The arguments a call gave, by name (TypeError for a call TF's signature refuses)."""
    bound = sig.bind(layer, *args, **kwargs)
    given = {k: v for k, v in bound.arguments.items() if k not in ("self", "kwargs")}
    given.update(bound.arguments.get("kwargs", {}))
    return given


# The parameters after the layer's own that Dense and the Conv layers share, in TF's order.
_KERNEL_LAYER_PARAMS: tuple[tuple[str, Any], ...] = (
    ("activation", None),
    ("use_bias", True),
    ("kernel_initializer", "glorot_uniform"),
    ("bias_initializer", "zeros"),
    ("kernel_regularizer", None),
    ("bias_regularizer", None),
    ("activity_regularizer", None),
    ("kernel_constraint", None),
    ("bias_constraint", None),
)


def conv_params(
    rank: int, *, transpose: bool = False, separable: bool = False
) -> list[tuple[str, Any]]:
    """TF 1.15's tf.keras.layers.Conv{1,2,3}D / Conv*Transpose / SeparableConv*D parameters."""
    ones: Any = 1 if rank == 1 else (1,) * rank
    data_format = "channels_last" if rank == 1 and not separable else None
    params: list[tuple[str, Any]] = [
        ("filters", REQUIRED),
        ("kernel_size", REQUIRED),
        ("strides", ones),
        ("padding", "valid"),
    ]
    if transpose:
        params.append(("output_padding", None))
    params.append(("data_format", data_format))
    if not (transpose and rank == 3):
        params.append(("dilation_rate", ones))
    if separable:
        params += [
            ("depth_multiplier", 1),
            ("activation", None),
            ("use_bias", True),
            ("depthwise_initializer", "glorot_uniform"),
            ("pointwise_initializer", "glorot_uniform"),
            ("bias_initializer", "zeros"),
            ("depthwise_regularizer", None),
            ("pointwise_regularizer", None),
            ("bias_regularizer", None),
            ("activity_regularizer", None),
            ("depthwise_constraint", None),
            ("pointwise_constraint", None),
            ("bias_constraint", None),
        ]
        return params
    return [*params, *_KERNEL_LAYER_PARAMS]


DENSE = signature([("units", REQUIRED), *_KERNEL_LAYER_PARAMS])

BATCH_NORMALIZATION = signature(
    [
        ("axis", -1),
        ("momentum", 0.99),
        ("epsilon", 0.001),
        ("center", True),
        ("scale", True),
        ("beta_initializer", "zeros"),
        ("gamma_initializer", "ones"),
        ("moving_mean_initializer", "zeros"),
        ("moving_variance_initializer", "ones"),
        ("beta_regularizer", None),
        ("gamma_regularizer", None),
        ("beta_constraint", None),
        ("gamma_constraint", None),
        ("renorm", False),
        ("renorm_clipping", None),
        ("renorm_momentum", 0.99),
        ("fused", None),
        ("trainable", True),
        ("virtual_batch_size", None),
        ("adjustment", None),
        ("name", None),
    ]
)


def _recurrent_params(
    gates: bool, forget_bias: bool = False, reset_after: bool = False
) -> list[tuple[str, Any]]:
    """TF 1.15's SimpleRNN (gates False), GRU and LSTM parameters."""
    params: list[tuple[str, Any]] = [("units", REQUIRED), ("activation", "tanh")]
    if gates:
        params.append(("recurrent_activation", "hard_sigmoid"))
    params += [
        ("use_bias", True),
        ("kernel_initializer", "glorot_uniform"),
        ("recurrent_initializer", "orthogonal"),
        ("bias_initializer", "zeros"),
    ]
    if forget_bias:
        params.append(("unit_forget_bias", True))
    params += [
        ("kernel_regularizer", None),
        ("recurrent_regularizer", None),
        ("bias_regularizer", None),
        ("activity_regularizer", None),
        ("kernel_constraint", None),
        ("recurrent_constraint", None),
        ("bias_constraint", None),
        ("dropout", 0.0),
        ("recurrent_dropout", 0.0),
    ]
    if gates:
        params.append(("implementation", 1))
    params += [
        ("return_sequences", False),
        ("return_state", False),
        ("go_backwards", False),
        ("stateful", False),
        ("unroll", False),
    ]
    if reset_after:
        params.append(("reset_after", False))
    return params


SIMPLE_RNN = signature(_recurrent_params(gates=False))
GRU = signature(_recurrent_params(gates=True, reset_after=True))
LSTM = signature(_recurrent_params(gates=True, forget_bias=True))
