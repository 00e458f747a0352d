"""Behaviours the TF1 notebooks of a machine-learning book (graphs, gradients of a scalar
loop, estimators) showed apart on tfcluster. Each case is `fn(tf) -> dict of plain values`,
run on TF 1.15 by record_notebook_sweep.py and on tfcluster by
tests/unit/test_notebook_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import shutil
import tempfile

import numpy as np


def _trig_inputs():
    """float32 values for sin/cos/tan: small and mid-sized arguments, values beyond Eigen's
    Payne-Hanek thresholds (25966 for sin, 18838 for cos), signed zeros, subnormals, inf and
    NaN; 1003 values, so the last three take TF's scalar path."""
    rng = np.random.RandomState(5)
    values = np.concatenate(
        [
            rng.uniform(-4, 4, 400),
            rng.uniform(-120, 120, 400),
            rng.uniform(1.8e4, 3e4, 60) * rng.choice([-1, 1], 60),
            10.0 ** rng.uniform(5, 38, 60) * rng.choice([-1, 1], 60),
            [0.0, -0.0, 1e-40, -3e-39, np.inf, -np.inf, np.nan, 1.5707964, 3.1415927],
            rng.uniform(-9, 9, 74),
        ]
    )
    return values.astype(np.float32)


def trig_float32_bits(tf):
    """float32 sin, cos and tan as TF 1.15's CPU kernels round them (Eigen's packet sin/cos,
    glibc's sinf/cosf/tanf on the scalar tail), over a whole tensor and value by value, and
    the gradients of a scalar loop of sin/cos terms (the notebook's `a*cos(z+i) + z*sin(b-i)`
    iterated 100 times)."""
    tf.reset_default_graph()
    x = _trig_inputs()
    ph = tf.placeholder(tf.float32, [])
    fns = {"sin": tf.sin, "cos": tf.cos, "tan": tf.tan}
    whole = {name: fn(tf.constant(x)) for name, fn in fns.items()}
    single = {name: fn(ph) for name, fn in fns.items()}
    a = tf.Variable(0.2, name="a")
    b = tf.Variable(0.3, name="b")
    z = tf.constant(0.0, name="z0")
    for i in range(100):
        z = a * tf.cos(z + i) + z * tf.sin(b - i)
    grads = tf.gradients(z, [a, b])
    out = {"inputs": x}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for name in fns:
            out[name] = sess.run(whole[name])
            out[name + "_single"] = np.array(
                [sess.run(single[name], {ph: v}) for v in x[::7]], np.float32
            )
        out["loop"] = np.array(sess.run([z, *grads]), np.float32)
    return out


def _model_fn(features, labels, mode, params):
    tf = params["tf"]
    logits = tf.layers.dense(features["x"], 3, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    predictions = tf.argmax(logits, 1)
    metrics = {
        "zeta": tf.metrics.mean(loss),
        "accuracy": tf.metrics.accuracy(labels, predictions),
        "Mixed/case": tf.metrics.mean(tf.reduce_sum(logits)),
        "beta": tf.metrics.mean(tf.reduce_max(logits)),
    }
    train = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_global_step()
    )
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train, eval_metric_ops=metrics)


def estimator_evaluate_metric_order(tf):
    """The order of Estimator.evaluate's result (a notebook prints the dict): TF sorts the
    metric names, `loss` among them, and puts `global_step` last; a canned DNNClassifier's
    metrics the same way."""
    tf.reset_default_graph()
    rng = np.random.RandomState(3)
    x = rng.randn(40, 4).astype(np.float32)
    y = rng.randint(0, 3, 40).astype(np.int32)
    result = {}
    model_dir = tempfile.mkdtemp()
    try:
        config = tf.estimator.RunConfig(tf_random_seed=1, model_dir=model_dir)
        est = tf.estimator.Estimator(_model_fn, config=config, params={"tf": tf})

        def input_fn():
            return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(10)

        est.train(input_fn, steps=2)
        result["custom"] = list(est.evaluate(input_fn))
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)
    model_dir = tempfile.mkdtemp()
    try:
        columns = [tf.feature_column.numeric_column("x", shape=[4])]
        for name, n_classes in (("dnn_3_classes", 3), ("dnn_binary", 2)):
            config = tf.estimator.RunConfig(tf_random_seed=1, model_dir=model_dir + name)
            clf = tf.estimator.DNNClassifier([5], columns, n_classes=n_classes, config=config)
            labels = y % n_classes
            fn = tf.estimator.inputs.numpy_input_fn({"x": x}, labels, shuffle=False)
            clf.train(fn, steps=2)
            result[name] = list(clf.evaluate(fn))
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)
    return result


def _outcome(fn):
    """(error class, message) of fn(), or ("ok", the graph the result went to)."""
    try:
        result = fn()
    except Exception as e:  # the class and TF's message are what is compared
        return [type(e).__name__, str(e)]
    return ["ok", result]


def tensors_of_another_graph(tf):
    """A notebook cell that fails leaves Python names bound to tensors of the previous graph
    after reset_default_graph(); later cells use them. Which ops TF builds in the inputs'
    graph, which fail (and their messages: the input against the first input), and the
    messages of eval()/run() whose default session runs another graph or is missing."""
    tf.reset_default_graph()
    old = tf.Graph()
    with old.as_default():
        logits = tf.placeholder(tf.float32, [None, 3], name="logits")
        labels = tf.placeholder(tf.int32, [None], name="y")
        init = tf.no_op(name="init")
    tf.reset_default_graph()

    def where(t):
        return "old" if t.graph is old else "default"

    out = {
        "in_top_k": _outcome(lambda: where(tf.nn.in_top_k(logits, labels, 1))),
        "softmax": _outcome(lambda: where(tf.nn.softmax(logits))),
        "argmax": _outcome(lambda: where(tf.argmax(logits, 1))),
        "add_python_number": _outcome(lambda: where(logits + 1.0)),
        "matmul_with_default_graph_tensor": _outcome(
            lambda: tf.matmul(logits, tf.ones([3, 2], name="ones"))
        ),
        "reduce_mean_axis": _outcome(lambda: where(tf.reduce_mean(logits, axis=0))),
    }
    with tf.Session() as sess:
        out["op_run_other_graph"] = _outcome(lambda: init.run())
        out["eval_other_graph"] = _outcome(lambda: logits.eval())
        out["explicit_session"] = _outcome(lambda: logits.eval(session=sess))
    out["op_run_no_session"] = _outcome(lambda: init.run())
    out["eval_no_session"] = _outcome(lambda: logits.eval())
    return out


CASES = {
    "trig_float32_bits": trig_float32_bits,
    "estimator_evaluate_metric_order": estimator_evaluate_metric_order,
    "tensors_of_another_graph": tensors_of_another_graph,
}
