"""Sparse updates and the optimizers, written once against the TF1 API and run twice: by
record_sparse_optimizers.py with TensorFlow, and by tests/unit/test_sparse_optimizers_reference.py
with tfcluster. Each case builds its own graph and returns plain data (values after each
step, slot and variable names, op names and types, IndexedSlices fetched, errors).

`tf` is tensorflow.compat.v1 (or tfcluster); `raw` is the module of the optimizers' update
ops (TF's tensorflow.python.training.training_ops, tfcluster's ops.training_ops), whose
functions have the same names and arguments.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import warnings

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
STEPS = 3


case = registrar(CASES)


def _error(fn):
    """{"error": class name, "message": its first line} of what fn raises, or None."""
    try:
        fn()
    except Exception as e:
        text = str(e.args[0]) if len(e.args) == 1 else str(e)
        return {"error": type(e).__name__, "message": text.split("\n")[0]}
    return None


def _ops(g, prefix=""):
    return [[op.name, op.type] for op in g.get_operations() if op.name.startswith(prefix)]


def _kind(tf, x):
    """'IndexedSlices', 'Tensor' (TF 2.x's graph tensors are SymbolicTensors) or 'None'."""
    if x is None:
        return "None"
    return "IndexedSlices" if isinstance(x, tf.IndexedSlices) else "Tensor"


def _values(seed, shape, low=-1.0, high=1.0):
    return np.random.RandomState(seed).uniform(low, high, shape).astype(np.float32)


IDS = np.array([4, 1, 4, 0, 5, 4], dtype=np.int32)  # repeated rows, some rows untouched


# ---- the optimizers, dense and sparse ------------------------------------------------------
def _optimizers(tf, global_step):
    """name -> a new optimizer (built in the graph of global_step)."""
    train = tf.train
    return {
        "gradient_descent": lambda: train.GradientDescentOptimizer(0.1),
        "momentum": lambda: train.MomentumOptimizer(0.1, 0.9),
        "momentum_nesterov": lambda: train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
        "adam": lambda: train.AdamOptimizer(0.1),
        "adagrad": lambda: train.AdagradOptimizer(0.1, initial_accumulator_value=0.2),
        "rmsprop": lambda: train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5, epsilon=1e-6),
        "rmsprop_centered": lambda: train.RMSPropOptimizer(
            0.01, decay=0.8, momentum=0.5, epsilon=1e-6, centered=True
        ),
        "adadelta": lambda: train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6),
        "adadelta_locked": lambda: train.AdadeltaOptimizer(0.5, use_locking=True),
        "ftrl": lambda: train.FtrlOptimizer(
            0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02
        ),
        "ftrl_power": lambda: train.FtrlOptimizer(
            0.2, learning_rate_power=-0.7, initial_accumulator_value=0.3
        ),
        "ftrl_shrinkage": lambda: train.FtrlOptimizer(
            0.1,
            l1_regularization_strength=0.001,
            l2_regularization_strength=0.02,
            l2_shrinkage_regularization_strength=0.05,
        ),
        "ftrl_named_slots": lambda: train.FtrlOptimizer(
            0.1, accum_name="acc", linear_name="lin", use_locking=True
        ),
        "proximal_adagrad": lambda: train.ProximalAdagradOptimizer(
            0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02
        ),
        "proximal_adagrad_l2": lambda: train.ProximalAdagradOptimizer(
            0.2, initial_accumulator_value=0.5, l2_regularization_strength=0.1
        ),
        "proximal_gradient_descent": lambda: train.ProximalGradientDescentOptimizer(
            0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02
        ),
        "proximal_gradient_descent_plain": lambda: train.ProximalGradientDescentOptimizer(0.3),
        "adagrad_da": lambda: train.AdagradDAOptimizer(
            0.1, global_step, l1_regularization_strength=0.01, l2_regularization_strength=0.02
        ),
        "adagrad_da_plain": lambda: train.AdagradDAOptimizer(
            0.2, global_step, initial_gradient_squared_accumulator_value=0.3
        ),
    }


