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
from resource_graph_cases import (
    custom_gradient_creating_a_resource_variable,
    data,
    resource_variable_api,
)
from resource_graph_cases import get_variable_model as get_variable_model_program

if not tf.__version__.startswith("1."):
    raise SystemExit("record_resource_graphs.py records TensorFlow 1.15")

OUT = os.path.join(DATA_DIR, "resource_graphs", "tf")
FROM_TFCLUSTER = os.path.join(DATA_DIR, "resource_graphs", "tfcluster")
STEPS_AFTER = 3


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
    x, y = data(1)
    xs, ys, pred, loss, train_op, step = get_variable_model_program(tf, optimizer_name)
    tf.add_to_collection("train_op", train_op)
    saver = tf.train.Saver()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    initial = {v.op.name: sess.run(v) for v in tf.global_variables()}
    feeds = {xs: x, ys: y}
    first_losses = [sess.run([loss, train_op], feeds)[0] for _ in range(3)]
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
        initial=initial,
        first_losses=first_losses,
        values=values,
        prediction=prediction,
        losses=losses,
        after=after,
        op_types=sorted({op.type for op in tf.get_default_graph().get_operations()}),
        op_names=sorted(op.name for op in tf.get_default_graph().get_operations()),
        variables=[v.name for v in tf.global_variables()],
        var_op_types=sorted({v.op.type for v in tf.global_variables()}),
    )
    sess.close()


def canned_estimator(rec):
    """A DNNRegressor (its layers make resource variables in TF 1.15) trained 5 steps and
    exported as a SavedModel (default attrs stripped, as estimators write them)."""
    import tempfile

    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(16, 2)
    y = (x[:, :1] * 2 - x[:, 1:]).astype(np.float32)
    columns = [tf.feature_column.numeric_column("x", shape=[2])]
    model_dir = tempfile.mkdtemp()
    config = tf.estimator.RunConfig(tf_random_seed=1)
    est = tf.estimator.DNNRegressor([4], columns, model_dir=model_dir, config=config)
    train_input = tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"x": x}, y, batch_size=16, shuffle=False, num_epochs=None
    )
    est.train(train_input, steps=5)
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 2], name="x")}
    )
    exported = est.export_saved_model(tempfile.mkdtemp(), receiver).decode()
    target = os.path.join(OUT, "dnn_regressor_saved_model")
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(exported, target)
    predict_input = tf.compat.v1.estimator.inputs.numpy_input_fn({"x": x}, shuffle=False)
    predictions = np.array([p["predictions"] for p in est.predict(predict_input)])
    shutil.rmtree(model_dir, ignore_errors=True)
    rec.add("dnn_regressor_saved_model", x=x, predictions=predictions)


def load_tfcluster_graphs(rec):
    """What tfcluster wrote (write_resource_graph_samples.py): a MetaGraph of the resource raw
    ops (VarHandleOp, AssignVariableOp, ReadVariableOp, ResourceApplyGradientDescent), which
    TF imports, initialises, trains and reads; and the get_variable(use_resource=True) program
    tfcluster trained 3 steps and saved, which TF restores and trains on."""
    path = os.path.join(FROM_TFCLUSTER, "raw_resource_ops.meta")
    if not os.path.exists(path):
        raise SystemExit("run write_resource_graph_samples.py with tfcluster first: " + path)
    tf.reset_default_graph()
    with tf.Session() as sess:
        tf.train.import_meta_graph(path)
        sess.run("init")
        before = sess.run("read:0")
        for _ in range(2):
            sess.run("train")
        after = sess.run("read:0")
        shape = sess.run("shape:0")
        initialized = sess.run("is_initialized:0")
    rec.add(
        "tfcluster_raw_ops_in_tf",
        before=before,
        after=after,
        shape=shape,
        initialized=initialized,
    )
    for optimizer_name in ("adam", "momentum"):
        prefix = os.path.join(FROM_TFCLUSTER, "get_variable_" + optimizer_name, "model-3")
        tf.reset_default_graph()
        x, y = data(1)
        with tf.Session() as sess:
            saver = tf.train.import_meta_graph(prefix + ".meta")
            saver.restore(sess, prefix)
            var_op_types = sorted({v.op.type for v in tf.global_variables()})
            values = {v.op.name: sess.run(v) for v in tf.global_variables()}
            train_op = tf.get_collection("train_op")[0]
            feeds = {"x:0": x, "y:0": y}
            losses = [sess.run(["loss:0", train_op], feeds)[0] for _ in range(STEPS_AFTER)]
            after = {v.op.name: sess.run(v) for v in tf.global_variables()}
        rec.add(
            "tfcluster_get_variable_" + optimizer_name + "_in_tf",
            var_op_types=var_op_types,
            values=values,
            losses=losses,
            after=after,
        )


rec = Recorder("resource_graphs")
keras_model(rec)
get_variable_model(rec, "adam")
get_variable_model(rec, "momentum")
canned_estimator(rec)
load_tfcluster_graphs(rec)
rec.add("resource_variable_api", **resource_variable_api(tf))
rec.add("custom_gradient_variable", **custom_gradient_creating_a_resource_variable(tf))
rec.save()
