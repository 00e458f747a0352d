"""tf.lin_space / tf.linspace (TF's LinSpace op)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.infer_util import check_dtype, index_tensor, static_int, with_rank
from tfcluster.ops.op_util import Outputs, make_op

_FLOATS = (dtypes.float32, dtypes.float64)


def _lin_space_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    for t, what in zip(inputs, ("start", "stop", "num")):
        with_rank(t.shape, 0, what)
    num = static_int(inputs[2])
    if num is not None and num <= 0:
        raise ValueError(f"Requires num > 0: {num}")
    return [(inputs[0].dtype.base_dtype, TensorShape([num]))]


op_def_registry.register("LinSpace", _lin_space_infer)


def lin_space(start: Any, stop: Any, num: Any, name: str | None = None) -> Tensor:
    """num evenly spaced values from start to stop (both included)."""
    with name_scope(name, "LinSpace", [start, stop, num]) as scope:
        a = convert_to_tensor(start, name="start")
        check_dtype(a, _FLOATS, "LinSpace", "start")
        b = convert_to_tensor(stop, dtype=a.dtype.base_dtype, name="stop")
        n = index_tensor(num, "num")
        attrs = {"T": a.dtype.base_dtype, "Tidx": n.dtype.base_dtype}
        return make_op("LinSpace", [a, b, n], attrs, name=scope).outputs[0]


linspace = lin_space

__all__ = ["lin_space", "linspace"]
