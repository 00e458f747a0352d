"""TF's barrier ops (kernels/barriers.py): Barrier hands out a string ref handle (container,
name); BarrierInsertMany fills one component of keyed elements, BarrierTakeMany takes complete
ones with their insertion index and key. Every op on a barrier takes its handle as a
reference input, so it runs where the barrier lives."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs

_SIZE = op_def_registry.fixed((dtypes.int32, TensorShape([])))


def _barrier_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.string._as_ref, TensorShape([2]))]


def _take_many_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    # TF's shape function knows nothing of the barrier's shapes behind a string handle.
    types = [dtypes.as_dtype(t) for t in attrs["component_types"]]
    return [
        (dtypes.int64, TensorShape(None)),
        (dtypes.string, TensorShape(None)),
        *((t, TensorShape(None)) for t in types),
    ]


def _insert_many_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    keys = inputs[1].shape
    if keys.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {keys.ndims} (keys)")
    return []


op_def_registry.register("Barrier", _barrier_infer, stateful=True)
_USERS = {
    "BarrierInsertMany": _insert_many_infer,
    "BarrierTakeMany": _take_many_infer,
    "BarrierClose": op_def_registry.no_outputs,
    "BarrierReadySize": _SIZE,
    "BarrierIncompleteSize": _SIZE,
}
for _op, _infer in _USERS.items():
    op_def_registry.register(_op, _infer, ref_inputs=[0], stateful=True)
# The op types this module adds (TF 1.15 registers no gradient for them: tf.gradients
# raises LookupError when a gradient reaches one, as TF).
OP_TYPES = ("Barrier", *_USERS)

__all__: list[str] = []
