"""tf.dtypes"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.framework.dtypes import (
    QUANTIZED_DTYPES,
    DType,
    as_dtype,
    complex64,
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
)
from tfcluster.framework.dtypes import (
    bool_ as bool,
)
from tfcluster.ops.complex_ops import complex
from tfcluster.ops.math_ops import cast, saturate_cast

__getattr__ = _unimplemented.module_getattr("dtypes")
