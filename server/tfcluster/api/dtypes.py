"""tf.dtypes"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.framework.dtypes import (
    DType,
    as_dtype,
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
    resource,
    string,
    uint8,
)
from tfcluster.framework.dtypes import (
    bool_ as bool,
)
from tfcluster.ops.complex_ops import complex
from tfcluster.ops.math_ops import cast, saturate_cast

__getattr__ = _unimplemented.module_getattr("dtypes")
