"""`tf.*` names of quantization: the quantized dtypes and tf.quantization's ops at the top."""

from tfcluster.framework.dtypes import QUANTIZED_DTYPES, qint8, qint16, qint32, quint8, quint16
from tfcluster.ops.quantization_ops import (
    dequantize,
    fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient,
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient,
    quantize,
    quantize_v2,
    quantized_concat,
)

__all__ = [
    "QUANTIZED_DTYPES",
    "dequantize",
    "fake_quant_with_min_max_args",
    "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars",
    "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel",
    "fake_quant_with_min_max_vars_per_channel_gradient",
    "qint16",
    "qint32",
    "qint8",
    "quantize",
    "quantize_v2",
    "quantized_concat",
    "quint16",
    "quint8",
]
