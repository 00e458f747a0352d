"""The names of a v1 while loop's gradients of its invariants (an RNN cell's kernel and bias,
tensors its body reads from outside): TF1's accumulator Exits, `<gradients>/<the Enter made
for the first op reading the tensor>_grad/b_acc_3` (b_acc_2 where the tensor's shape is
unknown; b_acc_7/8/9 for a gather's IndexedSlices), returned by tf.gradients and by an
optimizer's compute_gradients without a gating tuple. `fn(tf) -> dict of plain values`, run on
TF 1.15 by record_loop_gradient_names.py and on tfcluster by
tests/unit/test_loop_gradient_names.py. Python 3.7 code."""

from __future__ import annotations


def _names(grads):
    return [None if g is None else g.name for g in grads]


def rnn_cells_compute_gradients(tf):
    """compute_gradients through dynamic_rnn of several cells, and a bidirectional one."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [3, 4, 2])
    lengths = tf.placeholder(tf.int32, [3])
    cells = [
        ("basic_rnn", lambda: tf.nn.rnn_cell.BasicRNNCell(3)),
        ("basic_lstm", lambda: tf.nn.rnn_cell.BasicLSTMCell(3)),
        ("projected", lambda: tf.nn.rnn_cell.LSTMCell(3, num_proj=2, use_peepholes=True)),
        ("gru", lambda: tf.nn.rnn_cell.GRUCell(3)),
        (
            "stacked",
            lambda: tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(3) for _ in "ab"]),
        ),
    ]
    out = {}
    for name, cell in cells:
        with tf.variable_scope(name):
            outputs, _ = tf.nn.dynamic_rnn(cell(), x, sequence_length=lengths, dtype=tf.float32)
            pairs = tf.train.AdamOptimizer().compute_gradients(
                tf.reduce_sum(outputs), var_list=tf.trainable_variables(name + "/")
            )
            out[name] = [[v.name, g.name] for g, v in pairs]
    with tf.variable_scope("bidirectional"):
        (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(
            tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.GRUCell(3), x, dtype=tf.float32
        )
        loss = tf.reduce_sum(fw) + tf.reduce_sum(bw)
        out["bidirectional"] = _names(tf.gradients(loss, tf.trainable_variables("bidirectional/")))
    return out


def invariants_read_by_several_ops(tf):
    """Tensors read in a while body by one op, by two ops (the first names it), two in one
    op, one of unknown shape."""
    tf.reset_default_graph()
    w = tf.Variable([1.0, 1.0, 1.0], name="w")
    p = tf.placeholder(tf.float32, [None], name="p")
    q = tf.Variable(2.0, name="q")
    r = tf.Variable(3.0, name="r")

    def body(i, acc):
        y = acc * w + tf.reduce_sum(p) * q
        return i + 1, y + tf.multiply(q, r, name="qr")

    _, res = tf.while_loop(lambda i, acc: i < 3, body, [0, tf.zeros([3])])
    return {"names": _names(tf.gradients(tf.reduce_sum(res), [w, p, q, r]))}


def gathered_invariants(tf):
    """A reference and a resource variable looked up in the loop: IndexedSlices whose
    indices, values and dense shape are TF1's accumulator Exits."""
    tf.reset_default_graph()
    emb = tf.get_variable("emb", [5, 2], use_resource=True)
    emb2 = tf.get_variable("emb2", [5, 2])
    ids = tf.constant([1, 2, 3])

    def body(i, acc):
        return i + 1, acc + tf.nn.embedding_lookup(emb, ids[i]) + tf.gather(emb2, ids[i])

    _, res = tf.while_loop(lambda i, acc: i < 3, body, [0, tf.zeros([2])])
    grads = tf.gradients(tf.reduce_sum(res), [emb, emb2])
    return {
        "types": [type(g).__name__ for g in grads],
        "parts": [[g.indices.name, g.values.name, g.dense_shape.name] for g in grads],
    }


def invariant_of_a_nested_loop(tf):
    """A tensor read only inside an inner loop: the outer loop's Enter takes the inner op's
    name."""
    tf.reset_default_graph()
    v = tf.Variable([[0.5, 0.1], [0.2, 0.3]], name="v")
    h = tf.constant([[1.0, 2.0]])

    def outer(i, s):
        inner = tf.while_loop(lambda j, t: j < 2, lambda j, t: (j + 1, tf.matmul(t, v)), [0, s])
        return i + 1, inner[1]

    _, res = tf.while_loop(lambda i, s: i < 2, outer, [0, h])
    return {"names": _names(tf.gradients(tf.reduce_sum(res), [v]))}


CASES = {
    "rnn_cells_compute_gradients": rnn_cells_compute_gradients,
    "invariants_read_by_several_ops": invariants_read_by_several_ops,
    "gathered_invariants": gathered_invariants,
    "invariant_of_a_nested_loop": invariant_of_a_nested_loop,
}