OPTIMIZERS = (
    "adadelta",
    "adadelta_locked",
    "adagrad",
    "adagrad_da",
    "adagrad_da_plain",
    "adam",
    "ftrl",
    "ftrl_named_slots",
    "ftrl_power",
    "ftrl_shrinkage",
    "gradient_descent",
    "momentum",
    "momentum_nesterov",
    "proximal_adagrad",
    "proximal_adagrad_l2",
    "proximal_gradient_descent",
    "proximal_gradient_descent_plain",
    "rmsprop",
    "rmsprop_centered",
)


def _train(tf, which, sparse):
    """Three steps of optimizer `which` on a [6, 3] variable (and a [3] bias, dense): values
    of every variable after each step, slot names, the update ops' names and types."""
    g = tf.Graph()
    with g.as_default():
        global_step = tf.Variable(0, dtype=tf.int64, name="global_step", trainable=False)
        emb = tf.Variable(_values(1, [6, 3]), name="emb")
        bias = tf.Variable(_values(2, [3]), name="bias")
        weights = tf.constant(_values(3, [len(IDS), 3], 0.5, 2.0))
        if sparse:
            rows = tf.gather(emb, tf.constant(IDS))
        else:
            rows = tf.matmul(tf.one_hot(tf.constant(IDS), 6), emb)
        loss = tf.reduce_sum(tf.square(rows * weights + bias))
        opt = _optimizers(tf, global_step)[which]()
        grads_and_vars = opt.compute_gradients(loss)
        kinds = [_kind(tf, gr) for gr, _ in grads_and_vars]
        train_op = opt.apply_gradients(grads_and_vars, global_step=global_step)
        variables = tf.global_variables()
        slots = {}
        for name in opt.get_slot_names():
            for v in (emb, bias):
                s = opt.get_slot(v, name)
                if s is not None:
                    slots[f"{v.op.name}:{name}"] = s
        steps = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(STEPS):
                sess.run(train_op)
                values = sess.run({v.op.name: v for v in variables})
                values.update(sess.run(slots))
                steps.append(values)
        return {
            "gradient_kinds": kinds,
            "slot_names": opt.get_slot_names(),
            "variables": [v.name for v in variables],
            "slots": sorted(slots),
            "train_op": train_op.name,
            "update_ops": _ops(g, opt.get_name() + "/update_emb/"),
            "steps": steps,
        }


def _add_optimizer_cases():
    for which in OPTIMIZERS:
        for sparse in (False, True):
            name = "train_{}_{}".format(which, "sparse" if sparse else "dense")

            def run(tf, raw, which=which, sparse=sparse):
                return _train(tf, which, sparse)

            run.__name__ = name
            CASES[name] = run


_add_optimizer_cases()


# ---- the sparse update ops themselves, rows repeated -----------------------------------------
def _sparse_kernel_graph(tf, raw, op, dtype, inner):
    shape = [5, *inner]
    var = tf.Variable(_values(10, shape).astype(dtype), name="var")
    slots = [
        tf.Variable(np.abs(_values(11 + i, shape)).astype(dtype) + 0.1, name=f"slot{i}")
        for i in range(3)
    ]
    indices = tf.constant(np.array([3, 0, 3, 3, 1], dtype=np.int64))
    grad = tf.constant(_values(20, [5, *inner]).astype(dtype))
    c = lambda x: tf.constant(np.array(x, dtype=dtype))  # noqa: E731
    s = slots
    updates = {
        "SparseApplyMomentum": lambda: raw.sparse_apply_momentum(
            var, s[0], c(0.1), grad, indices, c(0.9), use_nesterov=True
        ),
        "SparseApplyAdagrad": lambda: raw.sparse_apply_adagrad(var, s[0], c(0.1), grad, indices),
        "SparseApplyRMSProp": lambda: raw.sparse_apply_rms_prop(
            var, s[0], s[1], c(0.05), c(0.8), c(0.3), c(1e-5), grad, indices
        ),
        "SparseApplyCenteredRMSProp": lambda: raw.sparse_apply_centered_rms_prop(
            var, s[2], s[0], s[1], c(0.05), c(0.8), c(0.3), c(1.0), grad, indices
        ),
        "SparseApplyAdadelta": lambda: raw.sparse_apply_adadelta(
            var, s[0], s[1], c(0.7), c(0.9), c(1e-4), grad, indices
        ),
        "SparseApplyProximalGradientDescent": lambda: raw.sparse_apply_proximal_gradient_descent(
            var, c(0.2), c(0.05), c(0.1), grad, indices
        ),
        "SparseApplyProximalAdagrad": lambda: raw.sparse_apply_proximal_adagrad(
            var, s[0], c(0.2), c(0.05), c(0.1), grad, indices
        ),
        "SparseApplyAdagradDA": lambda: raw.sparse_apply_adagrad_da(
            var,
            s[0],
            s[1],
            grad,
            indices,
            c(0.2),
            c(0.05),
            c(0.1),
            tf.constant(np.int64(3)),
        ),
        "SparseApplyFtrl": lambda: raw.sparse_apply_ftrl(
            var, s[0], s[1], grad, indices, c(0.2), c(0.05), c(0.1), c(-0.5)
        ),
        "SparseApplyFtrlV2": lambda: raw.sparse_apply_ftrl_v2(
            var, s[0], s[1], grad, indices, c(0.2), c(0.05), c(0.1), c(0.3), c(-0.6)
        ),
    }
    return var, slots, updates[op]()


