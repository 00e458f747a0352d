"""tf.SparseTensor and the tf.sparse basics, written once against the TF1 API and run twice:
by record_sparse.py under TensorFlow 1.15 and by tests/unit/test_sparse_reference.py under
tfcluster. Each case returns plain data: fetched SparseTensorValues and dense values, static
shapes, gradients, op names, error classes and messages.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import numpy as np

try:
    from tf_reference.case_tools import error, registrar, run, run_error
except ImportError:  # the recorder runs from this folder
    from case_tools import error, registrar, run, run_error

CASES = {}


case = registrar(CASES)


def _shape(t):
    s = t.shape if hasattr(t, "shape") else t.get_shape()
    return None if s.ndims is None else [d if d is None else int(d) for d in s.as_list()]


def _st(tf):
    return tf.SparseTensor([[0, 1], [1, 0], [1, 2]], [1.0, 2.0, 3.0], [2, 3])


def _unordered(tf):
    return tf.SparseTensor([[1, 0], [0, 1], [1, 2]], [2.0, 1.0, 3.0], [2, 3])


@case
def placeholder_feed_and_fetch(tf):
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32, name="sp")
        fixed = tf.sparse_placeholder(tf.int64, shape=[3, 4], name="fixed")
        partial = tf.sparse_placeholder(tf.float32, shape=[None, 4])
        dense = tf.sparse_tensor_to_dense(sp)
        value = tf.SparseTensorValue([[0, 0], [2, 1]], [5.0, 6.0], [3, 2])
        with tf.Session() as sess:
            fetched = sess.run(sp, {sp: value})
            as_tuple = sess.run(dense, {sp: ([[1, 1]], [7.0], [2, 2])})
            fixed_dense = sess.run(
                tf.sparse_tensor_to_dense(fixed), {fixed: ([[2, 3]], [9], [3, 4])}
            )
        return {
            "fetched": {
                "indices": fetched.indices,
                "values": fetched.values,
                "dense_shape": fetched.dense_shape,
            },
            "fetched_type": type(fetched).__name__,
            "fed_tuple": as_tuple,
            "fixed_dense": fixed_dense,
            "names": [
                sp.indices.name,
                sp.values.name,
                sp.dense_shape.name,
                fixed.dense_shape.op.type,
            ],
            "shapes": [
                _shape(sp.indices),
                _shape(sp.values),
                _shape(sp.dense_shape),
                _shape(partial.indices),
                _shape(partial.dense_shape),
                _shape(fixed),
            ],
        }


@case
def to_dense_and_sparse_to_dense(tf):
    with tf.Graph().as_default():
        out = run(
            tf,
            {
                "to_dense": tf.sparse_tensor_to_dense(_st(tf), default_value=-1.0),
                "sparse_to_dense_vec": tf.sparse_to_dense([0, 2], [4], [5, 6], default_value=-1),
                "sparse_to_dense_scalar_value": tf.sparse_to_dense([[0, 0], [1, 2]], [2, 3], 7),
                "sparse_to_dense_scalar_index": tf.sparse_to_dense(2, [4], 9),
                "unordered_not_validated": tf.sparse_tensor_to_dense(
                    _unordered(tf), validate_indices=False
                ),
                "sparse_dot_to_dense": tf.sparse.to_dense(_st(tf)),
            },
        )
        errors = {
            "unordered": run_error(tf, tf.sparse_tensor_to_dense(_unordered(tf))),
            "repeated": run_error(
                tf, tf.sparse_tensor_to_dense(tf.SparseTensor([[0, 1], [0, 1]], [1.0, 2.0], [2, 3]))
            ),
            "out_of_bounds": run_error(
                tf, tf.sparse_tensor_to_dense(tf.SparseTensor([[0, 1], [2, 1]], [1.0, 2.0], [2, 3]))
            ),
        }
        d = tf.sparse_tensor_to_dense(_st(tf))
        return {"values": out, "errors": errors, "name": [d.name, d.op.type], "shape": _shape(d)}


@case
def reductions(tf):
    with tf.Graph().as_default():
        out = run(
            tf,
            {
                "sum_axis1": tf.sparse_reduce_sum(_st(tf), 1),
                "sum_all": tf.sparse_reduce_sum(_unordered(tf)),
                "sum_keep": tf.sparse_reduce_sum(_unordered(tf), -1, keepdims=True),
                "sum_sparse": tf.sparse_reduce_sum_sparse(_unordered(tf), 0),
                "max": tf.sparse_reduce_max(_st(tf), 1),
                "max_empty_rows": tf.sparse_reduce_max(
                    tf.SparseTensor([[0, 1], [1, 0]], [-1.0, -2.0], [3, 3]), 1
                ),
                "max_sparse": tf.sparse_reduce_max_sparse(
                    tf.SparseTensor([[0, 1], [2, 0]], [-1.0, -2.0], [3, 3]), 1
                ),
                "sparse_dot_reduce_sum": tf.sparse.reduce_sum(_st(tf), axis=[0, 1]),
            },
        )
        r = tf.sparse_reduce_sum(_st(tf), 1)
        return {
            "values": out,
            "bad_axis": run_error(tf, tf.sparse_reduce_sum(_st(tf), 3)),
            "shapes": [_shape(r), _shape(tf.sparse_reduce_sum(_st(tf), 1, keepdims=True))],
        }


@case
def sparse_dense_matmul(tf):
    with tf.Graph().as_default():
        b = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
        out = run(
            tf,
            {
                "plain": tf.sparse_tensor_dense_matmul(_st(tf), b),
                "adjoint_a": tf.sparse_tensor_dense_matmul(
                    _st(tf), tf.ones([2, 4]), adjoint_a=True
                ),
                "adjoint_b": tf.sparse_tensor_dense_matmul(
                    _st(tf), tf.transpose(b), adjoint_b=True
                ),
                "sparse_dot": tf.sparse.sparse_dense_matmul(_st(tf), b),
                "sparse_matmul_alias": tf.sparse.matmul(_st(tf), b),
            },
        )
        y = tf.sparse_tensor_dense_matmul(_st(tf), b)
        return {
            "values": out,
            "shape": _shape(y),
            "name": [y.name, y.op.type],
            "out_of_bounds": run_error(
                tf,
                tf.sparse_tensor_dense_matmul(
                    tf.SparseTensor([[0, 5]], [1.0], [2, 3]), tf.ones([3, 2])
                ),
            ),
            "static_mismatch": {
                "error": error(lambda: tf.sparse_tensor_dense_matmul(_st(tf), tf.ones([2, 2])))[
                    "error"
                ]
            },
        }


@case
def gradients(tf):
    with tf.Graph().as_default():
        vals = tf.constant([1.0, 2.0, 3.0])
        sp = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], vals, [2, 3])
        b = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0)
        mm = tf.sparse_tensor_dense_matmul(sp, b)
        mm_a = tf.sparse_tensor_dense_matmul(sp, tf.ones([2, 4]), adjoint_a=True)
        g_vals, g_b = tf.gradients(tf.reduce_sum(mm * mm), [vals, b])
        (g_adj,) = tf.gradients(tf.reduce_sum(mm_a * mm_a), [vals])
        s = tf.sparse_reduce_sum(sp, 1)
        (g_sum,) = tf.gradients(tf.reduce_sum(s * [1.0, 3.0]), [vals])
        d = tf.sparse_tensor_to_dense(sp, default_value=tf.constant(0.5))
        (g_dense,) = tf.gradients(tf.reduce_sum(d * d), [vals])
        sp2 = tf.SparseTensor([[0, 1], [0, 2]], tf.constant([10.0, 20.0]), [2, 3])
        added = tf.sparse_add(sp, sp2)
        (g_add,) = tf.gradients(tf.reduce_sum(added.values * added.values), [vals])
        reordered = tf.sparse_reorder(tf.SparseTensor([[1, 0], [0, 1], [1, 2]], vals, [2, 3]))
        (g_reorder,) = tf.gradients(tf.reduce_sum(reordered.values * [1.0, 2.0, 3.0]), [vals])
        sl = tf.sparse_slice(sp, [1, 0], [1, 3])
        (g_slice,) = tf.gradients(tf.reduce_sum(sl.values * sl.values), [vals])
        filled, _ = tf.sparse_fill_empty_rows(
            tf.SparseTensor([[1, 0]], vals[:1], [3, 2]), tf.constant(7.0)
        )
        g_fill = tf.gradients(tf.reduce_sum(filled.values * filled.values), [vals])
        return {
            "values": run(
                tf,
                {
                    "mm": [g_vals, g_b],
                    "adjoint": g_adj,
                    "reduce_sum": g_sum,
                    "to_dense": g_dense,
                    "add": g_add,
                    "reorder": g_reorder,
                    "slice": g_slice,
                    "fill": g_fill,
                },
            )
        }


@case
def add_reorder_reshape_retain_slice(tf):
    with tf.Graph().as_default():
        out = run(
            tf,
            {
                "add": tf.sparse_add(
                    _st(tf), tf.SparseTensor([[0, 1], [0, 2]], [-0.5, 0.1], [2, 3])
                ),
                "add_thresh": tf.sparse_add(
                    _st(tf), tf.SparseTensor([[0, 1], [0, 2]], [-0.5, 0.1], [2, 3]), thresh=0.6
                ),
                "add_unordered": tf.sparse_add(_unordered(tf), _st(tf)),
                "add_dense": tf.sparse_add(_st(tf), tf.ones([2, 3])),
                "reorder": tf.sparse_reorder(_unordered(tf)),
                "reshape": tf.sparse_reshape(_st(tf), [3, -1]),
                "reshape_3d": tf.sparse_reshape(_st(tf), [1, 3, 2]),
                "retain": tf.sparse_retain(_st(tf), [True, False, True]),
                "slice": tf.sparse_slice(_st(tf), [1, 1], [5, 5]),
                "transpose": tf.sparse_transpose(_st(tf)),
                "transpose_perm": tf.sparse_transpose(
                    tf.SparseTensor([[0, 1, 2], [1, 0, 0]], [1, 2], [2, 3, 4]), [2, 0, 1]
                ),
            },
        )
        errs = {
            "add_shapes": {
                "error": error(
                    lambda: tf.sparse_add(_st(tf), tf.SparseTensor([[0, 1]], [1.0], [3, 3]))
                )["error"]
            },
            "add_dense_only": error(lambda: tf.sparse_add(tf.ones([2]), tf.ones([2]))),
            "reshape_static": error(lambda: tf.sparse_reshape(_st(tf), [4, -1])),
            "reshape_two_unknown": run_error(
                tf,
                tf.sparse_reshape(
                    tf.SparseTensor(
                        [[0, 1]],
                        [1.0],
                        tf.placeholder_with_default(tf.constant([2, 3], tf.int64), [2]),
                    ),
                    [-1, -1],
                ),
            ),
        }
        shapes = {
            "add": _shape(tf.sparse_add(_st(tf), _st(tf))),
            "reorder": _shape(tf.sparse_reorder(_st(tf))),
            "reshape": _shape(tf.sparse_reshape(_st(tf), [3, -1])),
            "transpose": _shape(tf.sparse_transpose(_st(tf))),
        }
        return {"values": out, "errors": errs, "shapes": shapes}


@case
def concat_split_fill_softmax_extremes(tf):
    with tf.Graph().as_default():
        out = run(
            tf,
            {
                "concat1": tf.sparse_concat(1, [_unordered(tf), _st(tf)]),
                "concat0": tf.sparse_concat(0, [_unordered(tf), _st(tf)]),
                "concat_expand": tf.sparse_concat(
                    1,
                    [_st(tf), tf.SparseTensor([[0, 0]], [9.0], [1, 2])],
                    expand_nonconcat_dim=True,
                ),
                "split": tf.sparse_split(
                    sp_input=tf.SparseTensor(
                        [[0, 0], [0, 4], [1, 2], [1, 6]], [1.0, 2.0, 3.0, 4.0], [2, 7]
                    ),
                    num_split=3,
                    axis=1,
                ),
                "fill": list(
                    tf.sparse_fill_empty_rows(
                        tf.SparseTensor([[1, 0], [3, 2]], [1.0, 2.0], [5, 3]), -1.0
                    )
                ),
                "fill_unordered": list(
                    tf.sparse_fill_empty_rows(
                        tf.SparseTensor([[3, 2], [1, 0]], [2.0, 1.0], [5, 3]), -1.0
                    )
                ),
                "softmax": tf.sparse_softmax(_st(tf)),
                "maximum": tf.sparse_maximum(
                    _st(tf), tf.SparseTensor([[0, 1], [0, 2]], [5.0, -1.0], [2, 3])
                ),
                "minimum": tf.sparse_minimum(
                    _st(tf), tf.SparseTensor([[0, 1], [0, 2]], [5.0, -1.0], [2, 3])
                ),
                "to_indicator": tf.sparse_to_indicator(
                    tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [0, 3, 2], [2, 2]), 4
                ),
                "merge": tf.sparse_merge(
                    tf.SparseTensor([[0, 0], [1, 0]], [3, 1], [2, 1]),
                    tf.SparseTensor([[0, 0], [1, 0]], [0.5, 1.5], [2, 1]),
                    4,
                ),
                "reset_shape": tf.sparse_reset_shape(_st(tf), [4, 5]),
                "reset_shape_tight": tf.sparse_reset_shape(
                    tf.SparseTensor([[0, 1]], [1.0], [5, 5])
                ),
                "from_dense": tf.sparse.from_dense([[0, 3], [4, 0]]),
                "eye": tf.sparse.eye(3, 2),
                "expand_dims": tf.sparse.expand_dims(_st(tf), 1),
            },
        )
        return {"values": out}


@case
def string_split_to_sparse(tf):
    with tf.Graph().as_default():
        out = run(
            tf,
            {
                "spaces": tf.string_split(["a b", "c  d e", ""]),
                "delimiters": tf.string_split(["a,b;c", "d;;e"], delimiter=",;", skip_empty=False),
                "characters": tf.string_split(["abc", "de"], delimiter=""),
                "strings_split": tf.strings.split(["a b", "c  d e", ""]),
                "strings_split_sep": tf.strings.split(["a<>b<>", "<>c"], sep="<>"),
                "strings_split_max": tf.strings.split(["a b c d"], maxsplit=2),
            },
        )
        return {
            "values": out,
            "matrix": {"error": error(lambda: tf.string_split([["a b"]]))["error"]},
            "shapes": [
                _shape(tf.string_split(["a"]).indices),
                _shape(tf.string_split(["a"]).dense_shape),
            ],
        }
