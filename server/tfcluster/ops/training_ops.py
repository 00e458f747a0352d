"""The optimizers' update ops (TF1's training_ops): Apply* (dense) and SparseApply* (rows).

Each takes its variable and slots as references (so they are placed with the variable, on
the ps) and returns the updated variable's reference. Argument order, attr names (T,
use_locking, use_nesterov) and kernels' formulas follow TensorFlow's training_ops.cc.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import resource_handles
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
    "ApplyAdadelta": (("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"), 3),
    "ApplyProximalGradientDescent": (("var", "alpha", "l1", "l2", "delta"), 1),
    "ApplyProximalAdagrad": (("var", "accum", "lr", "l1", "l2", "grad"), 2),
    "ApplyAdagradDA": (
        (
            "var",
            "gradient_accumulator",
            "gradient_squared_accumulator",
            "grad",
            "lr",
            "l1",
            "l2",
            "global_step",
        ),
        3,
    ),
    "ApplyFtrl": (("var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"), 3),
    "ApplyFtrlV2": (
        ("var", "accum", "linear", "grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"),
        3,
    ),
    "ApplyAdaMax": (
        ("var", "m", "v", "beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"),
        3,
    ),
    "ApplyAdagradV2": (("var", "accum", "lr", "epsilon", "grad"), 2),
    "ApplyAddSign": (("var", "m", "lr", "alpha", "sign_decay", "beta", "grad"), 2),
    "ApplyPowerSign": (("var", "m", "lr", "logbase", "sign_decay", "beta", "grad"), 2),
    # The sparse updates: `grad` holds the rows of the variable named by `indices`.
    "SparseApplyMomentum": (("var", "accum", "lr", "grad", "indices", "momentum"), 2),
    "SparseApplyAdagrad": (("var", "accum", "lr", "grad", "indices"), 2),
    "SparseApplyAdagradV2": (("var", "accum", "lr", "epsilon", "grad", "indices"), 2),
    "SparseApplyRMSProp": (
        ("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"),
        3,
    ),
    "SparseApplyCenteredRMSProp": (
        ("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"),
        4,
    ),
    "SparseApplyAdadelta": (
        ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad", "indices"),
        3,
    ),
    "SparseApplyProximalGradientDescent": (("var", "alpha", "l1", "l2", "grad", "indices"), 1),
    "SparseApplyProximalAdagrad": (("var", "accum", "lr", "l1", "l2", "grad", "indices"), 2),
    "SparseApplyAdagradDA": (
        (
            "var",
            "gradient_accumulator",
            "gradient_squared_accumulator",
            "grad",
            "indices",
            "lr",
            "l1",
            "l2",
            "global_step",
        ),
        3,
    ),
    "SparseApplyFtrl": (
        ("var", "accum", "linear", "grad", "indices", "lr", "l1", "l2", "lr_power"),
        3,
    ),
    "SparseApplyFtrlV2": (
        (
            "var",
            "accum",
            "linear",
            "grad",
            "indices",
            "lr",
            "l1",
            "l2",
            "l2_shrinkage",
            "lr_power",
        ),
        3,
    ),
}

# Rules TF has only as resource ops (ResourceApply<rule>, ResourceSparseApply<rule>).
RESOURCE_ONLY: dict[str, tuple[tuple[str, ...], int]] = {
    "ApplyKerasMomentum": (("var", "accum", "lr", "grad", "momentum"), 2),
    "SparseApplyKerasMomentum": (("var", "accum", "lr", "grad", "indices", "momentum"), 2),
    "ApplyAdamWithAmsgrad": (
        (
            "var",
            "m",
            "v",
            "vhat",
            "beta1_power",
            "beta2_power",
            "lr",
            "beta1",
            "beta2",
            "epsilon",
            "grad",
        ),
        4,
    ),
}

# Inputs that must have the variable's shape (the slots, and a dense update's gradient).
_SAME_SHAPE = {
    "accum",
    "accum_update",
    "m",
    "v",
    "ms",
    "mom",
    "mg",
    "linear",
    "gradient_accumulator",
    "gradient_squared_accumulator",
    "delta",
    "grad",
    "vhat",
}
# Inputs of their own dtype: a sparse update's row numbers, AdagradDA's step count.
_OWN_DTYPE = {"indices": (dtypes.int32, dtypes.int64), "global_step": (dtypes.int64,)}


def is_sparse(op_type: str) -> bool:
    return op_type.startswith(("SparseApply", "ResourceSparseApply"))


def _make_infer(op_type: str, resource: bool = False) -> Any:
    """resource: the infer of Resource<op_type>, whose variables are handles (the shapes
    their VarHandleOps were made with) and which has no output."""
    names, num_refs = {**_SIGNATURES, **RESOURCE_ONLY}[op_type]
    sparse = is_sparse(op_type)
    if resource:
        op_type = f"Resource{op_type}"

    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        var = inputs[0]
        if resource:
            t_attr = attrs.get("T")
            base = dtypes.as_dtype(t_attr) if t_attr is not None else inputs[-1].dtype.base_dtype
            shape = resource_handles.handle_shape(var)
        else:
            base = var.dtype.base_dtype
            shape = var.shape
        for i, (name, t) in enumerate(zip(names, inputs)):
            if i < num_refs:
                if resource:
                    resource_handles.check_handle(t, op_type, name)
                    shape = shape.merge_with(resource_handles.handle_shape(t))
                    continue
                if not t.dtype.is_ref_dtype:
                    raise TypeError(
                        f"'{op_type}' Op requires that input '{name}' be a mutable tensor "
                        f"(e.g.: a tf.Variable)"
                    )
            allowed = _OWN_DTYPE.get(name)
            if allowed is not None:
                if t.dtype.base_dtype not in allowed:
                    raise TypeError(
                        f"Value passed to parameter '{name}' has DataType "
                        f"{t.dtype.base_dtype.name} not in list of allowed values: "
                        f"{', '.join(d.name for d in allowed)}"
                    )
            elif t.dtype.base_dtype != base:
                raise TypeError(
                    f"Input '{name}' of '{op_type}' Op has type {t.dtype.base_dtype.name} that "
                    f"does not match type {base.name} of argument 'var'."
                )
            if sparse and name in ("grad", "indices"):
                continue
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
        if sparse:
            shape = _merge_rows(
                op_type, shape, inputs[names.index("grad")], inputs[names.index("indices")]
            )
        return [] if resource else [(base._as_ref, shape)]

    return infer


def _merge_rows(op_type: str, shape: TensorShape, grad: Tensor, indices: Tensor) -> TensorShape:
    """As TF's HandleGradAndIndicesInputs: indices is a vector of grad's first dimension, and
    grad's other dimensions are the variable's."""
    if indices.shape.ndims not in (None, 1):
        raise ValueError(
            f"Shape must be rank 1 but is rank {indices.shape.ndims} for '{op_type}' "
            "(input 'indices')"
        )
    if grad.shape.ndims is None:
        return shape
    if grad.shape.ndims == 0:
        raise ValueError(
            f"Shape must be at least rank 1 but is rank 0 for '{op_type}' (input 'grad')"
        )
    n = indices.shape.as_list()[0] if indices.shape.ndims == 1 else None
    first = grad.shape.as_list()[0]
    if n is not None and first is not None and n != first:
        raise ValueError(
            f"Dimensions must be equal, but are {n} and {first} for '{op_type}' (indices and "
            "grad's first dimension)"
        )
    rows = TensorShape([None, *grad.shape.as_list()[1:]])
    if not shape.is_compatible_with(rows):
        raise ValueError(
            f"Shapes must be equal rank, but are {shape} and {grad.shape} for '{op_type}' "
            "(input 'grad', whose rows are the variable's)"
        )
    return shape.merge_with(rows)


for _op, (_names, _refs) in _SIGNATURES.items():
    op_def_registry.register(
        _op, _make_infer(_op), ref_inputs=range(_refs), ref_outputs=True, stateful=True
    )
for _op, (_names, _refs) in {**_SIGNATURES, **RESOURCE_ONLY}.items():
    op_def_registry.register(
        f"Resource{_op}", _make_infer(_op, resource=True), ref_inputs=range(_refs), stateful=True
    )
# The op types this module adds (TF 1.15 registers no gradient for them: tf.gradients
# raises LookupError when a gradient reaches one, as TF).
OP_TYPES = (*_SIGNATURES, *(f"Resource{op}" for op in (*_SIGNATURES, *RESOURCE_ONLY)))


def _apply(
    op_type: str,
    refs: Sequence[Any],
    values: Sequence[Any],
    attrs: dict[str, Any],
    name: str | None,
) -> Tensor:
    """The op, its references first and then its other inputs, in the signature's order."""
    names = (_SIGNATURES.get(op_type) or RESOURCE_ONLY[op_type])[0]
    var = refs[0]
    base = var.dtype.base_dtype
    if base not in FLOATS:
        raise TypeError(
            f"Value passed to parameter 'var' has DataType {base.name} not in list of allowed "
            f"values: {', '.join(d.name for d in FLOATS)} (op {op_type})"
        )
    ins = [_as_ref(r) for r in refs]
    if ins[0].dtype.base_dtype == dtypes.resource:
        return _apply_resource(op_type, ins, names[len(refs) :], values, base, attrs, name)
    # As TF's op wrappers: the inputs are converted in the op's name scope (a resource
    # variable's read, a number's constant named after its argument).
    with name_scope(name, op_type) as scope:
        ins.extend(_converted_inputs(names[len(refs) :], values, base))
        attrs = _with_index_type(attrs, names[len(refs) :], ins[len(refs) :])
        return make_op(op_type, ins, {"T": base, **attrs}, name=scope).outputs[0]


