"""Records what TF 1.15's tf.gradients makes through v1 control flow imported from a GraphDef
(import_graph_def restores no CondContext/WhileContext): the ops (type, name, inputs, in
creation order) and values of gradients through Switch/Merge conds, and the error of
gradients through a while loop, into data/v1_control_flow_gradients.json; the forward
graphs into data/v1_control_flow_gradients/<case>.pb.

    cd tests/tf_reference && /tmp/tf115/bin/python record_v1_control_flow_gradients.py

Python 3.7 code (TF 1.15 builds v1 control flow natively).
"""

import json
import os

import tensorflow as tf

assert tf.__version__.startswith("1.15"), tf.__version__
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "v1_control_flow_gradients")
X = [0.1, -0.2, 0.3]


def cond_of_a_placeholder(x, p):
    y = tf.cond(p, lambda: x * x, lambda: tf.sin(x))
    return tf.identity(y, name="y")


def nested_cond(x, p):
    inner = lambda: tf.cond(p, lambda: tf.tanh(x), lambda: x * 3.0)  # noqa: E731
    y = tf.cond(p, inner, lambda: tf.exp(x))
    return tf.identity(y, name="y")


def cond_of_two_outputs(x, p):
    a, b = tf.cond(p, lambda: (x * x, tf.sin(x)), lambda: (tf.cos(x), x + 1.0))
    return tf.identity(a * b, name="y")


def while_loop(x, p):
    _, s = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * x), [0, x])
    return tf.identity(s, name="y")


def value_inside_a_loop_body(x, p):
    tf.while_loop(
        lambda i, s: i < 3, lambda i, s: (i + 1, tf.identity(s * x, name="inside")), [0, x]
    )
    return None


CASES = [
    cond_of_a_placeholder,
    nested_cond,
    cond_of_two_outputs,
    while_loop,
    value_inside_a_loop_body,
]


def record(build):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        build(x, p)
    name = build.__name__
    with open(os.path.join(OUT, name + ".pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    g2 = tf.Graph()
    out = {}
    with g2.as_default():
        tf.import_graph_def(g.as_graph_def(), name="")
        first = len(g2.get_operations())
        y_name = "y:0" if name != "value_inside_a_loop_body" else "while/inside:0"
        try:
            grads = tf.gradients(g2.get_tensor_by_name(y_name), g2.get_tensor_by_name("x:0"))
        except Exception as e:
            out["error"] = type(e).__name__
            out["message"] = str(e)
        made = g2.get_operations()[first:]
        out["y"] = y_name
        out["ops"] = [[o.type, o.name, [t.name for t in o.inputs]] for o in made]
        if "error" not in out:
            out["grad_is_none"] = grads[0] is None
        if "error" not in out and grads[0] is not None:
            with tf.Session() as sess:
                out["grads"] = {
                    str(v): sess.run(grads, {"x:0": X, "p:0": v})[0].tolist() for v in (True, False)
                }
    return out


def main():
    if not os.path.isdir(OUT):
        os.makedirs(OUT)
    results = {"tensorflow": tf.__version__, "x": X, "cases": {}}
    for build in CASES:
        results["cases"][build.__name__] = record(build)
    with open(os.path.join(HERE, "data", "v1_control_flow_gradients.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
