"""Op definitions of TF 1.15's remaining ops taking functions: For (a counted loop over a
body), SymbolicGradient (the gradient of a function), MapDefun (a function over the slices
of its arguments along dimension 0) and RemoteCall (a function run on a target device); and
WorkerHeartbeat (kernels/worker_heartbeat.py).

Their kernels are in kernels/function_loops.py and kernels/remote_call.py; they run their
bodies as If/While/PartitionedCall do (kernels/functional.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs


def _for_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    # As TF 1.15's: the body may change its loop values' shapes.
    return [(dt, TensorShape(None)) for dt in attrs["T"]]


def _symbolic_gradient_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    # TF 1.15: the gradient of the k-th argument has that argument's shape.
    tout = attrs["Tout"]
    if len(inputs) < len(tout):
        raise ValueError(
            f"SymbolicGradient has {len(inputs)} inputs for {len(tout)} outputs: it takes the "
            "function's arguments, then one gradient per function result"
        )
    return [(dt, inputs[k].shape) for k, dt in enumerate(tout)]


def _map_defun_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    # TF 1.15: [dimension 0 of the arguments] + each declared per-slice shape.
    batch = TensorShape([None])
    for k, t in enumerate(inputs[: len(attrs["Targuments"])]):
        if t.shape.rank == 0:
            raise ValueError(
                f"Arguments must have rank at least 1. Input {k} has rank of 0. for "
                f"'MapDefun' (op: 'MapDefun') with input shapes: {_shapes(inputs)}."
            )
        if t.shape.rank is not None:
            if not batch.is_compatible_with(t.shape[:1]):
                raise ValueError(
                    "Arguments must have the same dimension 0. for 'MapDefun' (op: "
                    f"'MapDefun') with input shapes: {_shapes(inputs)}."
                )
            batch = batch.merge_with(t.shape[:1])
    return [
        (dt, batch.concatenate(TensorShape(s)))
        for dt, s in zip(attrs["output_types"], attrs["output_shapes"])
    ]


def _shapes(inputs: Sequence[Tensor]) -> str:
    return ", ".join(str(t.shape).replace(" ", "").replace("?", "?") for t in inputs)


def _remote_call_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dt, TensorShape(None)) for dt in attrs["Tout"]]


op_def_registry.register("For", _for_infer, stateful=True)
op_def_registry.register("SymbolicGradient", _symbolic_gradient_infer)
op_def_registry.register("MapDefun", _map_defun_infer)
op_def_registry.register("RemoteCall", _remote_call_infer, stateful=True)
# kernels/worker_heartbeat.py: a serialized WorkerHeartbeatRequest in, a response out.
op_def_registry.register(
    "WorkerHeartbeat", op_def_registry.fixed((dtypes.string, [])), stateful=True
)

__all__: list[str] = []
