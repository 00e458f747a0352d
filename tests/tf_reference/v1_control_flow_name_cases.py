"""The names of tf.cond's and tf.while_loop's results in TF 1.15's graphs: a cond's outputs
are its Merges (`cond/Merge`, `cond/Merge_1`, ...), a loop's its Exits (`while/Exit`, ...,
the first after an iteration counter when maximum_iterations is given), so printed tensors
and fetches by name read as TF's; a random op made after them keeps TF's op seed. Each case
is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_v1_control_flow_names.py and on
tfcluster by tests/unit/test_v1_control_flow_names.py. Python 3.7 code."""

from __future__ import annotations

CASES = {}


def _names(structure):
    if isinstance(structure, dict):
        return {k: _names(v) for k, v in sorted(structure.items())}
    if isinstance(structure, (list, tuple)):
        return [_names(v) for v in structure]
    if hasattr(structure, "flow"):  # a TensorArray
        return f"TensorArray(flow={structure.flow.name})"
    return structure.name


def cond_result_names(tf):
    tf.reset_default_graph()
    p = tf.placeholder(tf.bool, name="p")
    one = tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(2.0))
    pair = tf.cond(p, lambda: (tf.constant(1.0), tf.constant(3)),
                   lambda: (tf.constant(2.0), tf.constant(4)))  # fmt: skip
    listed = tf.cond(p, lambda: [tf.constant(1.0)], lambda: [tf.constant(2.0)])
    named = tf.cond(p, lambda: {"b": tf.constant(1), "a": tf.constant(1.0)},
                    lambda: {"b": tf.constant(2), "a": tf.constant(2.0)}, name="named")  # fmt: skip
    nested = tf.cond(p, lambda: tf.cond(p, lambda: tf.constant(5.0), lambda: tf.constant(6.0)),
                     lambda: tf.constant(7.0))  # fmt: skip
    case = tf.case([(p, lambda: tf.constant(1.0))], default=lambda: tf.constant(2.0))
    with tf.Session() as sess:
        by_name = sess.run(["cond/Merge:0", "cond_1/Merge_1:0", "named/Merge:0"], {p: True})
        seeded = tf.random_uniform([2], seed=1)
        drawn = sess.run(seeded).tolist()
    return {
        "names": _names([one, pair, listed, named, nested, case]),
        "by_name": [float(v) for v in by_name],
        "op_seed_after": drawn,
    }


CASES["cond_result_names"] = cond_result_names


def while_loop_result_names(tf):
    tf.reset_default_graph()
    i = tf.constant(0)
    x = tf.constant(1.0)
    plain = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), [i, x])
    single = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [i], maximum_iterations=5)
    limited = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (i, x),
                            maximum_iterations=2, name="limited")  # fmt: skip
    arrays = tf.while_loop(
        lambda k, ta: k < 2,
        lambda k, ta: (k + 1, ta.write(k, tf.cast(k, tf.float32))),
        (i, tf.TensorArray(tf.float32, 2)),
    )
    with tf.Session() as sess:
        by_name = sess.run(["while/Exit:0", "while/Exit_1:0", "limited/Exit_2:0"])
        stacked = sess.run(arrays[1].stack()).tolist()
        seeded = tf.random_uniform([2], seed=1)
        drawn = sess.run(seeded).tolist()
    return {
        "names": _names([plain, single, limited, arrays]),
        "by_name": [float(v) for v in by_name],
        "stacked": stacked,
        "op_seed_after": drawn,
    }


CASES["while_loop_result_names"] = while_loop_result_names


def dynamic_rnn_state_names(tf):
    tf.reset_default_graph()
    tf.set_random_seed(3)
    inputs = tf.constant([[[0.5, -1.0], [1.0, 0.25], [0.0, 2.0]]])
    with tf.variable_scope("lstm"):
        _, lstm = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(3), inputs, dtype=tf.float32)
    with tf.variable_scope("gru"):
        _, gru = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), inputs, dtype=tf.float32,
                                   sequence_length=[2])  # fmt: skip
    with tf.variable_scope("bi"):
        _, both = tf.nn.bidirectional_dynamic_rnn(
            tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.GRUCell(2), inputs, dtype=tf.float32
        )
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(["lstm/rnn/while/Exit_4:0", "gru/rnn/while/Exit_3:0"])
        seeded = tf.random_uniform([2], seed=1)
        drawn = sess.run(seeded).tolist()
    return {
        "names": _names([lstm, gru, both]),
        "by_name": [v.tolist() for v in values],
        "op_seed_after": drawn,
    }


CASES["dynamic_rnn_state_names"] = dynamic_rnn_state_names