def _converted_inputs(names: Sequence[str], values: Sequence[Any], base: Any) -> list[Tensor]:
    """The inputs after the variables, converted as TF's op wrappers convert them."""
    out = []
    for arg, v in zip(names, values):
        if arg == "indices":
            out.append(convert_to_tensor(v, name="indices"))
        elif arg == "global_step":
            out.append(convert_to_tensor(v, dtype=dtypes.int64, name=arg))
        else:
            out.append(convert_to_tensor(v, dtype=base, name=arg))
    return out


def _with_index_type(attrs: dict[str, Any], names: Sequence[str], ins: Sequence[Tensor]) -> Any:
    for arg, t in zip(names, ins):
        if arg == "indices":
            return {**attrs, "Tindices": t.dtype.base_dtype}
    return attrs


def _apply_resource(
    op_type: str,
    handles: list[Tensor],
    names: Sequence[str],
    values: Sequence[Any],
    base: Any,
    attrs: dict[str, Any],
    name: str | None,
) -> Any:
    """Resource variables: the Resource<op> twin, updating through the handles. Its inputs
    are converted in the op's name scope (resource variables read there, as in TF); it has no
    output: the op itself is what callers group and wait on."""
    op_type = f"Resource{op_type}"
    with name_scope(name, op_type) as scope:
        ins = list(handles) + _converted_inputs(names, values, base)
        attrs = _with_index_type(attrs, names, ins[len(handles) :])
        return make_op(op_type, ins, {"T": base, **attrs}, name=scope)


