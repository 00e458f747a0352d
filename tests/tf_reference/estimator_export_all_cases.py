"""An Estimator's SavedModel with a MetaGraph per mode, as TF 1.15 writes it
(experimental_export_all_saved_models, and export_saved_model with experimental_mode): for
each MetaGraph its tags, its signatures (method, input and output keys), whether the
train op is in the `saved_model_train_op` collection and which default attrs its nodes
keep; the eval and train graphs loaded back by tf.saved_model.loader and run (loss and
metric values on fixed inputs); and the errors of an empty receiver map. Written once for
TF 1.15 (record_estimator_export_all.py) and tfcluster
(tests/unit/test_estimator_export_all.py); kept runnable on Python 3.7."""

import os
import shutil
import tempfile

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import error, registrar
except ImportError:
    from case_tools import error, registrar

CASES = {}
case = registrar(CASES, own_graph=True, graph_seed=7)

_X = np.array([[0.5, -1.0], [1.5, 2.0], [-0.25, 0.75]], np.float32)
_Y = np.array([[1.0], [0.0], [2.0]], np.float32)


def _model_fn(tf):
    def model_fn(features, labels, mode):
        dense = tf.layers.Dense(
            1,
            kernel_initializer=tf.constant_initializer([[0.5], [-0.25]]),
            bias_initializer=tf.constant_initializer(0.1),
        )
        out = dense(features["x"])
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"y": out})
        loss = tf.losses.mean_squared_error(labels, out)
        metrics = {"mae": tf.metrics.mean_absolute_error(labels, out)}
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_global_step()
        )
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, train_op=train_op, eval_metric_ops=metrics, predictions={"y": out}
        )

    return model_fn


def _receivers(tf):
    def supervised():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        return tf.estimator.experimental.build_raw_supervised_input_receiver_fn({"x": x}, y)()

    def serving():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        return tf.estimator.export.build_raw_serving_input_receiver_fn({"x": x})()

    return supervised, serving


def _trained(tf, model_dir):
    est = tf.estimator.Estimator(_model_fn(tf), model_dir=model_dir)
    input_fn = tf.estimator.inputs.numpy_input_fn({"x": _X}, _Y, batch_size=3, shuffle=False)
    est.train(input_fn, steps=2)
    return est


def _meta_graphs(export_dir):
    try:
        from tensorflow.core.protobuf import saved_model_pb2
    except ImportError:
        from tfcluster.protos import saved_model_pb2
    model = saved_model_pb2.SavedModel()
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        model.ParseFromString(f.read())
    out = []
    for mg in model.meta_graphs:
        signatures = {
            key: {
                "method": sig.method_name,
                "inputs": sorted(sig.inputs),
                "outputs": sorted(sig.outputs),
            }
            for key, sig in mg.signature_def.items()
        }
        matmul = [n for n in mg.graph_def.node if n.op == "MatMul"]
        out.append(
            {
                "tags": list(mg.meta_info_def.tags),
                "signatures": signatures,
                "train_op_collection": "saved_model_train_op" in mg.collection_def,
                "stripped_default_attrs": mg.meta_info_def.stripped_default_attrs,
                "matmul_attrs": sorted(matmul[0].attr) if matmul else None,
            }
        )
    return out


def _run_signature(tf, export_dir, tag, key, feeds):
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, [tag], export_dir)
        sig = mg.signature_def[key]
        feed = {sig.inputs[k].name: v for k, v in feeds.items()}
        names = sorted(k for k in sig.outputs if not k.endswith("update_op"))
        updates = [sig.outputs[k].name for k in sorted(sig.outputs) if k.endswith("update_op")]
        if updates:
            sess.run(updates, feed)
        values = sess.run([sig.outputs[k].name for k in names], feed)
        return {k: np.asarray(v).tolist() for k, v in zip(names, values)}


def _in_temp_dirs(fn):
    def run(tf):
        base = tempfile.mkdtemp()
        try:
            return fn(tf, os.path.join(base, "model"), os.path.join(base, "export"))
        finally:
            shutil.rmtree(base, ignore_errors=True)

    run.__name__ = fn.__name__
    return run


@case
@_in_temp_dirs
def all_three_modes(tf, model_dir, export_base):
    est = _trained(tf, model_dir)
    supervised, serving = _receivers(tf)
    modes = tf.estimator.ModeKeys
    export_dir = est.experimental_export_all_saved_models(
        export_base, {modes.TRAIN: supervised, modes.EVAL: supervised, modes.PREDICT: serving}
    )
    export_dir = export_dir.decode() if isinstance(export_dir, bytes) else export_dir
    feeds = {"x": _X, "label": _Y}
    return {
        "meta_graphs": _meta_graphs(export_dir),
        "eval": _run_signature(tf, export_dir, "eval", "eval", feeds),
        "serve": _run_signature(tf, export_dir, "serve", "serving_default", {"x": _X}),
        "dir_is_timestamp": os.path.basename(export_dir).isdigit(),
    }


@case
@_in_temp_dirs
def eval_and_predict_only(tf, model_dir, export_base):
    est = _trained(tf, model_dir)
    supervised, serving = _receivers(tf)
    modes = tf.estimator.ModeKeys
    export_dir = est.experimental_export_all_saved_models(
        export_base, {modes.EVAL: supervised, modes.PREDICT: serving}
    )
    export_dir = export_dir.decode() if isinstance(export_dir, bytes) else export_dir
    return {"meta_graphs": _meta_graphs(export_dir)}


@case
@_in_temp_dirs
def train_graph_by_experimental_mode(tf, model_dir, export_base):
    est = _trained(tf, model_dir)
    supervised, _ = _receivers(tf)
    export_dir = est.export_saved_model(
        export_base, supervised, experimental_mode=tf.estimator.ModeKeys.TRAIN
    )
    export_dir = export_dir.decode() if isinstance(export_dir, bytes) else export_dir
    return {
        "meta_graphs": _meta_graphs(export_dir),
        "train": _run_signature(tf, export_dir, "train", "train", {"x": _X, "label": _Y}),
    }


@case
@_in_temp_dirs
def no_receivers_is_refused(tf, model_dir, export_base):
    est = _trained(tf, model_dir)
    untrained = tf.estimator.Estimator(_model_fn(tf), model_dir=model_dir + "_none")
    no_model = error(
        lambda: untrained.experimental_export_all_saved_models(
            export_base, {"infer": _receivers(tf)[1]}
        )
    )
    no_model["message"] = no_model["message"].replace(model_dir, "<model_dir>")
    return {
        "empty": error(lambda: est.experimental_export_all_saved_models(export_base, {})),
        "no_model": no_model,
    }
