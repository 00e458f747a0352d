"""GPU comparison cases (see gpu_op_cases.py) of the optimizers' updates added with the sparse
ones: the dense Adadelta, FTRL, proximal and AdagradDA updates, and every SparseApply* (rows
repeated, so the update runs in rounds; row numbers stay on the host)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import tfcluster as tf
from tfcluster.ops import training_ops as raw

from support.gpu_op_cases import CASES, Build


def _update_case(op: str) -> Callable[[], Build]:
    def build() -> Build:
        rng = np.random.default_rng(3)
        var = tf.Variable(rng.uniform(-1, 1, (4, 3)).astype(np.float32), name="var")
        # Positive slots: accumulators under square roots, centered RMSProp's ms - mg^2 > 0.
        slots = [
            tf.Variable(rng.uniform(lo, lo + 0.5, (4, 3)).astype(np.float32), name=f"slot{i}")
            for i, lo in enumerate((0.0, 0.5, 0.5))
        ]
        dense = tf.constant(rng.uniform(-1, 1, (4, 3)).astype(np.float32))
        rows = tf.constant(rng.uniform(-1, 1, (5, 3)).astype(np.float32))
        ids = tf.constant(np.array([2, 0, 2, 3, 2], np.int32))
        step = tf.constant(np.int64(4))
        s = slots
        updates = {
            "ApplyAdadelta": lambda: raw.apply_adadelta(var, s[0], s[1], 0.5, 0.9, 1e-6, dense),
            "ApplyProximalGradientDescent": lambda: raw.apply_proximal_gradient_descent(
                var, 0.1, 0.05, 0.2, dense
            ),
            "ApplyProximalAdagrad": lambda: raw.apply_proximal_adagrad(
                var, s[0], 0.1, 0.05, 0.2, dense
            ),
            "ApplyAdagradDA": lambda: raw.apply_adagrad_da(
                var, s[0], s[1], dense, 0.1, 0.05, 0.2, step
            ),
            "ApplyFtrl": lambda: raw.apply_ftrl(var, s[0], s[1], dense, 0.1, 0.05, 0.2, -0.5),
            "ApplyFtrlV2": lambda: raw.apply_ftrl_v2(
                var, s[0], s[1], dense, 0.1, 0.05, 0.2, 0.1, -0.7
            ),
            "SparseApplyMomentum": lambda: raw.sparse_apply_momentum(
                var, s[0], 0.1, rows, ids, 0.9, use_nesterov=True
            ),
            "SparseApplyAdagrad": lambda: raw.sparse_apply_adagrad(var, s[0], 0.1, rows, ids),
            "SparseApplyRMSProp": lambda: raw.sparse_apply_rms_prop(
                var, s[0], s[1], 0.01, 0.9, 0.5, 1e-6, rows, ids
            ),
            "SparseApplyCenteredRMSProp": lambda: raw.sparse_apply_centered_rms_prop(
                var, s[0], s[1], s[2], 0.01, 0.9, 0.5, 1.0, rows, ids
            ),
            "SparseApplyAdadelta": lambda: raw.sparse_apply_adadelta(
                var, s[0], s[1], 0.5, 0.9, 1e-6, rows, ids
            ),
            "SparseApplyProximalGradientDescent": lambda: (
                raw.sparse_apply_proximal_gradient_descent(var, 0.1, 0.05, 0.2, rows, ids)
            ),
            "SparseApplyProximalAdagrad": lambda: raw.sparse_apply_proximal_adagrad(
                var, s[0], 0.1, 0.05, 0.2, rows, ids
            ),
            "SparseApplyAdagradDA": lambda: raw.sparse_apply_adagrad_da(
                var, s[0], s[1], rows, ids, 0.1, 0.05, 0.2, step
            ),
            "SparseApplyFtrl": lambda: raw.sparse_apply_ftrl(
                var, s[0], s[1], rows, ids, 0.1, 0.05, 0.2, -0.5
            ),
            "SparseApplyFtrlV2": lambda: raw.sparse_apply_ftrl_v2(
                var, s[0], s[1], rows, ids, 0.1, 0.05, 0.2, 0.1, -0.7
            ),
        }
        update = updates[op]()
        return Build(
            [var, *slots],
            before=[[var.initializer, *(x.initializer for x in slots)], [update], [update]],
        )

    return build


for _op in (
    "ApplyAdadelta",
    "ApplyProximalGradientDescent",
    "ApplyProximalAdagrad",
    "ApplyAdagradDA",
    "ApplyFtrl",
    "ApplyFtrlV2",
    "SparseApplyMomentum",
    "SparseApplyAdagrad",
    "SparseApplyRMSProp",
    "SparseApplyCenteredRMSProp",
    "SparseApplyAdadelta",
    "SparseApplyProximalGradientDescent",
    "SparseApplyProximalAdagrad",
    "SparseApplyAdagradDA",
    "SparseApplyFtrl",
    "SparseApplyFtrlV2",
):
    CASES[_op] = _update_case(_op)
