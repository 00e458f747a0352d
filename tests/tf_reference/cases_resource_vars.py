"""Cases of the resource-variable raw ops, run on TensorFlow 1.15 by record_resource_vars.py
and on tfcluster by tests/unit/test_resource_vars_cases.py: handles, reads, assignments,
gathers (and their gradients), scatters, strided-slice assignment, CountUpTo, destruction,
every ResourceApply* / ResourceSparseApply* beside its ref Apply* twin, and the error classes
of misuse. Each case names its variables after itself (shared names live on in a process)."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book, values
except ImportError:  # imported as tf_reference.cases_resource_vars by the tests
    from tf_reference.casebook import Book, values

BOOK = Book()
add = BOOK.add

M23 = values((2, 3), seed=11).astype(np.float32)
M43 = values((4, 3), seed=12).astype(np.float32)
G23 = values((2, 3), seed=13).astype(np.float32)
G23B = values((2, 3), seed=14).astype(np.float32)
POS23 = values((2, 3), low=0.1, high=1.0, seed=15).astype(np.float32)
POS43 = values((4, 3), low=0.1, high=1.0, seed=16).astype(np.float32)


def _var(tf: Any, name: str, value: Any, shape: Any = "same") -> Any:
    """A VarHandleOp named (and shared as) `name`, and its AssignVariableOp."""
    value = tf.convert_to_tensor(value)
    shape = value.shape if shape == "same" else shape
    h = tf.raw_ops.VarHandleOp(dtype=value.dtype, shape=shape, shared_name=name, name=name)
    return h, tf.raw_ops.AssignVariableOp(resource=h, value=value)


def _read(tf: Any, h: Any, after: Any, dtype: Any = None) -> Any:
    """A copy of the value once `after` ran: TF's read aliases the variable's buffer, which
    later in-place updates of the case would change."""
    with tf.control_dependencies(after if isinstance(after, list) else [after]):
        value = tf.raw_ops.ReadVariableOp(resource=h, dtype=dtype or tf.float32)
        return value * tf.ones([], value.dtype)


# ---- handles, reads, assignments ---------------------------------------------------------
@add("assign_add_sub_read_shape_initialized", {"x": M23, "d": G23})
def _assign(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2, 3], shared_name="rv_assign")
    before = tf.raw_ops.VarIsInitializedOp(resource=h)
    with tf.control_dependencies([before]):
        a = tf.raw_ops.AssignVariableOp(resource=h, value=t["x"])
    first = _read(tf, h, a)
    with tf.control_dependencies([first]):
        up = tf.raw_ops.AssignAddVariableOp(resource=h, value=t["d"])
    with tf.control_dependencies([up]):
        down = tf.raw_ops.AssignSubVariableOp(resource=h, value=t["d"] * 3.0)
    last = _read(tf, h, down)
    with tf.control_dependencies([last]):
        after = tf.raw_ops.VarIsInitializedOp(resource=h)
        shape = tf.raw_ops.VariableShape(input=h)
        shape64 = tf.raw_ops.VariableShape(input=h, out_type=tf.int64)
    return {
        "first": first,
        "last": last,
        "before": before,
        "after": after,
        "shape": shape,
        "shape64": shape64,
        "handle_dtype_is_resource": tf.constant(h.dtype == tf.resource),
    }


@add("read_uninitialized_is_failed_precondition", {})
def _read_uninit(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2], shared_name="rv_never_assigned")
    return {"r": tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32)}


@add("assign_add_uninitialized_errors", {})
def _add_uninit(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2], shared_name="rv_never_assigned2")
    up = tf.raw_ops.AssignAddVariableOp(resource=h, value=[1.0, 2.0])
    with tf.control_dependencies([up]):
        return {"c": tf.constant(1)}


@add("read_with_wrong_dtype_fails_building", {})
def _read_dtype(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_wrong_dtype", [1.0, 2.0])
    return {"r": _read(tf, h, a, dtype=tf.int32)}


@add("read_with_wrong_dtype_at_run_time", {})
def _read_dtype_run(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2], shared_name="rv_wrong_dtype2")
    a = tf.raw_ops.AssignVariableOp(resource=h, value=[1.0, 2.0])
    # The handle passes through Identity, so graph construction does not know its dtype.
    other = tf.identity(
        tf.raw_ops.VarHandleOp(dtype=tf.int32, shape=[2], shared_name="rv_wrong_dtype2")
    )
    with tf.control_dependencies([a]):
        return {"r": tf.raw_ops.ReadVariableOp(resource=other, dtype=tf.int32)}


@add("assign_with_wrong_dtype_fails_building", {})
def _assign_dtype(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2], shared_name="rv_assign_dtype")
    a = tf.raw_ops.AssignVariableOp(resource=h, value=tf.constant([1, 2]))
    return {"r": _read(tf, h, a)}


@add("assign_with_wrong_shape_fails_building", {})
def _assign_shape(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2], shared_name="rv_assign_shape")
    a = tf.raw_ops.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    return {"r": _read(tf, h, a)}


@add("assign_add_with_wrong_shape_at_run_time", {})
def _add_shape(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_add_shape", [1.0, 2.0], shape=None)
    with tf.control_dependencies([a]):
        up = tf.raw_ops.AssignAddVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    return {"r": _read(tf, h, up)}


@add("assign_to_unknown_shape_changes_shape", {})
def _assign_unknown(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_reshape", [1.0, 2.0], shape=None)
    with tf.control_dependencies([a]):
        b = tf.raw_ops.AssignVariableOp(resource=h, value=[[1.0, 2.0, 3.0]])
    r = _read(tf, h, b)
    with tf.control_dependencies([r]):
        return {"r": r, "s": tf.raw_ops.VariableShape(input=h)}


@add("destroy_then_uninitialized", {})
def _destroy(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_destroy", [1.0, 2.0])
    with tf.control_dependencies([a]):
        d = tf.raw_ops.DestroyResourceOp(resource=h)
    with tf.control_dependencies([d]):
        after = tf.raw_ops.VarIsInitializedOp(resource=h)
    with tf.control_dependencies([after]):
        again = tf.raw_ops.DestroyResourceOp(resource=h, ignore_lookup_error=True)
    with tf.control_dependencies([again]):
        return {"after": tf.identity(after)}


@add("destroy_missing_without_ignore_errors", {})
def _destroy_missing(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2], shared_name="rv_destroy_missing")
    d = tf.raw_ops.DestroyResourceOp(resource=h, ignore_lookup_error=False)
    with tf.control_dependencies([d]):
        return {"c": tf.constant(1)}


# ---- gathers -----------------------------------------------------------------------------
@add("gather_and_gather_nd", {"x": M43})
def _gather(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_gather", t["x"])
    with tf.control_dependencies([a]):
        g = tf.raw_ops.ResourceGather(resource=h, indices=[[3, 0], [1, 1]], dtype=tf.float32)
        g64 = tf.raw_ops.ResourceGather(
            resource=h, indices=np.array([2], np.int64), dtype=tf.float32, name="g64"
        )
        nd = tf.raw_ops.ResourceGatherNd(resource=h, indices=[[0, 1], [3, 2]], dtype=tf.float32)
        rows = tf.raw_ops.ResourceGatherNd(resource=h, indices=[[2], [0]], dtype=tf.float32)
    return {"g": g, "g64": g64, "nd": nd, "rows": rows}


@add("gather_batch_dims", {"x": M43})
def _gather_batch(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_gather_batch", t["x"])
    with tf.control_dependencies([a]):
        g = tf.raw_ops.ResourceGather(
            resource=h, indices=[[2, 0], [1, 1], [0, 0], [2, 2]], dtype=tf.float32, batch_dims=1
        )
    return {"g": g}


@add("gather_out_of_range", {"x": M43})
def _gather_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_gather_bad", t["x"])
    with tf.control_dependencies([a]):
        return {"g": tf.raw_ops.ResourceGather(resource=h, indices=[1, 4], dtype=tf.float32)}


@add("gradients_reach_the_handle", {"x": M43}, names=False)
def _grads(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_grads", t["x"])
    with tf.control_dependencies([a]):
        r = tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32)
        g = tf.raw_ops.ResourceGather(resource=h, indices=[3, 1, 3], dtype=tf.float32)
        nd = tf.raw_ops.ResourceGatherNd(resource=h, indices=[[0, 1], [3, 2]], dtype=tf.float32)
    w = tf.constant(values((4, 3), seed=17).astype(np.float32))
    with tf.control_dependencies([a]):
        (dense,) = tf.gradients(tf.reduce_sum(r * w), [h])
        (sliced,) = tf.gradients(tf.reduce_sum(g * w[:3]), [h])
        (ndg,) = tf.gradients(tf.reduce_sum(nd * [2.0, 3.0]), [h])
    return {
        "dense": dense,
        "values": sliced.values,
        "indices": sliced.indices,
        "dense_shape": sliced.dense_shape,
        "nd": tf.convert_to_tensor(ndg),
    }


# ---- scatters ----------------------------------------------------------------------------
@add("scatters_in_sequence", {"x": POS43})
def _scatters(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, last = _var(tf, "rv_scatter", t["x"])
    upd = values((2, 3), low=0.5, high=2.0, seed=18).astype(np.float32)
    out = {}
    for mode in ("Add", "Sub", "Mul", "Div", "Max", "Min", "Update"):
        with tf.control_dependencies(last if isinstance(last, list) else [last]):
            last = getattr(tf.raw_ops, f"ResourceScatter{mode}")(
                resource=h, indices=[2, 0], updates=upd
            )
        out[mode.lower()] = _read(tf, h, last)
        last = [last, out[mode.lower()]]
    with tf.control_dependencies(last):
        last = tf.raw_ops.ResourceScatterAdd(resource=h, indices=[1, 1], updates=upd)
    out["repeated_add"] = _read(tf, h, last)
    return out


@add("scatter_scalar_updates", {"x": POS43})
def _scatter_scalar(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_scatter_scalar", t["x"])
    with tf.control_dependencies([a]):
        s = tf.raw_ops.ResourceScatterAdd(resource=h, indices=[3, 1], updates=10.0)
    return {"r": _read(tf, h, s)}


@add("scatter_out_of_range", {"x": POS43})
def _scatter_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_scatter_bad", t["x"], shape=None)
    with tf.control_dependencies([a]):
        s = tf.raw_ops.ResourceScatterUpdate(resource=h, indices=[5], updates=[[1.0, 2.0, 3.0]])
    return {"r": _read(tf, h, s)}


@add("scatter_nd_in_sequence", {"x": POS43})
def _scatter_nd(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, last = _var(tf, "rv_scatter_nd", t["x"])
    out = {}
    for mode in ("Add", "Sub", "Update"):
        with tf.control_dependencies(last if isinstance(last, list) else [last]):
            last = getattr(tf.raw_ops, f"ResourceScatterNd{mode}")(
                ref=h, indices=[[0, 1], [3, 2], [0, 1]], updates=[1.5, -2.0, 0.25]
            )
        out[mode.lower()] = _read(tf, h, last)
        last = [last, out[mode.lower()]]
    with tf.control_dependencies(last):
        last = tf.raw_ops.ResourceScatterNdAdd(ref=h, indices=[[1]], updates=[[1.0, 2.0, 3.0]])
    out["rows"] = _read(tf, h, last)
    return out


# ---- strided slice assignment, CountUpTo -------------------------------------------------
@add("strided_slice_assign", {"x": M43})
def _ssa(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_ssa", t["x"])
    with tf.control_dependencies([a]):
        s = tf.raw_ops.ResourceStridedSliceAssign(
            ref=h, begin=[1, 0], end=[3, 3], strides=[1, 2], value=[[9.0, 8.0], [7.0, 6.0]]
        )
    first = _read(tf, h, s)
    with tf.control_dependencies([s, first]):
        s2 = tf.raw_ops.ResourceStridedSliceAssign(
            ref=h, begin=[-1], end=[0], strides=[1], value=[5.0, 4.0, 3.0], shrink_axis_mask=1
        )
    return {"first": first, "second": _read(tf, h, s2)}


@add("strided_slice_assign_wrong_shape", {"x": M43})
def _ssa_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_ssa_bad", t["x"])
    with tf.control_dependencies([a]):
        s = tf.raw_ops.ResourceStridedSliceAssign(
            ref=h, begin=[0], end=[2], strides=[1], value=[[1.0, 2.0, 3.0]]
        )
    return {"r": _read(tf, h, s)}


@add("count_up_to", {})
def _count(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_count", np.int64(3))
    with tf.control_dependencies([a]):
        c1 = tf.raw_ops.ResourceCountUpTo(resource=h, limit=5, T=tf.int64)
    with tf.control_dependencies([c1]):
        c2 = tf.raw_ops.ResourceCountUpTo(resource=h, limit=5, T=tf.int64)
    return {"c1": c1, "c2": c2, "v": _read(tf, h, c2, dtype=tf.int64)}


@add("count_up_to_limit", {})
def _count_limit(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_count_limit", np.int32(5))
    with tf.control_dependencies([a]):
        return {"c": tf.raw_ops.ResourceCountUpTo(resource=h, limit=5, T=tf.int32)}


# ---- the optimizers' updates -------------------------------------------------------------
# rule -> its inputs in order: a variable/slot name, "grad"/"delta", or (scalar name, value).
_ADAM = [
    ("beta1_power", 0.81),
    ("beta2_power", 0.998),
    ("lr", 0.01),
    ("beta1", 0.9),
    ("beta2", 0.999),
    ("epsilon", 1e-7),
]
RULES: dict[str, list[Any]] = {
    "GradientDescent": ["var", ("alpha", 0.1), "delta"],
    "Momentum": ["var", "accum", ("lr", 0.1), "grad", ("momentum", 0.9)],
    "KerasMomentum": ["var", "accum", ("lr", 0.1), "grad", ("momentum", 0.9)],
    "Adam": ["var", "m", "v", *_ADAM, "grad"],
    "AdamWithAmsgrad": ["var", "m", "v", "vhat", *_ADAM, "grad"],
    "AdaMax": [
        "var",
        "m",
        "v",
        ("beta1_power", 0.81),
        ("lr", 0.01),
        ("beta1", 0.9),
        ("beta2", 0.999),
        ("epsilon", 1e-7),
        "grad",
    ],
    "Adadelta": [
        "var",
        "accum",
        "accum_update",
        ("lr", 1.0),
        ("rho", 0.95),
        ("epsilon", 1e-6),
        "grad",
    ],
    "Adagrad": ["var", "accum", ("lr", 0.1), "grad"],
    "AdagradV2": ["var", "accum", ("lr", 0.1), ("epsilon", 1e-7), "grad"],
    "AdagradDA": [
        "var",
        "gradient_accumulator",
        "gradient_squared_accumulator",
        "grad",
        ("lr", 0.1),
        ("l1", 0.01),
        ("l2", 0.02),
        ("global_step", np.int64(3)),
    ],
    "CenteredRMSProp": [
        "var",
        "mg",
        "ms",
        "mom",
        ("lr", 0.01),
        ("rho", 0.9),
        ("momentum", 0.5),
        ("epsilon", 1e-6),
        "grad",
    ],
    "RMSProp": [
        "var",
        "ms",
        "mom",
        ("lr", 0.01),
        ("rho", 0.9),
        ("momentum", 0.5),
        ("epsilon", 1e-6),
        "grad",
    ],
    "Ftrl": [
        "var",
        "accum",
        "linear",
        "grad",
        ("lr", 0.1),
        ("l1", 0.01),
        ("l2", 0.02),
        ("lr_power", -0.5),
    ],
    "FtrlV2": [
        "var",
        "accum",
        "linear",
        "grad",
        ("lr", 0.1),
        ("l1", 0.01),
        ("l2", 0.02),
        ("l2_shrinkage", 0.03),
        ("lr_power", -0.5),
    ],
    "ProximalAdagrad": ["var", "accum", ("lr", 0.1), ("l1", 0.01), ("l2", 0.02), "grad"],
    "ProximalGradientDescent": ["var", ("alpha", 0.1), ("l1", 0.01), ("l2", 0.02), "delta"],
    "AddSign": [
        "var",
        "m",
        ("lr", 0.1),
        ("alpha", 1.0),
        ("sign_decay", 0.5),
        ("beta", 0.9),
        "grad",
    ],
    "PowerSign": [
        "var",
        "m",
        ("lr", 0.1),
        ("logbase", 2.0),
        ("sign_decay", 0.5),
        ("beta", 0.9),
        "grad",
    ],
}
RESOURCE_ONLY = {"KerasMomentum", "AdamWithAmsgrad"}
SPARSE_RULES = [
    "Adadelta",
    "Adagrad",
    "AdagradDA",
    "AdagradV2",
    "CenteredRMSProp",
    "Ftrl",
    "FtrlV2",
    "KerasMomentum",
    "Momentum",
    "ProximalAdagrad",
    "ProximalGradientDescent",
    "RMSProp",
]
SPARSE_RESOURCE_ONLY = {"KerasMomentum"}
NESTEROV = {"Momentum", "KerasMomentum"}


def _update_case(rule: str, sparse: bool, attrs: dict[str, Any]) -> Any:
    spec = RULES[rule]
    shape = (4, 3) if sparse else (2, 3)
    grads = [values((2, 3), seed=21).astype(np.float32), values((2, 3), seed=22).astype(np.float32)]

    def build(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        kinds = ["resource"] + (
            [] if rule in (SPARSE_RESOURCE_ONLY if sparse else RESOURCE_ONLY) else ["ref"]
        )
        for kind in kinds:
            slots = [n for n in spec if isinstance(n, str) and n not in ("grad", "delta")]
            inits = {
                n: (
                    values(shape, seed=30 + i) if i == 0 else values(shape, 0.1, 1.0, 30 + i)
                ).astype(np.float32)
                for i, n in enumerate(slots)
            }
            if kind == "resource":
                tag = "_".join(["rv", rule, "sparse" if sparse else "dense", *attrs]) + "_"
                made = {n: _var(tf, f"{tag}{n}", v) for n, v in inits.items()}
                refs = {n: m[0] for n, m in made.items()}
                last: list[Any] = [m[1] for m in made.values()]
            else:
                refs = {n: tf.Variable(v, name=f"{rule}_{n}") for n, v in inits.items()}
                last = [tf.variables_initializer(list(refs.values()))]
            op_type = (
                ("Resource" if kind == "resource" else "")
                + ("SparseApply" if sparse else "Apply")
                + rule
            )
            for step, g in enumerate(grads):
                kwargs: dict[str, Any] = dict(attrs)
                for n in spec:
                    if isinstance(n, tuple):
                        kwargs[n[0]] = n[1] if n[0] == "global_step" else np.float32(n[1])
                    elif n in ("grad", "delta"):
                        kwargs[n if not sparse else "grad"] = g
                        if sparse:
                            kwargs["indices"] = [3, 1] if step == 0 else [0, 3]
                    else:
                        kwargs[n] = refs[n]
                with tf.control_dependencies(last):
                    last = [getattr(tf.raw_ops, op_type)(**kwargs)]
            with tf.control_dependencies(last):
                for n, r in refs.items():
                    value = (
                        tf.raw_ops.ReadVariableOp(resource=r, dtype=tf.float32)
                        if kind == "resource"
                        else tf.identity(r)
                    )
                    out[f"{kind}_{n}"] = value
        return out

    return build


for _rule in RULES:
    _attrs_list = [{}, {"use_nesterov": True}] if _rule in NESTEROV else [{}]
    if _rule in ("Adagrad", "AdagradV2"):
        _attrs_list.append({"update_slots": False})
    for _attrs in _attrs_list:
        _suffix = "".join(f"_{k}" for k in _attrs)
        add(f"apply_{_rule}{_suffix}", {}, names=False, rtol=2e-5)(
            _update_case(_rule, False, _attrs)
        )
        if _rule in SPARSE_RULES:
            add(f"sparse_apply_{_rule}{_suffix}", {}, names=False, rtol=2e-5)(
                _update_case(_rule, True, _attrs)
            )


@add("apply_grad_shape_mismatch_fails_building", {})
def _apply_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_apply_bad", [1.0, 2.0])
    with tf.control_dependencies([a]):
        u = tf.raw_ops.ResourceApplyGradientDescent(var=h, alpha=0.1, delta=[1.0, 2.0, 3.0])
    return {"r": _read(tf, h, u)}


@add("apply_grad_shape_mismatch_at_run_time", {})
def _apply_bad_run(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_apply_bad_run", [1.0, 2.0], shape=None)
    with tf.control_dependencies([a]):
        u = tf.raw_ops.ResourceApplyGradientDescent(var=h, alpha=0.1, delta=[1.0, 2.0, 3.0])
    return {"r": _read(tf, h, u)}


@add("apply_on_uninitialized_slot", {})
def _apply_uninit(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_apply_uninit", [1.0, 2.0])
    acc = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2], shared_name="rv_apply_uninit_acc")
    with tf.control_dependencies([a]):
        u = tf.raw_ops.ResourceApplyAdagrad(var=h, accum=acc, lr=0.1, grad=[1.0, 2.0])
    return {"r": _read(tf, h, u)}


@add("sparse_apply_index_out_of_range", {})
def _sparse_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    h, a = _var(tf, "rv_sparse_bad", POS43)
    acc, b = _var(tf, "rv_sparse_bad_acc", POS43)
    with tf.control_dependencies([a, b]):
        u = tf.raw_ops.ResourceSparseApplyAdagrad(
            var=h, accum=acc, lr=0.1, grad=[[1.0, 2.0, 3.0]], indices=[7]
        )
    return {"r": _read(tf, h, u)}
