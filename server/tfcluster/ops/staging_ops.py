"""TF's staging ops (kernels/staging.py): StagingArea's Stage / Unstage / StagePeek /
StageSize / StageClear and the (ordered) map staging area's Map* / OrderedMap* ops. The area
is named by the ops' shared_name; TF's shape functions give unknown shapes to what comes out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs

_SIZE = op_def_registry.fixed((dtypes.int32, TensorShape([])))


def _values_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.as_dtype(t), TensorShape(None)) for t in attrs["dtypes"]]


def _keyed_values_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.int64, TensorShape(None)), *_values_infer(inputs, attrs)]


_STAGING = {
    "Stage": op_def_registry.no_outputs,
    "Unstage": _values_infer,
    "StagePeek": _values_infer,
    "StageSize": _SIZE,
    "StageClear": op_def_registry.no_outputs,
}
_MAP_STAGING = {
    "Stage": op_def_registry.no_outputs,
    "Unstage": _values_infer,
    "UnstageNoKey": _keyed_values_infer,
    "Peek": _values_infer,
    "Size": _SIZE,
    "IncompleteSize": _SIZE,
    "Clear": op_def_registry.no_outputs,
}
for _op, _infer in _STAGING.items():
    op_def_registry.register(_op, _infer, stateful=True)
for _prefix in ("Map", "OrderedMap"):
    for _op, _infer in _MAP_STAGING.items():
        op_def_registry.register(f"{_prefix}{_op}", _infer, stateful=True)
# The op types this module adds (TF 1.15 registers no gradient for them: tf.gradients
# raises LookupError when a gradient reaches one, as TF).
OP_TYPES = (
    *_STAGING,
    *(f"{prefix}{op}" for prefix in ("Map", "OrderedMap") for op in _MAP_STAGING),
)

__all__: list[str] = []
