"""tf.dtypes"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.framework.dtypes import (
    QUANTIZED_DTYPES,
    DType,
    as_dtype,
    bfloat16,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    qint8,
    qint16,
    qint32,
    quint8,
    quint16,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from tfcluster.framework.dtypes import (
    bool_ as bool,
)
from tfcluster.ops.complex_ops import complex
from tfcluster.ops.math_ops import cast, saturate_cast
from tfcluster.ops.string_ops import as_string

__getattr__ = _unimplemented.module_getattr("dtypes")
