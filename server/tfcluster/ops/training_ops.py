"""The optimizers' update ops (TF1's training_ops): ApplyGradientDescent, ApplyMomentum, ...

Each takes its variable and slots as references (so they are placed with the variable, on
the ps) and returns the updated variable's reference. Argument order, attr names (T,
use_locking, use_nesterov) and kernels' formulas follow TensorFlow's training_ops.cc.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.ops.op_util import FLOATS, Outputs, make_op

# op type -> (input names, how many leading inputs are references)
_SIGNATURES: dict[str, tuple[tuple[str, ...], int]] = {
    "ApplyGradientDescent": (("var", "alpha", "delta"), 1),
    "ApplyMomentum": (("var", "accum", "lr", "grad", "momentum"), 2),
    "ApplyAdam": (
        (
            "var",
            "m",
            "v",
            "beta1_power",
            "beta2_power",
            "lr",
            "beta1",
            "beta2",
            "epsilon",
            "grad",
        ),
        3,
    ),
    "ApplyAdagrad": (("var", "accum", "lr", "grad"), 2),
    "ApplyRMSProp": (("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"), 3),
    "ApplyCenteredRMSProp": (
        ("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"),
        4,
    ),
}

# Inputs that must have the variable's shape (the slots and the gradient).
_SAME_SHAPE = {"accum", "m", "v", "ms", "mom", "mg", "delta", "grad"}


def _make_infer(op_type: str) -> Any:
    names, num_refs = _SIGNATURES[op_type]

    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        var = inputs[0]
        base = var.dtype.base_dtype
        shape = var.shape
        for i, (name, t) in enumerate(zip(names, inputs)):
            if i < num_refs and not t.dtype.is_ref_dtype:
                raise TypeError(
                    f"'{op_type}' Op requires that input '{name}' be a mutable tensor "
                    f"(e.g.: a tf.Variable)"
                )
            if t.dtype.base_dtype != base:
                raise TypeError(
                    f"Input '{name}' of '{op_type}' Op has type {t.dtype.base_dtype.name} that "
                    f"does not match type {base.name} of argument 'var'."
                )
            if name in _SAME_SHAPE:
                if not shape.is_compatible_with(t.shape):
                    raise ValueError(
                        f"Shapes must be equal rank, but are {shape} and {t.shape} for "
                        f"'{op_type}' (input '{name}')"
                    )
                shape = shape.merge_with(t.shape)
            elif i > 0 and t.shape.ndims not in (None, 0):
                raise ValueError(
                    f"Shape must be rank 0 but is rank {t.shape.ndims} for '{op_type}' "
                    f"(input '{name}')"
                )
        return [(base._as_ref, shape)]

    return infer


for _op, (_names, _refs) in _SIGNATURES.items():
    op_def_registry.register(
        _op, _make_infer(_op), ref_inputs=range(_refs), ref_outputs=True, stateful=True
    )
# The op types this module adds (gradients/training_grad.py marks them not differentiable).
OP_TYPES = tuple(_SIGNATURES)


def _apply(
    op_type: str,
    refs: Sequence[Any],
    values: Sequence[Any],
    attrs: dict[str, Any],
    name: str | None,
) -> Tensor:
    var = refs[0]
    base = var.dtype.base_dtype
    if base not in FLOATS:
        raise TypeError(
            f"Value passed to parameter 'var' has DataType {base.name} not in list of allowed "
            f"values: {', '.join(d.name for d in FLOATS)} (op {op_type})"
        )
    ins = [_as_ref(r) for r in refs] + [convert_to_tensor(v, dtype=base) for v in values]
    return make_op(op_type, ins, {"T": base, **attrs}, name=name or op_type).outputs[0]


def _as_ref(x: Any) -> Tensor:
    if hasattr(x, "_ref") and callable(x._ref):
        return x._ref()  # type: ignore[no-any-return]
    if isinstance(x, Tensor) and x.dtype.is_ref_dtype:
        return x
    raise TypeError(f"'{getattr(x, 'name', x)}' must be a mutable tensor (a tf.Variable)")


def apply_gradient_descent(
    var: Any, alpha: Any, delta: Any, use_locking: bool = False, name: str | None = None
) -> Tensor:
    """var -= alpha * delta."""
    return _apply("ApplyGradientDescent", [var], [alpha, delta], {"use_locking": use_locking}, name)


def apply_momentum(
    var: Any,
    accum: Any,
    lr: Any,
    grad: Any,
    momentum: Any,
    use_locking: bool = False,
    use_nesterov: bool = False,
    name: str | None = None,
) -> Tensor:
    """accum = accum * momentum + grad; var -= lr * accum (or the Nesterov form)."""
    attrs = {"use_locking": use_locking, "use_nesterov": use_nesterov}
    return _apply("ApplyMomentum", [var, accum], [lr, grad, momentum], attrs, name)


def apply_adam(
    var: Any,
    m: Any,
    v: Any,
    beta1_power: Any,
    beta2_power: Any,
    lr: Any,
    beta1: Any,
    beta2: Any,
    epsilon: Any,
    grad: Any,
    use_locking: bool = False,
    use_nesterov: bool = False,
    name: str | None = None,
) -> Tensor:
    attrs = {"use_locking": use_locking, "use_nesterov": use_nesterov}
    return _apply(
        "ApplyAdam",
        [var, m, v],
        [beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad],
        attrs,
        name,
    )


def apply_adagrad(
    var: Any,
    accum: Any,
    lr: Any,
    grad: Any,
    use_locking: bool = False,
    update_slots: bool = True,
    name: str | None = None,
) -> Tensor:
    attrs = {"use_locking": use_locking, "update_slots": update_slots}
    return _apply("ApplyAdagrad", [var, accum], [lr, grad], attrs, name)


def apply_rms_prop(
    var: Any,
    ms: Any,
    mom: Any,
    lr: Any,
    rho: Any,
    momentum: Any,
    epsilon: Any,
    grad: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "ApplyRMSProp",
        [var, ms, mom],
        [lr, rho, momentum, epsilon, grad],
        {"use_locking": use_locking},
        name,
    )


def apply_centered_rms_prop(
    var: Any,
    mg: Any,
    ms: Any,
    mom: Any,
    lr: Any,
    rho: Any,
    momentum: Any,
    epsilon: Any,
    grad: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "ApplyCenteredRMSProp",
        [var, mg, ms, mom],
        [lr, rho, momentum, epsilon, grad],
        {"use_locking": use_locking},
        name,
    )


__all__ = [
    "apply_adagrad",
    "apply_adam",
    "apply_centered_rms_prop",
    "apply_gradient_descent",
    "apply_momentum",
    "apply_rms_prop",
]
