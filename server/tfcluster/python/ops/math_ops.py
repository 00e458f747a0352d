"""tensorflow.python.ops.math_ops: tfcluster.ops.math_ops's functions over TF 1.15's generated
math op wrappers, as TF's module star-imports gen_math_ops before defining its own
(`math_ops.euclidean_norm(x, axis=-1)` is the EuclideanNorm wrapper)."""

from typing import Any

from tfcluster.ops import math_ops as _math_ops
from tfcluster.python.ops import gen_math_ops as _gen_math_ops

globals().update(
    {name: value for name, value in vars(_math_ops).items() if not name.startswith("__")}
)


def __getattr__(name: str) -> Any:
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    return getattr(_gen_math_ops, name)