SPARSE_OPS = [
    "SparseApplyAdadelta",
    "SparseApplyAdagrad",
    "SparseApplyAdagradDA",
    "SparseApplyCenteredRMSProp",
    "SparseApplyFtrl",
    "SparseApplyFtrlV2",
    "SparseApplyMomentum",
    "SparseApplyProximalAdagrad",
    "SparseApplyProximalGradientDescent",
    "SparseApplyRMSProp",
]


def _sparse_kernel(tf, raw, op):
    out = {}
    for dtype, inner in ((np.float32, [4]), (np.float64, []), (np.float32, [2, 2])):
        g = tf.Graph()
        with g.as_default():
            var, slots, update = _sparse_kernel_graph(tf, raw, op, dtype, inner)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(update)
                sess.run(update)
                out[f"{np.dtype(dtype).name}_{len(inner)}"] = {
                    "values": sess.run([var, *slots]),
                    "shape": update.shape.as_list(),
                    "dtype": update.dtype.name,
                }
    return out


def _add_kernel_cases():
    for op in SPARSE_OPS:

        def run(tf, raw, op=op):
            return _sparse_kernel(tf, raw, op)

        CASES["kernel_" + op] = run


_add_kernel_cases()


@case
def sparse_kernel_errors(tf, raw):
    g = tf.Graph()
    with g.as_default():
        var = tf.Variable(np.ones([4, 2], np.float32))
        acc = tf.Variable(np.ones([4, 2], np.float32))
        lin = tf.Variable(np.ones([4, 2], np.float32))
        grad = tf.constant(np.ones([2, 2], np.float32))
        bad_index = raw.sparse_apply_adagrad(var, acc, 0.1, grad, tf.constant([1, 4]))
        bad_rows = raw.sparse_apply_momentum(
            var, acc, 0.1, tf.constant(np.ones([3, 2], np.float32)), tf.placeholder(tf.int32), 0.9
        )
        bad_lr = raw.sparse_apply_ftrl(
            var, acc, lin, grad, tf.constant([0, 1]), -0.1, 0.0, 0.0, -0.5
        )
        bad_l1 = raw.sparse_apply_proximal_adagrad(var, acc, 0.1, -0.5, 0.0, grad, [0, 1])
        uninit = tf.Variable(np.ones([4, 2], np.float32), name="never_initialized")
        not_initialized = raw.sparse_apply_adagrad(uninit, acc, 0.1, grad, tf.constant([0, 1]))
        feed = {}
        with tf.Session() as sess:
            sess.run([var.initializer, acc.initializer, lin.initializer])
            errors = {
                "index_out_of_range": _error(lambda: sess.run(bad_index)),
                "rows_do_not_match": _error(
                    lambda: sess.run(bad_rows, {bad_rows.op.inputs[4]: [0, 1]})
                ),
                "ftrl_negative_lr": _error(lambda: sess.run(bad_lr)),
                "proximal_adagrad_negative_l1": _error(lambda: sess.run(bad_l1)),
                "uninitialized": _error(lambda: sess.run(not_initialized)),
            }
            unchanged = sess.run([var, acc], feed)
        graph_errors = {
            "indices_matrix": _error(
                lambda: raw.sparse_apply_adagrad(var, acc, 0.1, grad, tf.constant([[0, 1]]))
            ),
            "grad_columns": _error(
                lambda: raw.sparse_apply_adagrad(
                    var, acc, 0.1, tf.constant(np.ones([2, 3], np.float32)), [0, 1]
                )
            ),
            "float_indices": _error(
                lambda: raw.sparse_apply_adagrad(var, acc, 0.1, grad, tf.constant([0.0, 1.0]))
            ),
        }
    return {
        "errors": {k: v["error"] if v else None for k, v in errors.items()},
        "graph_errors": {k: v["error"] if v else None for k, v in graph_errors.items()},
        "unchanged_after_errors": unchanged,
    }


