"""A JSON form of a parameter's default that two frameworks can compare: plain values as
themselves, sequences item by item, DTypes by name, functions and classes by name, others by
type. Used by record_public_signatures.py (TF 1.15, Python 3.7) and
tests/unit/public_signature_check.py (tfcluster)."""

import enum
import math
import types


def encode_default(value, dtype_class):
    """`dtype_class` is the framework's DType (tf.DType of TF or of tfcluster)."""
    if value is None or isinstance(value, (bool, str)):
        return {"v": value}
    if isinstance(value, int):
        return {"v": int(value)}
    if isinstance(value, float):
        return {"v": value} if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, enum.Enum):
        return {"enum": f"{type(value).__name__}.{value.name}"}
    if isinstance(value, (list, tuple)):
        items = [encode_default(v, dtype_class) for v in value]
        return {"seq": type(value).__name__, "items": items}
    if isinstance(value, dtype_class):
        return {"dtype": value.name}
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        return {"callable": getattr(value, "__name__", "?")}
    return {"type": type(value).__name__}
