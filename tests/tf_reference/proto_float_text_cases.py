"""Programs that print protos holding float fields, or build an Int64List from bools, as TF
programs do (print(example), print(summary), print(graph_def), tf.train.write_graph with
as_text): each case runs with `tf` (TensorFlow 1.15 when recorded by
record_proto_float_text.py, tfcluster in tests/unit/test_proto_float_text_like_tf.py) and
returns the texts and values. Python 3.7 code."""

import os
import tempfile

import numpy as np

FLOATS = [2.718281828, 1 / 3, 0.1, 1e-45, 3.4e38, 100.0, 1e16, 123456789.0, -0.0, 3]


def float_list_and_example(tf):
    floats = tf.train.FloatList(value=FLOATS)
    example = tf.train.Example(
        features=tf.train.Features(
            feature={"x": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, 0.1]))}
        )
    )
    return {"str": str(floats), "repr": repr(floats), "example": str(example)}


def non_finite_floats(tf):
    return {"str": str(tf.train.FloatList(value=[float("nan"), float("inf"), -float("inf")]))}


def summary_and_event(tf):
    summary = tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=0.1)])
    event = tf.Event(wall_time=1.5, step=3, summary=summary)
    return {"summary": str(summary), "event": str(event), "formatted": f"{summary}"}


def graph_def_with_float_attrs(tf):
    tf.constant(0.1, name="c")
    tf.nn.leaky_relu(tf.constant([1.0], name="x"), alpha=0.3, name="relu")
    nodes = tf.get_default_graph().as_graph_def().node
    return {"nodes": [str(n) for n in nodes]}


def write_graph_as_text(tf):
    tf.constant(0.1, name="c")
    tf.nn.leaky_relu(tf.constant([1.0], name="x"), alpha=0.3, name="relu")
    directory = tempfile.mkdtemp()
    path = tf.train.write_graph(tf.get_default_graph().as_graph_def(), directory, "g.pbtxt")
    with open(os.path.join(directory, "g.pbtxt")) as f:
        text = f.read()
    # The versions block names each runtime's own producer version.
    lines = [
        line for line in text.splitlines() if "versions" not in line and "producer" not in line
    ]
    return {"lines": lines, "name": os.path.basename(path)}


def int64_list_from_bools(tf):
    ints = tf.train.Int64List(value=[True, np.bool_(False), 3, np.int64(4)])
    feature = tf.train.Feature(int64_list=tf.train.Int64List(value=[np.bool_(True)]))
    return {
        "values": list(ints.value),
        "str": str(ints),
        "serialized": feature.SerializeToString().hex(),
    }


def int64_list_refuses_floats(tf):
    try:
        tf.train.Int64List(value=[2.0])
    except TypeError:
        return {"error": "TypeError"}
    return {"error": None}


CASES = {
    f.__name__: f
    for f in (
        float_list_and_example,
        non_finite_floats,
        summary_and_event,
        graph_def_with_float_attrs,
        write_graph_as_text,
        int64_list_from_bools,
        int64_list_refuses_floats,
    )
}
