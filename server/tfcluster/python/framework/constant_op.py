"""tensorflow.python.framework.constant_op (`constant_op.constant(...)`, common in code written
against TF's own tests and libraries): tf.constant, and the module's is_constant."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.ops.constant_op import constant as constant_v1
from tfcluster.python._private_module import module_getattr

# TF 1.15's constant_op.constant is the v2 form (no verify_shape); constant_v1 is tf.constant.


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Tensor:
    """A Const tensor of `value` (TF 1.15's constant_op.constant: tf.constant without
    verify_shape)."""
    result: Tensor = constant_v1(value, dtype=dtype, shape=shape, name=name)
    return result


def is_constant(tensor_or_op: Tensor | Operation) -> bool:
    """Whether the tensor's op (or the op) is a Const."""
    op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
    return bool(op.type == "Const")


__getattr__ = module_getattr("python.framework.constant_op")

__all__ = ["constant", "constant_v1", "is_constant"]