def apply_rule(
    op_type: str,
    refs: Sequence[Any],
    values: Sequence[Any],
    attrs: dict[str, Any],
    name: str | None = None,
) -> Any:
    """Apply<rule> (or its Resource twin for resource variables, also the rules TF has only as
    resource ops: ApplyKerasMomentum, ApplyAdamWithAmsgrad): the variables first, then the
    other inputs in the signature's order (Keras's OptimizerV2 calls these by name)."""
    return _apply(op_type, refs, values, attrs, name)


def as_operation(update: Any) -> Operation:
    """The op of an update: a ref update's output tensor's op, or a resource update itself
    (it has no output)."""
    return update if isinstance(update, Operation) else update.op


def _as_ref(x: Any) -> Tensor:
    if hasattr(x, "_ref") and callable(x._ref):
        return x._ref()  # type: ignore[no-any-return]
    if isinstance(x, Tensor) and (x.dtype.is_ref_dtype or x.dtype.base_dtype == dtypes.resource):
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


def apply_adadelta(
    var: Any,
    accum: Any,
    accum_update: Any,
    lr: Any,
    rho: Any,
    epsilon: Any,
    grad: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "ApplyAdadelta",
        [var, accum, accum_update],
        [lr, rho, epsilon, grad],
        {"use_locking": use_locking},
        name,
    )


