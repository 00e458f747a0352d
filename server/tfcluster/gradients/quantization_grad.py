"""Gradients of the fake-quantization ops (straight through inside the nudged range; the
range's own gradients from what falls outside it) and of QuantizeAndDequantizeV2 (straight
through), as TF 1.15's array_grad defines them."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import quantization_ops


@RegisterGradient("FakeQuantWithMinMaxArgs")
def _fake_quant_args_grad(op: Operation, grad: Tensor) -> Any:
    return [
        quantization_ops.fake_quant_with_min_max_args_gradient(
            grad,
            op.inputs[0],
            min=op._get_attr("min"),
            max=op._get_attr("max"),
            num_bits=op._get_attr("num_bits"),
            narrow_range=op._get_attr("narrow_range"),
        )
    ]


@RegisterGradient("FakeQuantWithMinMaxVars")
def _fake_quant_vars_grad(op: Operation, grad: Tensor) -> Any:
    return list(
        quantization_ops.fake_quant_with_min_max_vars_gradient(
            grad,
            op.inputs[0],
            op.inputs[1],
            op.inputs[2],
            num_bits=op._get_attr("num_bits"),
            narrow_range=op._get_attr("narrow_range"),
        )
    )


@RegisterGradient("FakeQuantWithMinMaxVarsPerChannel")
def _fake_quant_per_channel_grad(op: Operation, grad: Tensor) -> Any:
    return list(
        quantization_ops.fake_quant_with_min_max_vars_per_channel_gradient(
            grad,
            op.inputs[0],
            op.inputs[1],
            op.inputs[2],
            num_bits=op._get_attr("num_bits"),
            narrow_range=op._get_attr("narrow_range"),
        )
    )


@RegisterGradient("QuantizeAndDequantizeV2")
def _quantize_and_dequantize_grad(op: Operation, grad: Tensor) -> Any:
    return [grad, None, None]
