"""GPU comparison cases for the fake-quantization kernels, QuantizeAndDequantizeV2 and
IdentityN (written over xp); gpu_op_cases imports them into CASES."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tfcluster as tf


def _x(*shape: int) -> Any:
    rng = np.random.default_rng(17)
    return tf.constant(rng.uniform(-8.0, 8.0, shape).astype(np.float32))


def _fake_quant_args() -> Any:
    from support.gpu_op_cases import Build

    x = _x(4, 6)
    y = tf.quantization.fake_quant_with_min_max_args(x, min=-3.1, max=5.2, num_bits=6)
    return Build([y, tf.gradients(y, x, grad_ys=tf.ones_like(x) * 1.5)[0]])


def _fake_quant_vars() -> Any:
    from support.gpu_op_cases import Build

    x = _x(4, 6)
    lo, hi = tf.constant(-2.3), tf.constant(4.7)
    y = tf.quantization.fake_quant_with_min_max_vars(x, lo, hi, narrow_range=True)
    return Build([y, *tf.gradients(y, [x, lo, hi], grad_ys=tf.ones_like(x) * 0.5)])


def _fake_quant_per_channel() -> Any:
    from support.gpu_op_cases import Build

    x = _x(2, 3, 4)
    lo = tf.constant([-1.0, -6.0, 0.0, -2.2])
    hi = tf.constant([1.0, 6.0, 2.55, 0.0])
    y = tf.quantization.fake_quant_with_min_max_vars_per_channel(x, lo, hi)
    flat = tf.quantization.fake_quant_with_min_max_vars_per_channel(tf.reshape(x, [-1])[:4], lo, hi)
    return Build([y, flat, *tf.gradients(y, [x, lo, hi], grad_ys=tf.ones_like(x) * 2.0)])


def _quantize_and_dequantize() -> Any:
    from support.gpu_op_cases import Build

    x = _x(3, 5)
    return Build(
        [
            tf.quantization.quantize_and_dequantize(x, -1.0, 1.0),
            tf.quantization.quantize_and_dequantize(
                x, -3.0, 2.0, range_given=True, num_bits=4, round_mode="HALF_UP"
            ),
            tf.quantization.quantize_and_dequantize(x, 0.0, 0.0, signed_input=False),
        ]
    )


def _identity_n() -> Any:
    from support.gpu_op_cases import Build

    a, b = tf.identity_n([_x(2, 3), tf.constant(np.arange(4, dtype=np.float64))])
    return Build([a * 2.0, b + 1.0])


CASES_QUANTIZATION: dict[str, Callable[[], Any]] = {
    "FakeQuantWithMinMaxArgs": _fake_quant_args,
    "FakeQuantWithMinMaxArgsGradient": _fake_quant_args,
    "FakeQuantWithMinMaxVars": _fake_quant_vars,
    "FakeQuantWithMinMaxVarsGradient": _fake_quant_vars,
    "FakeQuantWithMinMaxVarsPerChannel": _fake_quant_per_channel,
    "FakeQuantWithMinMaxVarsPerChannelGradient": _fake_quant_per_channel,
    "QuantizeAndDequantizeV2": _quantize_and_dequantize,
    "IdentityN": _identity_n,
}
