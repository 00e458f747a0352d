"""Records TF 1.15 graphs that use resource variables, for tests/unit/test_resource_graph_import.py:
a tf.keras Sequential model (MetaGraph + checkpoint, and a SavedModel written with simple_save
from the Keras session) and a `tf.get_variable(use_resource=True)` model trained with Adam and
with Momentum (export_meta_graph + Saver), each with the losses and values TF computes when it
keeps training after the save. Also loads, in TF, the graph tfcluster wrote with the resource
raw ops (data/resource_graphs/tfcluster/, made first by
`PYTHONPATH=server python tests/tf_reference/write_resource_graph_samples.py`).

Run under TF 1.15 (not from /tmp):

    cd tests/tf_reference && /tmp/tf115/bin/python record_resource_graphs.py
"""

import os
import shutil

import numpy as np
import tensorflow as tf
from recorder import DATA_DIR, Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_resource_graphs.py records TensorFlow 1.15")

OUT = os.path.join(DATA_DIR, "resource_graphs", "tf")
FROM_TFCLUSTER = os.path.join(DATA_DIR, "resource_graphs", "tfcluster")
STEPS_AFTER = 3


def data(seed):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, size=(8, 3)).astype(np.float32)
    y = (x @ np.array([[0.5], [-1.0], [2.0]], np.float32) + 0.25).astype(np.float32)
    return x, y


def keras_model(rec):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(3)
    x, y = data(0)
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(4, activation="relu", input_shape=(3,), name="hidden"),
            tf.keras.layers.Dense(1, name="out"),
        ]
    )
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1, momentum=0.9), loss="mse")
    for _ in range(3):
        model.train_on_batch(x, y)
    sess = tf.keras.backend.get_session()
    train_op = model.train_function.updates_op
    graph = sess.graph
    graph.add_to_collection("train_op", train_op)
    graph.add_to_collection("loss", model.total_loss)
    names = {
        "input": model.inputs[0].name,
        "target": model.train_function.inputs[1].name,
        "output": model.outputs[0].name,
        "loss": model.total_loss.name,
        "train_op": train_op.name,
    }
    feeds_extra = {}
    for t in model.train_function.inputs[2:]:
        if "sample_weights" in t.name:
            feeds_extra[t.name] = np.ones([8], np.float32).tolist()
    names["sample_weights"] = sorted(feeds_extra)
    prefix = os.path.join(OUT, "keras", "model")
    os.makedirs(os.path.dirname(prefix), exist_ok=True)
    saver = tf.train.Saver()
    saver.save(sess, prefix)
    sm_dir = os.path.join(OUT, "keras_saved_model")
    shutil.rmtree(sm_dir, ignore_errors=True)
    tf.saved_model.simple_save(
        sess, sm_dir, inputs={"x": model.inputs[0]}, outputs={"y": model.outputs[0]}
    )
    values = {v.op.name: sess.run(v) for v in tf.global_variables()}
    prediction = sess.run(model.outputs[0], {model.inputs[0]: x})
    feeds = {model.inputs[0]: x, model.train_function.inputs[1]: y}
    feeds.update({graph.get_tensor_by_name(n): np.ones([8], np.float32) for n in feeds_extra})
    losses = []
    for _ in range(STEPS_AFTER):
        loss, _ = sess.run([model.total_loss, train_op], feeds)
        losses.append(loss)
    after = {v.op.name: sess.run(v) for v in tf.global_variables()}
    ops = sorted({op.type for op in graph.get_operations()})
    rec.add(
        "keras",
        x=x,
        y=y,
        names=names,
        values=values,
        prediction=prediction,
        losses=losses,
        after=after,
        op_types=ops,
        variables=[v.name for v in tf.global_variables()],
        var_op_types=sorted({v.op.type for v in tf.global_variables()}),
    )


def get_variable_model(rec, optimizer_name):
    tf.reset_default_graph()
    tf.set_random_seed(5)
    x, y = data(1)
    xs = tf.placeholder(tf.float32, [None, 3], name="x")
    ys = tf.placeholder(tf.float32, [None, 1], name="y")
    with tf.variable_scope("model", use_resource=True):
        w = tf.get_variable("w", [3, 1], initializer=tf.glorot_uniform_initializer(seed=7))
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        emb = tf.get_variable("emb", [5, 1], initializer=tf.random_normal_initializer(seed=9))
    ids = tf.constant([0, 2, 2, 4, 1, 0, 3, 4], name="ids")
    pred = tf.matmul(xs, w) + b + tf.nn.embedding_lookup(emb, ids)
    loss = tf.reduce_mean(tf.square(pred - ys), name="loss")
    step = tf.train.get_or_create_global_step()
    if optimizer_name == "adam":
        opt = tf.train.AdamOptimizer(0.05)
    else:
        opt = tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True)
    train_op = opt.minimize(loss, global_step=step, name="train")
    tf.add_to_collection("train_op", train_op)
    saver = tf.train.Saver()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    feeds = {xs: x, ys: y}
    for _ in range(3):
        sess.run(train_op, feeds)
    prefix = os.path.join(OUT, "get_variable_" + optimizer_name, "model")
    os.makedirs(os.path.dirname(prefix), exist_ok=True)
    saver.save(sess, prefix, global_step=step)
    values = {v.op.name: sess.run(v) for v in tf.global_variables()}
    prediction = sess.run(pred, feeds)
    losses = []
    for _ in range(STEPS_AFTER):
        value, _ = sess.run([loss, train_op], feeds)
        losses.append(value)
    after = {v.op.name: sess.run(v) for v in tf.global_variables()}
    rec.add(
        "get_variable_" + optimizer_name,
        x=x,
        y=y,
        checkpoint=os.path.basename(prefix) + "-3",
        values=values,
        prediction=prediction,
        losses=losses,
        after=after,
        op_types=sorted({op.type for op in tf.get_default_graph().get_operations()}),
        variables=[v.name for v in tf.global_variables()],
        var_op_types=sorted({v.op.type for v in tf.global_variables()}),
    )
    sess.close()


def load_tfcluster_graph(rec):
    """The MetaGraph tfcluster wrote with VarHandleOp/AssignVariableOp/ReadVariableOp and a
    ResourceApplyGradientDescent step: TF imports it, initialises, trains and reads."""
    path = os.path.join(FROM_TFCLUSTER, "raw_resource_ops.meta")
    if not os.path.exists(path):
        print("no tfcluster graph to load:", path)
        return
    tf.reset_default_graph()
    with tf.Session() as sess:
        tf.train.import_meta_graph(path)
        g = tf.get_default_graph()
        sess.run(g.get_operation_by_name("init"))
        before = sess.run("read:0")
        for _ in range(2):
            sess.run("train")
        after = sess.run("read:0")
        shape = sess.run("shape:0")
        initialized = sess.run("is_initialized:0")
    rec.add("tfcluster_graph_in_tf", before=before, after=after, shape=shape,
            initialized=initialized)


rec = Recorder("resource_graphs")
keras_model(rec)
get_variable_model(rec, "adam")
get_variable_model(rec, "momentum")
load_tfcluster_graph(rec)
rec.save()