def apply_proximal_gradient_descent(
    var: Any,
    alpha: Any,
    l1: Any,
    l2: Any,
    delta: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "ApplyProximalGradientDescent",
        [var],
        [alpha, l1, l2, delta],
        {"use_locking": use_locking},
        name,
    )


def apply_proximal_adagrad(
    var: Any,
    accum: Any,
    lr: Any,
    l1: Any,
    l2: Any,
    grad: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "ApplyProximalAdagrad",
        [var, accum],
        [lr, l1, l2, grad],
        {"use_locking": use_locking},
        name,
    )


def apply_adagrad_da(
    var: Any,
    gradient_accumulator: Any,
    gradient_squared_accumulator: Any,
    grad: Any,
    lr: Any,
    l1: Any,
    l2: Any,
    global_step: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "ApplyAdagradDA",
        [var, gradient_accumulator, gradient_squared_accumulator],
        [grad, lr, l1, l2, global_step],
        {"use_locking": use_locking},
        name,
    )


def apply_ftrl(
    var: Any,
    accum: Any,
    linear: Any,
    grad: Any,
    lr: Any,
    l1: Any,
    l2: Any,
    lr_power: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "ApplyFtrl",
        [var, accum, linear],
        [grad, lr, l1, l2, lr_power],
        {"use_locking": use_locking},
        name,
    )


def apply_ftrl_v2(
    var: Any,
    accum: Any,
    linear: Any,
    grad: Any,
    lr: Any,
    l1: Any,
    l2: Any,
    l2_shrinkage: Any,
    lr_power: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "ApplyFtrlV2",
        [var, accum, linear],
        [grad, lr, l1, l2, l2_shrinkage, lr_power],
        {"use_locking": use_locking},
        name,
    )


# ---- sparse updates: only the rows of var (and its slots) named by indices change ----------
def sparse_apply_momentum(
    var: Any,
    accum: Any,
    lr: Any,
    grad: Any,
    indices: Any,
    momentum: Any,
    use_locking: bool = False,
    use_nesterov: bool = False,
    name: str | None = None,
) -> Tensor:
    attrs = {"use_locking": use_locking, "use_nesterov": use_nesterov}
    return _apply("SparseApplyMomentum", [var, accum], [lr, grad, indices, momentum], attrs, name)


def sparse_apply_adagrad(
    var: Any,
    accum: Any,
    lr: Any,
    grad: Any,
    indices: Any,
    use_locking: bool = False,
    update_slots: bool = True,
    name: str | None = None,
) -> Tensor:
    attrs = {"use_locking": use_locking, "update_slots": update_slots}
    return _apply("SparseApplyAdagrad", [var, accum], [lr, grad, indices], attrs, name)


