"""The GraphDef of a v1 while loop as TF 1.15 writes it: a loop invariant's Enter is named after
the first op that reads it ("while/mul/Enter", "while/Less/Enter", "TensorArrayReadV3/Enter_1"),
and with maximum_iterations (tf.map_fn's loop) the counter is the first loop variable, named
iteration_counter, so the Enter/Merge/Switch/Exit/NextIteration suffixes and the constants'
pivot follow it. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_loop_frame_names.py and on tfcluster by tests/unit/test_loop_frame_names.py.
Python 3.7 code."""

from __future__ import annotations


def _nodes(graph):
    return sorted([n.name, n.op, list(n.input)] for n in graph.as_graph_def().node)


def while_loop_with_invariants(tf):
    with tf.Graph().as_default() as graph:
        c = tf.constant(3.0, name="c")
        n = tf.constant(4, name="n")
        tf.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, x * c), [0, 1.0])
        return {"nodes": _nodes(graph)}


def map_fn_loop(tf):
    with tf.Graph().as_default() as graph:
        c = tf.constant(3.0, name="c")
        elems = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="elems")
        tf.map_fn(lambda e: e * c, elems)
        return {"nodes": _nodes(graph)}


def loop_with_a_limit(tf):
    with tf.Graph().as_default() as graph:
        k = tf.constant(2.0, name="k")
        tf.while_loop(
            lambda i, x: x < 100.0,
            lambda i, x: (i + 1, x * k + 1.0),
            (0, 1.0),
            maximum_iterations=5,
        )
        return {"nodes": _nodes(graph)}


CASES = {
    "loop_with_a_limit": loop_with_a_limit,
    "map_fn_loop": map_fn_loop,
    "while_loop_with_invariants": while_loop_with_invariants,
}
