"""Behaviours a DCGAN program (deep convolutional GAN on MNIST-shaped images, checkpoints and
summaries) and a handwriting-generation RNN (an LSTM mixture density network: its training
checkpoints, MetaGraphs and sampling) showed apart on tfcluster. Each case is `fn(tf) -> dict
of plain values`, run on TF 1.15 by record_gan_programs.py and on tfcluster by
tests/unit/test_gan_program_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import hashlib

import numpy as np

CASES = {}


def _case(fn):
    CASES[fn.__name__] = fn
    return fn


def _digest(values):
    """sha256 of the float32 bytes, with the count and the first values (to see what differs)."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    return {
        "sha256": hashlib.sha256(values.tobytes()).hexdigest(),
        "size": int(values.size),
        "head": [float(v) for v in values.ravel()[:4]],
    }


@_case
def large_normal_draws(tf):
    """Weights of a generator's projection (1034 x 6272, as the GAN's) and two smaller shapes,
    drawn by random_normal, truncated_normal and their initializers: TF's Box-Muller calls
    glibc's logf and sincosf for every value, which are not correctly rounded."""
    tf.reset_default_graph()
    tf.set_random_seed(1234)
    shapes = {"projection": [1034, 6272], "dense": [64, 6272], "square": [700, 700]}
    fetches = {}
    for name, shape in shapes.items():
        fetches[name + "_normal"] = tf.random_normal(shape, seed=7)
        fetches[name + "_scaled_normal"] = tf.random_normal(shape, stddev=0.02, seed=8)
        fetches[name + "_truncated"] = tf.truncated_normal(shape, stddev=0.02, seed=9)
    init = tf.random_normal_initializer(stddev=0.02, seed=3)
    weights = tf.get_variable("w", [1034, 2048], initializer=init)
    fetches["initializer"] = weights.initialized_value()
    with tf.Session() as sess:
        values = sess.run(fetches)
    return {name: _digest(v) for name, v in values.items()}


def _class_of(node):
    return [s.decode() for s in node.attr["_class"].list.s] if "_class" in node.attr else None


