"""BatchFunction: calls of a function from concurrent steps, run together as one batch.

The function is a traced body in the `f` func attr (as tf.function's call ops carry it). Its
inputs are split along dimension 0 back into each call's results.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import op_def_registry
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs


def _batch_function_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    # As TF's: the batch a call lands in is only known when it runs.
    return [(dt, TensorShape(None)) for dt in attrs["Tout"]]


op_def_registry.register("BatchFunction", _batch_function_infer, stateful=True)

__all__: list[str] = []
