"""tf.check_numerics, tf.verify_tensor_all_finite and tf.add_check_numerics_ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dispatch, dtypes, op_def_registry
from tfcluster.framework.func_graph import FUNCTIONAL_OPS
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tfcluster.ops import control_flow_ops
from tfcluster.ops.op_util import Outputs

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


def _check_numerics_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


op_def_registry.register("CheckNumerics", _check_numerics_infer, stateful=True)


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Tensor:
    """The tensor, once checked for NaN and Inf values (InvalidArgumentError otherwise)."""
    with name_scope(name, "CheckNumerics", [tensor]) as scope:
        t = convert_to_tensor(tensor, name="tensor")
        if t.dtype.base_dtype not in _FLOATS:
            raise TypeError(
                f"Value passed to parameter 'tensor' has DataType {t.dtype.base_dtype.name} not "
                "in list of allowed values: bfloat16, float16, float32, float64"
            )
        attrs = {"T": t.dtype.base_dtype, "message": message}
        return get_default_graph().create_op("CheckNumerics", [t], attrs, name=scope).outputs[0]


def verify_tensor_all_finite(
    t: Any = None, msg: Any = None, name: str | None = None, x: Any = None, message: Any = None
) -> Tensor:
    """`t` (or `x`), run only after it was checked for NaN and Inf values."""
    value = x if x is not None else t
    text = message if message is not None else msg
    with name_scope(name, "VerifyFinite", [value]):
        value = convert_to_tensor(value, name="x")
        with colocate_with(value):
            verify = check_numerics(value, message=text)
            return control_flow_ops.with_dependencies([verify], value)


def add_check_numerics_ops() -> Operation:
    """A check_numerics op on every half/float/double output of the default graph, chained
    so that an op's inputs are checked before its outputs; returns their group."""
    checks: list[Tensor] = []
    for op in get_default_graph().get_operations():
        for output in op.outputs:
            if output.dtype.base_dtype in _FLOATS:
                if op.type in FUNCTIONAL_OPS:
                    raise ValueError(
                        "`tf.add_check_numerics_ops() is not compatible with TensorFlow control "
                        "flow operations such as `tf.cond()` or `tf.while_loop()`."
                    )
                text = f"{op.name}:{output.value_index}"
                with control_dependencies(checks):
                    checks = [check_numerics(output, message=text)]
    return control_flow_ops.group(*checks)


__all__ = ["add_check_numerics_ops", "check_numerics", "verify_tensor_all_finite"]

# Ragged operands go to the handlers tf.ragged registers (framework/dispatch.DISPATCHED).
dispatch.make_dispatchable(globals())
