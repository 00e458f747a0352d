"""TF 1.15's switches between TF1 and TF2 behaviour, answered with what tfcluster does:
reference variables (VariableV2) by default, resource variables (VarHandleOp) once enabled;
TensorShape entries that are Dimensions and tensors compared
by identity (hashable) are TF1's side; control flow is functional If/While ops, which is what
TF's control flow v2 builds. A switch to the side tfcluster has keeps it; a switch to the other
side raises UnimplementedError naming the switch."""

from __future__ import annotations

from typing import NoReturn

from tfcluster.framework import errors
from tfcluster.ops import variables


def _refuse(switch: str, what: str) -> NoReturn:
    raise errors.UnimplementedError(
        None, None, f"tf.{switch} is not implemented in tfcluster: it has {what} only"
    )


def resource_variables_enabled() -> bool:
    """Whether variables not asked otherwise are resource variables (VarHandleOp)."""
    return variables.default_use_resource()


def disable_resource_variables() -> None:
    """Variables are reference variables (VariableV2), TF1's default."""
    variables.set_default_use_resource(False)


def enable_resource_variables() -> None:
    """Variables not asked otherwise (use_resource None everywhere) are resource variables."""
    variables.set_default_use_resource(True)


def disable_v2_tensorshape() -> None:
    """TensorShape entries are Dimension objects (TF1's default): nothing to change."""


def enable_v2_tensorshape() -> NoReturn:
    _refuse("enable_v2_tensorshape", "TensorShapes whose entries are Dimensions")


def disable_tensor_equality() -> None:
    """Tensors compare by identity and are hashable (TF1's default): nothing to change."""


def enable_tensor_equality() -> NoReturn:
    _refuse("enable_tensor_equality", "tensors compared by identity")


def control_flow_v2_enabled() -> bool:
    """True: tf.cond and tf.while_loop build functional If/While ops, as control flow v2 does
    (their values are TF1's; the graphs have no Switch/Merge)."""
    return True


def enable_control_flow_v2() -> None:
    """tf.cond and tf.while_loop already build If/While ops: nothing to change."""


# tf.compat.v1.experimental.output_all_intermediates's override (None: TF's default choice).
_output_all_intermediates: bool | None = None


def output_all_intermediates(state: bool | None) -> None:
    """Whether functional control flow ops output their intermediates for gradients taken
    after the forward graph is frozen (Keras): True, False, or None for the default.

    tfcluster's If/While gradients recompute their branches from the op's inputs (and the
    stateful values the forward op always exports), so a gradient built after freezing works
    whatever the state; the state is kept for output_all_intermediates_override()."""
    global _output_all_intermediates
    _output_all_intermediates = state


def output_all_intermediates_override() -> bool | None:
    return _output_all_intermediates


def disable_control_flow_v2() -> NoReturn:
    _refuse("disable_control_flow_v2", "functional If/While control flow (no Switch/Merge)")


__all__ = [
    "control_flow_v2_enabled",
    "disable_control_flow_v2",
    "disable_resource_variables",
    "disable_tensor_equality",
    "disable_v2_tensorshape",
    "enable_control_flow_v2",
    "enable_resource_variables",
    "enable_tensor_equality",
    "enable_v2_tensorshape",
    "resource_variables_enabled",
]
