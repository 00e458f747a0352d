"""tf.quantization"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.ops.quantization_ops import (
    dequantize,
    fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient,
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient,
    quantize,
    quantize_and_dequantize,
    quantized_concat,
)

__getattr__ = _unimplemented.module_getattr("quantization")