# ---- IndexedSlices: gradients of gathers, their aggregation, fetching, converting ------------
@case
def gather_gradient_is_indexed_slices(tf, raw):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(_values(30, [6, 2, 3]), name="v")
        rows = tf.gather(v, tf.constant([[5, 1], [1, 0]]))
        loss = tf.reduce_sum(rows * tf.constant(_values(31, [2, 2, 2, 3])))
        (grad,) = tf.gradients(loss, [v])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(grad)
            dense = sess.run(tf.convert_to_tensor(grad))
        return {
            "type": _kind(tf, grad),
            "value_type": type(value).__name__,
            "values": value.values,
            "indices": value.indices,
            "dense_shape": value.dense_shape,
            "dense": dense,
            "parts": [grad.values.name, grad.indices.name, grad.dense_shape.name],
            "static": [grad.values.shape.as_list(), grad.indices.shape.as_list()],
            "grad_ops": _ops(g, "gradients/GatherV2_grad/"),
            "dtype": grad.dtype.name,
            "name": grad.name,
        }


@case
def gather_gradients_on_other_axes(tf, raw):
    out = {}
    params_value = _values(40, [3, 4, 5])
    cases = [
        ("axis1", [[2, 0], [3, 3]], 1, 0),
        ("axis2", [4, 0, 4], 2, 0),
        ("axis_minus1", [1, 1], -1, 0),
        ("batch_dims1_axis1", [[1, 1, 0], [3, 2, 2], [0, 0, 0]], 1, 1),
        ("batch_dims1_axis2", [[4, 0], [1, 1], [2, 3]], 2, 1),
    ]
    for name, ids, axis, batch_dims in cases:
        g = tf.Graph()
        with g.as_default():
            p = tf.constant(params_value)
            y = tf.gather(p, tf.constant(np.array(ids, np.int32)), axis=axis, batch_dims=batch_dims)
            w = tf.constant(_values(41, y.shape.as_list()))
            (grad,) = tf.gradients(tf.reduce_sum(y * w), [p])
            with tf.Session() as sess:
                out[name] = {
                    "y": sess.run(y),
                    "grad": sess.run(tf.convert_to_tensor(grad)),
                    "type": _kind(tf, grad),
                    "shape": y.shape.as_list(),
                }
    return out


@case
def gradients_aggregate_indexed_slices(tf, raw):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(_values(50, [5, 2]), name="v")
        a = tf.gather(v, tf.constant([0, 3]))
        b = tf.gather(v, tf.constant(np.array([3, 3, 1], np.int64)))
        sparse_loss = tf.reduce_sum(a * 2.0) + tf.reduce_sum(b * b)
        (both_sparse,) = tf.gradients(sparse_loss, [v])
        mixed_loss = tf.reduce_sum(a) + tf.reduce_sum(v * v)
        (mixed,) = tf.gradients(mixed_loss, [v])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            s = sess.run(both_sparse)
            m = sess.run(mixed)
        return {
            "sparse_type": _kind(tf, both_sparse),
            "sparse_values": s.values,
            "sparse_indices": s.indices,
            "sparse_indices_dtype": both_sparse.indices.dtype.name,
            "sparse_dense_shape": s.dense_shape,
            "mixed_type": _kind(tf, mixed),
            "mixed": m,
        }


