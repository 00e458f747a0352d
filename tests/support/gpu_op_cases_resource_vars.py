"""GPU comparison cases (see gpu_op_cases.py) of the resource variables: handles, reads,
assignments, gathers, scatters, strided-slice assignment, and every ResourceApply* /
ResourceSparseApply* (with the dense rules added beside them: ApplyAdaMax, ApplyAdagradV2,
ApplyAddSign, ApplyPowerSign, SparseApplyAdagradV2). Handles have no shared name, so the CPU
and the GPU build each get their own variables (named after their nodes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tfcluster as tf
from tf_reference.cases_resource_vars import RULES

from support.gpu_op_cases import CASES, Build

raw = tf.raw_ops


def _handle(value: Any) -> tuple[Any, Any]:
    value = tf.constant(np.asarray(value))
    h = raw.VarHandleOp(dtype=value.dtype, shape=value.shape)
    return h, raw.AssignVariableOp(resource=h, value=value)


def _read(h: Any, dtype: Any = tf.float32) -> Any:
    return raw.ReadVariableOp(resource=h, dtype=dtype)


def _values(shape: tuple[int, ...], seed: int, low: float = -1.0, high: float = 1.0) -> Any:
    return np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)


def _variables() -> Build:
    h, init = _handle(_values((2, 3), 1))
    add = raw.AssignAddVariableOp(resource=h, value=tf.ones([2, 3]))
    sub = raw.AssignSubVariableOp(resource=h, value=tf.fill([2, 3], 0.25))
    return Build(
        [_read(h), raw.VarIsInitializedOp(resource=h), raw.VariableShape(input=h)],
        before=[[init], [add], [sub]],
    )


for _op in (
    "VarHandleOp",
    "ReadVariableOp",
    "AssignVariableOp",
    "AssignAddVariableOp",
    "AssignSubVariableOp",
    "VarIsInitializedOp",
    "VariableShape",
):
    CASES[_op] = _variables


def _destroy() -> Build:
    h, init = _handle(_values((3,), 2))
    gone = raw.DestroyResourceOp(resource=h)
    return Build([raw.VarIsInitializedOp(resource=h)], before=[[init], [gone]])


CASES["DestroyResourceOp"] = _destroy


def _gathers() -> Build:
    h, init = _handle(_values((4, 3), 3))
    ids = tf.constant(np.array([[3, 0], [1, 1]], np.int32))
    return Build(
        [
            raw.ResourceGather(resource=h, indices=ids, dtype=tf.float32),
            raw.ResourceGatherNd(resource=h, indices=[[0, 1], [3, 2]], dtype=tf.float32),
        ],
        before=[[init]],
    )


CASES["ResourceGather"] = CASES["ResourceGatherNd"] = _gathers


def _scatter_case(op: str) -> Callable[[], Build]:
    def build() -> Build:
        h, init = _handle(_values((4, 3), 4, 0.5, 2.0))
        if "Nd" in op:
            update = getattr(raw, op)(
                ref=h, indices=[[0, 1], [3, 2], [0, 1]], updates=[1.5, -2.0, 0.5]
            )
        else:
            rows = tf.constant(_values((3, 3), 5, 0.5, 2.0))
            update = getattr(raw, op)(resource=h, indices=[2, 0, 2], updates=rows)
        return Build([_read(h)], before=[[init], [update]])

    return build


for _mode in ("Update", "Add", "Sub", "Mul", "Div", "Max", "Min"):
    CASES[f"ResourceScatter{_mode}"] = _scatter_case(f"ResourceScatter{_mode}")
for _mode in ("Update", "Add", "Sub"):
    CASES[f"ResourceScatterNd{_mode}"] = _scatter_case(f"ResourceScatterNd{_mode}")


def _strided_slice_assign() -> Build:
    h, init = _handle(_values((4, 3), 6))
    update = raw.ResourceStridedSliceAssign(
        ref=h, begin=[1, 0], end=[3, 3], strides=[1, 2], value=[[9.0, 8.0], [7.0, 6.0]]
    )
    return Build([_read(h)], before=[[init], [update]])


CASES["ResourceStridedSliceAssign"] = _strided_slice_assign


def _update_case(op: str) -> Callable[[], Build]:
    resource = op.startswith("Resource")
    sparse = "SparseApply" in op
    rule = op.split("Apply", 1)[1]
    spec = RULES[rule]
    shape = (4, 3) if sparse else (2, 3)

    def build() -> Build:
        names = [n for n in spec if isinstance(n, str) and n not in ("grad", "delta")]
        # Positive slots; centered RMSProp's mg small beside ms, so ms - mg^2 stays > 0.
        low_high = {"mg": (0.0, 0.1), "ms": (0.5, 1.0)}
        inits = {
            n: _values(shape, 10 + i)
            if i == 0
            else _values(shape, 10 + i, *low_high.get(n, (0.1, 1.0)))
            for i, n in enumerate(names)
        }
        if resource:
            made = {n: _handle(v) for n, v in inits.items()}
            refs = {n: m[0] for n, m in made.items()}
            initializers: list[Any] = [m[1] for m in made.values()]
        else:
            refs = {n: tf.Variable(v, name=n) for n, v in inits.items()}
            initializers = [v.initializer for v in refs.values()]
        kwargs: dict[str, Any] = {}
        for n in spec:
            if isinstance(n, tuple):
                kwargs[n[0]] = n[1] if n[0] == "global_step" else np.float32(n[1])
            elif n in ("grad", "delta"):
                kwargs["grad" if sparse else n] = tf.constant(
                    _values((3, 3) if sparse else shape, 20)
                )
                if sparse:
                    kwargs["indices"] = tf.constant(np.array([3, 1, 3], np.int32))
            else:
                kwargs[n] = refs[n]
        update = getattr(raw, op)(**kwargs)
        reads = [_read(r) if resource else r for r in refs.values()]
        return Build(reads, before=[initializers, [update], [update]])

    return build


for _rule in RULES:
    CASES[f"ResourceApply{_rule}"] = _update_case(f"ResourceApply{_rule}")
for _rule in ("AdaMax", "AdagradV2", "AddSign", "PowerSign"):
    CASES[f"Apply{_rule}"] = _update_case(f"Apply{_rule}")
for _rule in (
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
):
    CASES[f"ResourceSparseApply{_rule}"] = _update_case(f"ResourceSparseApply{_rule}")
CASES["SparseApplyAdagradV2"] = _update_case("SparseApplyAdagradV2")