def sparse_apply_rms_prop(
    var: Any,
    ms: Any,
    mom: Any,
    lr: Any,
    rho: Any,
    momentum: Any,
    epsilon: Any,
    grad: Any,
    indices: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "SparseApplyRMSProp",
        [var, ms, mom],
        [lr, rho, momentum, epsilon, grad, indices],
        {"use_locking": use_locking},
        name,
    )


def sparse_apply_centered_rms_prop(
    var: Any,
    mg: Any,
    ms: Any,
    mom: Any,
    lr: Any,
    rho: Any,
    momentum: Any,
    epsilon: Any,
    grad: Any,
    indices: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "SparseApplyCenteredRMSProp",
        [var, mg, ms, mom],
        [lr, rho, momentum, epsilon, grad, indices],
        {"use_locking": use_locking},
        name,
    )


def sparse_apply_adadelta(
    var: Any,
    accum: Any,
    accum_update: Any,
    lr: Any,
    rho: Any,
    epsilon: Any,
    grad: Any,
    indices: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "SparseApplyAdadelta",
        [var, accum, accum_update],
        [lr, rho, epsilon, grad, indices],
        {"use_locking": use_locking},
        name,
    )


def sparse_apply_proximal_gradient_descent(
    var: Any,
    alpha: Any,
    l1: Any,
    l2: Any,
    grad: Any,
    indices: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "SparseApplyProximalGradientDescent",
        [var],
        [alpha, l1, l2, grad, indices],
        {"use_locking": use_locking},
        name,
    )


def sparse_apply_proximal_adagrad(
    var: Any,
    accum: Any,
    lr: Any,
    l1: Any,
    l2: Any,
    grad: Any,
    indices: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "SparseApplyProximalAdagrad",
        [var, accum],
        [lr, l1, l2, grad, indices],
        {"use_locking": use_locking},
        name,
    )


def sparse_apply_adagrad_da(
    var: Any,
    gradient_accumulator: Any,
    gradient_squared_accumulator: Any,
    grad: Any,
    indices: Any,
    lr: Any,
    l1: Any,
    l2: Any,
    global_step: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "SparseApplyAdagradDA",
        [var, gradient_accumulator, gradient_squared_accumulator],
        [grad, indices, lr, l1, l2, global_step],
        {"use_locking": use_locking},
        name,
    )


def sparse_apply_ftrl(
    var: Any,
    accum: Any,
    linear: Any,
    grad: Any,
    indices: Any,
    lr: Any,
    l1: Any,
    l2: Any,
    lr_power: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "SparseApplyFtrl",
        [var, accum, linear],
        [grad, indices, lr, l1, l2, lr_power],
        {"use_locking": use_locking},
        name,
    )


def sparse_apply_ftrl_v2(
    var: Any,
    accum: Any,
    linear: Any,
    grad: Any,
    indices: Any,
    lr: Any,
    l1: Any,
    l2: Any,
    l2_shrinkage: Any,
    lr_power: Any,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _apply(
        "SparseApplyFtrlV2",
        [var, accum, linear],
        [grad, indices, lr, l1, l2, l2_shrinkage, lr_power],
        {"use_locking": use_locking},
        name,
    )


__all__ = [
    "apply_adadelta",
    "apply_adagrad",
    "apply_adagrad_da",
    "apply_adam",
    "apply_centered_rms_prop",
    "apply_ftrl",
    "apply_ftrl_v2",
    "apply_gradient_descent",
    "apply_momentum",
    "apply_proximal_adagrad",
    "apply_proximal_gradient_descent",
    "apply_rms_prop",
    "sparse_apply_adadelta",
    "sparse_apply_adagrad",
    "sparse_apply_adagrad_da",
    "sparse_apply_centered_rms_prop",
    "sparse_apply_ftrl",
    "sparse_apply_ftrl_v2",
    "sparse_apply_momentum",
    "sparse_apply_proximal_adagrad",
    "sparse_apply_proximal_gradient_descent",
    "sparse_apply_rms_prop",
]