@case
def indexed_slices_fetch_feed_and_convert(tf, raw):
    g = tf.Graph()
    with g.as_default():
        values = tf.placeholder(tf.float32, [None, 2])
        indices = tf.placeholder(tf.int64, [None])
        shape = tf.placeholder_with_default(np.array([4, 2], np.int64), [2])
        slices = tf.IndexedSlices(values, indices, shape)
        no_shape = tf.IndexedSlices(values, indices)
        dense = tf.convert_to_tensor(slices)
        negated = -slices
        feed = {values: [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], indices: [3, 0, 3]}
        with tf.Session() as sess:
            fetched = sess.run(slices, feed)
            fetched_no_shape = sess.run(no_shape, feed)
            dense_value = sess.run(dense, feed)
            negated_value = sess.run(negated, feed)
            from_feed = sess.run(
                dense, {slices: ([[1.0, 1.0]], np.array([2], np.int64), np.array([3, 2], np.int64))}
            )
        no_shape_error = _error(lambda: tf.convert_to_tensor(no_shape))
        dtype_error = _error(lambda: tf.convert_to_tensor(slices, dtype=tf.int32))
        kept = tf.convert_to_tensor_or_indexed_slices(slices) is slices
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            unknown = tf.IndexedSlices(values, indices, tf.placeholder(tf.int64, [2]))
            tf.convert_to_tensor(unknown)
            big = tf.IndexedSlices(values, indices, tf.constant(np.array([10**8, 2], np.int64)))
            tf.convert_to_tensor(big)
            small = tf.IndexedSlices(values, indices, tf.constant(np.array([10, 2], np.int64)))
            tf.convert_to_tensor(small)
        return {
            "fetched_type": type(fetched).__name__,
            "fetched": list(fetched),
            "fetched_no_shape": [
                fetched_no_shape.values,
                fetched_no_shape.indices,
                fetched_no_shape.dense_shape,
            ],
            "dense": dense_value,
            "dense_op": dense.op.type,
            "negated": [negated_value.values, negated_value.indices],
            "from_feed": from_feed,
            "no_shape_error": no_shape_error,
            "dtype_error": dtype_error["error"],
            "kept": kept,
            "warnings": [str(w.message) for w in caught if "IndexedSlices" in str(w.message)],
            "str": str(slices)
            .replace(slices.values.name, "V")
            .replace(slices.indices.name, "I")
            .replace(slices.dense_shape.name, "S"),
        }


@case
def clip_indexed_slices(tf, raw):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(_values(60, [5, 3]), name="v")
        w = tf.Variable(_values(61, [3]), name="w")
        loss = tf.reduce_sum(tf.gather(v, tf.constant([1, 4, 1])) * w * 3.0)
        gv, gw = tf.gradients(loss, [v, w])
        clipped, norm = tf.clip_by_global_norm([gv, None, gw], 1.5)
        by_norm = tf.clip_by_norm(gv, 0.5)
        by_norm_axes = tf.clip_by_norm(gv, 0.5, axes=[1])
        by_value = tf.clip_by_value(gv, -0.3, 0.3)
        gnorm = tf.global_norm([gv, gw])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            c0, c2, n, bn, bna, bv, gn = sess.run(
                [clipped[0], clipped[2], norm, by_norm, by_norm_axes, by_value, gnorm]
            )
        return {
            "types": [_kind(tf, x) for x in (clipped[0], clipped[2], by_norm, by_value)],
            "none_kept": clipped[1] is None,
            "clipped_values": [c0.values, c0.indices, c2],
            "norm": n,
            "by_norm": [bn.values, bn.indices],
            "by_norm_axes": bna.values,
            "by_value": bv.values,
            "global_norm": gn,
            "names": [clipped[0].values.name, clipped[2].name, norm.name, by_norm.values.name],
        }