@_case
def summary_writer_graph_of_a_training_step(tf):
    """The GraphDef a FileWriter writes (as_graph_def(add_shapes=True)) of a step whose variable
    feeds two products: its gradient's terms summed by AddN colocated with the first term's op
    (per device, devices sorted, when the terms were colocated with their forward ops on two
    devices); no `_output_shapes` on ops without outputs (the Saver's SaveV2, a NoOp); an image
    summary's bad_color as its OpDef's default (int_val)."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    w = tf.Variable(tf.ones([3, 2]), name="w")
    with tf.device("/job:worker/task:1"):
        h = tf.matmul(x, w)
    y = tf.reduce_sum(h * h) + tf.reduce_sum(tf.matmul(x, w, name="again"))
    with tf.device("/job:worker/task:0"):
        tf.gradients(y, [w, x])
    tf.gradients(y, [w], colocate_gradients_with_ops=True)
    tf.summary.image("G", tf.reshape(x, [1, 4, 3, 1]))
    tf.train.Saver()
    tf.no_op(name="nothing")
    graph_def = tf.get_default_graph().as_graph_def(add_shapes=True)
    out = {"add_n": [], "without_output_shapes": []}
    for node in graph_def.node:
        if node.op == "AddN":
            out["add_n"].append([node.name, list(node.input), node.device, _class_of(node)])
        if "_output_shapes" not in node.attr:
            out["without_output_shapes"].append([node.name, node.op])
        if node.op == "ImageSummary":
            bad = node.attr["bad_color"].tensor
            out["bad_color"] = [list(bad.int_val), bad.tensor_content.hex()]
    return out


def _shape(t):
    return None if t.shape.ndims is None else t.shape.as_list()


@_case
def gradient_shapes_from_evaluated_shape_arithmetic(tf):
    """Static shapes of the ops gradients make of broadcasting and reductions (a leaky ReLU's
    Maximum, a bias add, moments' means): TF's shape inference evaluates BroadcastGradientArgs
    of two known shapes and (axes + rank) % rank, so the Sums and a mean gradient's
    DynamicStitch get known shapes, while tf.get_static_value still knows none of them."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    b = tf.placeholder(tf.float32, [3], name="b")
    row = tf.placeholder(tf.float32, [1, 3], name="row")
    leaky = tf.maximum(x, 0.2 * x)
    mean, variance = tf.nn.moments(x + b, axes=[0])
    same_ones = row * tf.ones([1, 3])
    loss = (
        tf.reduce_sum(leaky)
        + tf.reduce_sum(mean)
        + tf.reduce_sum(variance)
        + tf.reduce_sum(same_ones + row)
        + tf.reduce_mean(x * row, axis=-1)[0]
    )
    tf.gradients(loss, [x, b, row])
    graph = tf.get_default_graph()
    shapes = {}
    static = {}
    for op in graph.get_operations():
        if not op.name.startswith("gradients/"):
            continue
        if op.type in ("Sum", "DynamicStitch", "FloorMod", "Reshape", "BroadcastGradientArgs"):
            shapes[op.name] = [_shape(t) for t in op.outputs]
        if op.type in ("BroadcastGradientArgs", "FloorMod", "DynamicStitch"):
            static[op.name] = [
                None if tf.get_static_value(t) is None else tf.get_static_value(t).tolist()
                for t in op.outputs
            ]
    return {"shapes": shapes, "static_values": static}


@_case
def modes_of_files_a_program_writes(tf):
    """Permissions of what a training program writes (a Saver's checkpoint files and state
    file, write_graph, export_meta_graph, a FileWriter's events, a SavedModel) under umask 022
    and 027: TF creates them 0666 less the umask, readable by others under 022."""
    import os
    import stat
    import tempfile

    out = {}
    for umask in (0o022, 0o027):
        tf.reset_default_graph()
        v = tf.Variable([1.0, 2.0], name="v")
        saver = tf.train.Saver()
        old = os.umask(umask)
        try:
            with tempfile.TemporaryDirectory() as root:
                with tf.Session() as sess:
                    sess.run(tf.global_variables_initializer())
                    saver.save(sess, os.path.join(root, "ckpt", "model"), global_step=3)
                    tf.train.write_graph(sess.graph, os.path.join(root, "graphs"), "g.pb", False)
                    tf.train.export_meta_graph(os.path.join(root, "graphs", "m.meta"))
                    writer = tf.summary.FileWriter(os.path.join(root, "logs"), sess.graph)
                    writer.close()
                    builder = tf.saved_model.builder.SavedModelBuilder(os.path.join(root, "sm"))
                    builder.add_meta_graph_and_variables(sess, ["serve"])
                    builder.save()
                modes = {}
                for directory, _, files in os.walk(root):
                    for name in files:
                        path = os.path.join(directory, name)
                        key = os.path.relpath(path, root)
                        if name.startswith("events.out.tfevents"):
                            key = os.path.join(os.path.dirname(key), "events")
                        modes[key] = oct(stat.S_IMODE(os.stat(path).st_mode))
        finally:
            os.umask(old)
        out[oct(umask)] = modes
    del v
    return out


@_case
def assigned_values_and_comparisons_in_the_graph(tf):
    """What a MetaGraph holds of `sess.run(tf.assign(lr, value))` in an epoch loop and of a max
    reduction's gradient: the assigned Python value is a Const named after Assign's input
    ('Assign/value'); Equal and NotEqual carry incompatible_shape_error; the gradient's Reshapes
    of a reduced shape (a DynamicStitch of known pieces) have known static shapes."""
    tf.reset_default_graph()
    lr = tf.Variable(0.0, trainable=False)
    assigns = [tf.assign(lr, 0.5 * 0.95**e) for e in range(2)]
    x = tf.placeholder(tf.float32, [160, 5], name="x")
    kept = tf.reduce_max(x, 1, keep_dims=True)
    flat = tf.reduce_max(x, axis=[0, 1])
    last = tf.reduce_min(x, -1)
    tf.gradients(tf.reduce_sum(kept) + flat + tf.reduce_sum(last), x)
    same = tf.equal(x, 1.0)
    other = tf.not_equal(x, 1.0)
    graph = tf.get_default_graph()
    reshapes = {
        op.name: [None if t.shape.ndims is None else t.shape.as_list() for t in op.outputs]
        for op in graph.get_operations()
        if op.type == "Reshape" and op.name.startswith("gradients/")
    }
    return {
        "assigned_values": [a.op.inputs[1].name for a in assigns],
        "assign_sub_value": tf.assign_sub(lr, 1.0).op.inputs[1].name,
        "method_value": lr.assign(4.0).op.inputs[1].name,
        "tensor_value": tf.assign(lr, tf.constant(3.0)).op.inputs[1].name,
        "comparison_attrs": [sorted(same.op.node_def.attr), sorted(other.op.node_def.attr)],
        "incompatible_shape_error": same.op.get_attr("incompatible_shape_error"),
        "gradient_reshapes": reshapes,
    }
