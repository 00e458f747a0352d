"""A v1 while loop whose body gathers rows of a tensor from outside the loop (an embedding
looked up in every iteration, a decoder feeding back its predictions): TF1 keeps the gradient
of that tensor as IndexedSlices (an entry for index 0 with a row of zeros, then each gradient
iteration's rows), so optimizers apply it sparsely. `fn(tf) -> dict of plain values`, run on
TF 1.15 by record_loop_gather_gradient.py and on tfcluster by
tests/unit/test_loop_gather_gradient.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np


def _rows(tf, use_resource):
    tf.reset_default_graph()
    tf.set_random_seed(3)
    emb = tf.get_variable("emb", [5, 2], use_resource=use_resource)
    ids = tf.constant([1, 3, 1, 4])

    def body(i, acc):
        return i + 1, acc + tf.nn.embedding_lookup(emb, ids[i]) * tf.cast(i + 1, tf.float32)

    _, total = tf.while_loop(lambda i, acc: i < 4, body, [0, tf.zeros([2])])
    return emb, tf.reduce_sum(tf.square(total - 1.0))


def _slices_of(tf, use_resource):
    emb, loss = _rows(tf, use_resource)
    (grad,) = tf.gradients(loss, [emb])
    after = tf.random_uniform([3])  # its seed counts the ops the gradient made
    out = {"type": type(grad).__name__}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        indices, values, shape = sess.run([grad.indices, grad.values, grad.dense_shape])
        out["indices"] = np.asarray(indices).tolist()
        out["values"] = np.asarray(values).tolist()
        out["dense_shape"] = np.asarray(shape).tolist()
        out["static_values_shape"] = grad.values.shape.as_list()
        out["random_after"] = sess.run(after).tolist()
    return out


def gathered_rows_as_slices(tf):
    """The gradient of a reference variable looked up in the loop: its IndexedSlices."""
    return _slices_of(tf, False)


def gathered_resource_rows_as_slices(tf):
    """The same for a resource variable (ResourceGather in the loop)."""
    return _slices_of(tf, True)


def momentum_moves_only_gathered_rows(tf):
    """MomentumOptimizer on a loss whose rows come from a loop's lookups and a lookup outside:
    rows no step looked up keep their values even with momentum left from an earlier step."""
    emb, loss = _rows(tf, False)
    ids = tf.placeholder(tf.int32, [None])
    loss = loss + tf.reduce_sum(tf.nn.embedding_lookup(emb, ids))
    step = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
    out = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for fed in ([0], [2], [0], [0]):
            sess.run(step, {ids: fed})
            out.append(sess.run(emb).tolist())
    return {"embedding_after_each_step": out}


def gathered_rows_of_unknown_width(tf):
    """A fed tensor of unknown row width gathered in the loop: TF1 starts the values from
    zeros shaped by the tensor's own shape (the ops counted by a seeded op after them)."""
    tf.reset_default_graph()
    tf.set_random_seed(3)
    table = tf.placeholder(tf.float32, [5, None])
    ids = tf.constant([1, 3, 1, 4])

    def body(i, acc):
        row = tf.gather(table, ids[i])
        return i + 1, acc + tf.reduce_sum(row) * tf.cast(i + 1, tf.float32)

    _, total = tf.while_loop(lambda i, acc: i < 4, body, [0, tf.constant(0.0)])
    (grad,) = tf.gradients(tf.square(total), [table])
    after = tf.random_uniform([3])
    feed = {table: np.arange(10, dtype=np.float32).reshape(5, 2)}
    with tf.Session() as sess:
        indices, values, shape, drawn = sess.run(
            [grad.indices, grad.values, grad.dense_shape, after], feed
        )
    return {
        "type": type(grad).__name__,
        "indices": np.asarray(indices).tolist(),
        "values": np.asarray(values).tolist(),
        "dense_shape": np.asarray(shape).tolist(),
        "static_values_shape": grad.values.shape.as_list(),
        "random_after": drawn.tolist(),
    }


CASES = {
    "gathered_rows_as_slices": gathered_rows_as_slices,
    "gathered_resource_rows_as_slices": gathered_resource_rows_as_slices,
    "momentum_moves_only_gathered_rows": momentum_moves_only_gathered_rows,
    "gathered_rows_of_unknown_width": gathered_rows_of_unknown_width,
}