@case
def embedding_lookup_one_variable(tf, raw):
    g = tf.Graph()
    with g.as_default():
        emb = tf.Variable(_values(70, [7, 4]), name="emb")
        ids = tf.constant([[6, 0], [2, 6]])
        looked = tf.nn.embedding_lookup(emb, ids)
        listed = tf.nn.embedding_lookup([emb], tf.constant([1, 1]), name="listed")
        loss = tf.reduce_sum(looked * looked) + tf.reduce_sum(listed)
        (grad,) = tf.gradients(loss, [emb])
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out, gv = sess.run([looked, grad])
            sess.run(train)
            after = sess.run(emb)
        return {
            "looked": out,
            "shape": looked.shape.as_list(),
            "names": [looked.name, listed.name],
            "grad_type": _kind(tf, grad),
            "grad": [gv.values, gv.indices, gv.dense_shape],
            "after": after,
            "lookup_ops": _ops(g, "embedding_lookup"),
            "train_ops": _ops(g, "GradientDescent/"),
        }


@case
def optimizer_argument_errors(tf, raw):
    train = tf.train
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.ones([3, 2], np.float32), name="v", constraint=lambda x: x * 0.5)
        loss = tf.reduce_sum(tf.gather(v, [0, 2]))
        constrained = _error(lambda: train.GradientDescentOptimizer(0.1).minimize(loss))
        dense = _error(lambda: train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(v * v)))
    return {
        "ftrl_power": _error(lambda: train.FtrlOptimizer(0.1, learning_rate_power=0.5)),
        "ftrl_accumulator": _error(lambda: train.FtrlOptimizer(0.1, initial_accumulator_value=-1)),
        "ftrl_l1": _error(lambda: train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0)),
        "ftrl_shrinkage": _error(
            lambda: train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=-0.1)
        ),
        "proximal_adagrad_accumulator": _error(
            lambda: train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0)
        ),
        "adagrad_da_accumulator": _error(
            lambda: train.AdagradDAOptimizer(
                0.1, None, initial_gradient_squared_accumulator_value=-1.0
            )
        ),
        "sparse_with_constraint": constrained,
        "dense_with_constraint": dense,
    }


@case
def sparse_conditional_accumulator(tf, raw):
    g = tf.Graph()
    with g.as_default():
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[5, 2])
        first = tf.IndexedSlices(
            tf.constant([[1.0, 1.0], [2.0, 2.0]]),
            tf.constant(np.array([3, 0], np.int64)),
            tf.constant(np.array([5, 2], np.int64)),
        )
        apply_first = acc.apply_indexed_slices_grad(first, local_step=0)
        apply_second = acc.apply_grad(
            tf.constant(np.array([3, 1, 3], np.int64)),
            tf.constant([[10.0, 10.0], [4.0, 4.0], [1.0, 3.0]]),
            local_step=0,
        )
        stale = acc.apply_grad(
            tf.constant(np.array([2], np.int64)), tf.constant([[9.0, 9.0]]), local_step=0
        )
        taken = acc.take_indexed_slices_grad(2)
        count = acc.num_accumulated()
        summed = tf.SparseConditionalAccumulator(tf.float64, reduction_type="SUM", name="summed")
        apply_summed = summed.apply_grad(tf.constant([4, 4]), tf.constant([1.5, 2.5], tf.float64))
        taken_summed = summed.take_grad(1)
        with tf.Session() as sess:
            sess.run(apply_first)
            sess.run(apply_second)
            counted = sess.run(count)
            value = sess.run(taken)
            sess.run(stale)  # local step 0 is older than the accumulator's step now
            after_stale = sess.run(count)
            sess.run(apply_summed)
            summed_value = sess.run(taken_summed)
        return {
            "values": value.values,
            "indices": value.indices,
            "dense_shape": value.dense_shape,
            "counted": counted,
            "after_stale": after_stale,
            "summed": list(summed_value),
            "ops": _ops(g),
            "kinds": [_kind(tf, taken), _kind(tf, taken.values)],
        }
