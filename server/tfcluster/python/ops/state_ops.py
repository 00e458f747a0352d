"""tensorflow.python.ops.state_ops: tfcluster.ops.state_ops's variable ops and assignments,
with the variable scatter updates TF 1.15 keeps in the same module (scatter_add,
scatter_nd_update, batch_scatter_update, ...), which programs' own optimizers call."""

from tfcluster.ops import state_ops as _state_ops
from tfcluster.ops.batch_scatter_ops import batch_scatter_update
from tfcluster.ops.scatter_ops import (
    scatter_add,
    scatter_div,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_nd_add,
    scatter_nd_sub,
    scatter_nd_update,
    scatter_sub,
    scatter_update,
)

globals().update(
    {name: value for name, value in vars(_state_ops).items() if not name.startswith("__")}
)

__all__ = [
    "batch_scatter_update",
    "scatter_add",
    "scatter_div",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
    "scatter_nd_add",
    "scatter_nd_sub",
    "scatter_nd_update",
    "scatter_sub",
    "scatter_update",
]
