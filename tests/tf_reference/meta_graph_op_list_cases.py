"""What a MetaGraphDef says about the ops its graph uses, as TF 1.15 writes and reads it:
meta_info_def.stripped_op_list (the OpDef of every op type the graph and its loops use,
sorted), export with strip_default_attrs (default-valued attrs left out of the nodes and
meta_info_def.stripped_default_attrs set), import_meta_graph of a graph from a newer
producer whose nodes carry an attr TF 1.15's OpDef lacks at the producer's default (dropped),
and long attr lists shortened in messages. Written once for TF 1.15
(record_meta_graph_op_list.py) and tfcluster (tests/unit/test_meta_graph_op_list.py); kept
runnable on Python 3.7."""

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import error, registrar
except ImportError:
    from case_tools import error, registrar

from google.protobuf import text_format

CASES = {}
case = registrar(CASES, own_graph=True, graph_seed=1)

_NODES = (
    "x",
    "dense/MatMul",
    "Reshape",
    "conv2d/Conv2D",
    "Mean",
    "Adam/update_dense/kernel/ApplyAdam",
)


def _train_graph(tf):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    h = tf.layers.dense(x, 3, activation=tf.nn.relu)
    c = tf.layers.conv2d(tf.reshape(x, [-1, 2, 2, 1]), 2, 2, padding="same")
    loss = tf.reduce_mean(h) + tf.reduce_sum(c)
    tf.train.AdamOptimizer(0.1).minimize(loss)


def _op_list(meta_graph_def):
    return {
        op.name: text_format.MessageToString(op)
        for op in meta_graph_def.meta_info_def.stripped_op_list.op
    }


def _export(tf, strip):
    mgd = tf.train.export_meta_graph(strip_default_attrs=strip)
    nodes = {n.name: sorted(n.attr.keys()) for n in mgd.graph_def.node if n.name in _NODES}
    return {
        "ops": _op_list(mgd),
        "order": [op.name for op in mgd.meta_info_def.stripped_op_list.op],
        "stripped_default_attrs": mgd.meta_info_def.stripped_default_attrs,
        "node_attrs": nodes,
    }


@case
def training_graph_op_list(tf):
    _train_graph(tf)
    return _export(tf, False)


@case
def training_graph_stripped_of_default_attrs(tf):
    _train_graph(tf)
    return _export(tf, True)


@case
def while_loop_op_list(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [tf.constant(0), 1.0])
    return {"ops": _op_list(tf.train.export_meta_graph())}


@case
def stripped_graph_imports_and_runs(tf):
    v = tf.Variable([[1.0, 2.0]], name="v")
    y = tf.matmul(v, [[3.0], [4.0]], name="y")
    tf.add_to_collection("y", y)
    mgd = tf.train.export_meta_graph(strip_default_attrs=True)
    with tf.Graph().as_default():
        tf.train.import_meta_graph(mgd)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return {"y": sess.run(tf.get_collection("y")[0]).tolist()}


def _with_new_attr(tf, value):
    """A MetaGraphDef whose producer's MatMul OpDef has a bool attr `new_flag` (default
    false) that the MatMul node sets to `value`."""
    with tf.Graph().as_default():
        a = tf.constant(np.arange(4, dtype=np.float32).reshape(2, 2), name="a")
        y = tf.matmul(a, a, name="y")
        tf.add_to_collection("y", y)
        mgd = tf.train.export_meta_graph()
    for op in mgd.meta_info_def.stripped_op_list.op:
        if op.name == "MatMul":
            attr = op.attr.add(name="new_flag", type="bool")
            attr.default_value.b = False
    for node in mgd.graph_def.node:
        if node.name == "y":
            node.attr["new_flag"].b = value
    return mgd


@case
def new_attr_at_producer_default_is_dropped(tf):
    mgd = _with_new_attr(tf, False)
    with tf.Graph().as_default() as graph:
        tf.train.import_meta_graph(mgd)
        attrs = sorted(graph.get_operation_by_name("y").node_def.attr.keys())
        with tf.Session() as sess:
            return {"y": sess.run("y:0").tolist(), "attrs": attrs}


@case
def long_attr_lists_are_shortened_in_messages(tf):
    messages = {}
    for length in (14, 15, 16):
        actual = tf.GraphDef()
        actual.node.add(name="c", op="NoOp").attr["zz"].list.i.extend(range(length))
        expected = tf.GraphDef()
        expected.node.add(name="c", op="NoOp")
        messages[str(length)] = error(
            lambda a=actual, e=expected: tf.test.assert_equal_graph_def(a, e)
        )
    return messages
