"""TF1's stack ops (StackV2, StackPushV2, StackPopV2, StackCloseV2), as graphs TensorFlow 1.x
wrote them: the gradient of a v1 while loop saves each iteration's forward values on a stack
and pops them in the backward loop. They come in with imported training graphs
(kernels/stacks.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs

_HANDLE = (dtypes.resource, TensorShape([2]))


def _stack_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    if inputs[0].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {inputs[0].shape.ndims} (max_size)")
    return [_HANDLE]


def _push_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[1].dtype.base_dtype, inputs[1].shape)]


def _pop_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.as_dtype(attrs["elem_type"]), TensorShape(None))]


def _ref_stack_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    # The first Stack op: no max_size, a mutable string handle (container, name).
    return [(dtypes.string._as_ref, TensorShape([2]))]


# Every op on a stack takes its handle first: placed with the stack like a reference input.
# The first versions (Stack, StackPush, ...) take a string ref handle: the same kernels.
op_def_registry.register("StackV2", _stack_infer, stateful=True)
op_def_registry.register("Stack", _ref_stack_infer, stateful=True)
for _suffix in ("V2", ""):
    op_def_registry.register(f"StackPush{_suffix}", _push_infer, ref_inputs=[0], stateful=True)
    op_def_registry.register(f"StackPop{_suffix}", _pop_infer, ref_inputs=[0], stateful=True)
    op_def_registry.register(
        f"StackClose{_suffix}", op_def_registry.no_outputs, ref_inputs=[0], stateful=True
    )

__all__: list[str] = []
