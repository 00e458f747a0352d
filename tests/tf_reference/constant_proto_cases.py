"""Programs whose printed GraphDefs / TensorProtos TF 1.15 programs show (print(graph_def),
tf.make_tensor_proto): each case builds a graph with `tf` (TensorFlow 1.15 when recorded by
record_constant_protos.py, tfcluster in tests/unit/test_constant_protos_like_tf.py) and returns
the serialized TensorProtos of its constants and the text of its GraphDef. Python 3.7 code."""

import binascii

import numpy as np


def _hex(proto):
    return binascii.hexlify(proto.SerializeToString()).decode()


def _const_protos(tf):
    """Every Const node's value attr as serialized TensorProto bytes (no maps: deterministic)."""
    graph = tf.get_default_graph().as_graph_def()
    return {n.name: _hex(n.attr["value"].tensor) for n in graph.node if n.op == "Const"}


def scalar_and_vector_constants(tf):
    tf.constant(2, name="int_scalar")
    tf.constant(2.5, name="float_scalar")
    tf.constant([1, 2, 3], name="int_vector")
    tf.constant([1.5], name="one_float")
    tf.constant(np.arange(6, dtype=np.float64).reshape(2, 3), name="double_matrix")
    tf.constant(7, dtype=tf.int64, name="int64_scalar")
    tf.constant([True, False], name="bools")
    tf.constant(True, name="bool_scalar")
    tf.constant([1.0, 2.0], dtype=tf.float16, name="halves")
    tf.constant([1 + 2j, 3 - 4j], dtype=tf.complex64, name="complex_pair")
    tf.constant([3, 4], dtype=tf.uint16, name="uint16_pair")
    tf.constant(["a", "bc"], name="strings")
    tf.constant([], dtype=tf.float32, name="empty")
    return {"protos": _const_protos(tf)}


def constants_filled_from_one_value(tf):
    tf.constant(0.5, shape=[2, 3], name="filled_float")
    tf.constant(-1, shape=[4], name="filled_int")
    tf.constant([7], shape=[3], name="filled_from_list")
    tf.zeros([2, 2], name="zeros")
    tf.ones([3], dtype=tf.int64, name="ones")
    tf.constant(np.zeros((2, 2), np.float32), name="explicit_zeros")
    tf.constant("", shape=[3], name="filled_string")
    tf.zeros_like([b"apple", b"peach"], name="string_zeros")
    return {"protos": _const_protos(tf)}


def make_tensor_proto_public(tf):
    return {
        "scalar": _hex(tf.make_tensor_proto(3.0)),
        "vector": _hex(tf.make_tensor_proto([1, 2])),
        "broadcast": _hex(tf.make_tensor_proto(1.0, shape=[2, 2])),
        "fewer_values": _hex(tf.make_tensor_proto([1, 2], shape=[4])),
        "typed": _hex(tf.make_tensor_proto([1, 2], dtype=tf.int64)),
        "double_scalar": _hex(tf.make_tensor_proto(np.float64(0.25))),
    }


def graph_def_text(tf):
    """print(graph_def) lists every node's attrs sorted by key, as protobuf's text format does."""
    a = tf.constant([1, 2], name="a")
    b = tf.cast(a, tf.float32, name="b")
    tf.reduce_sum(b, name="total")
    return {"text": str(tf.get_default_graph().as_graph_def().node)}


def graph_def_fields(tf):
    """A graph without functions has no library field (print(graph_def) shows no library {})."""
    tf.constant(1.0, name="one")
    graph_def = tf.get_default_graph().as_graph_def()
    return {
        "fields": [field.name for field, _ in graph_def.ListFields()],
        "producer": graph_def.versions.producer,
        "GRAPH_DEF_VERSION": tf.GRAPH_DEF_VERSION,
    }


CASES = {
    "graph_def_fields": graph_def_fields,
    "scalar_and_vector_constants": scalar_and_vector_constants,
    "constants_filled_from_one_value": constants_filled_from_one_value,
    "make_tensor_proto_public": make_tensor_proto_public,
    "graph_def_text": graph_def_text,
}


def _tensordot_graph(tf):
    """tf.tensordot of fully known shapes: TF's Transpose/Reshape/MatMul/Reshape ops, even
    where a transpose or reshape changes nothing (02_simple_tf prints this graph)."""
    a = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3), name="a")
    b = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4), name="b")
    c = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4), name="c")
    vector = tf.tensordot(tf.constant([1, 2]), tf.constant([3, 4]), 1)
    matrix = tf.tensordot(a, b, 1)
    pairs = tf.tensordot(c, b, [[1, 2], [0, 1]])
    ops = [[op.name, op.type] for op in tf.get_default_graph().get_operations()]
    with tf.Session() as sess:
        values = sess.run([vector, matrix, pairs])
    return {"ops": ops, "values": [v.tolist() for v in values]}


def _control_inputs(tf):
    """A GraphDef lists a node's control inputs sorted by name; op.node_def and
    op.control_inputs keep the order they were added in."""
    made = [tf.Variable(v, name=n) for n, v in (("x", 1), ("y", 2), ("x_1", 3), ("y_1", 4))]
    init = tf.group(*[v.initializer for v in made], name="init")
    graph_def = tf.get_default_graph().as_graph_def()
    (node,) = [n for n in graph_def.node if n.name == "init"]
    return {
        "graph_def": list(node.input),
        "node_def": list(init.node_def.input),
        "control_inputs": [op.name for op in init.control_inputs],
    }


def _imported_constants_written_back(tf):
    """An imported GraphDef writes its constants back as they were written: a constant filled
    from one value stays one value (int_val: 0), not every value in tensor_content."""
    constants_filled_from_one_value(tf)
    scalar_and_vector_constants(tf)
    graph_def = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="imported")
        protos = _const_protos(tf)
        with tf.Session() as sess:
            filled = sess.run(["imported/filled_float:0", "imported/filled_string:0"])
    return {"protos": protos, "filled": [v.tolist() for v in filled]}


CASES["tensordot_graph"] = _tensordot_graph
CASES["imported_constants_written_back"] = _imported_constants_written_back
CASES["control_inputs"] = _control_inputs
