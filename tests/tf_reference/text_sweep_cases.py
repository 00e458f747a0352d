"""Behaviours public text, graph and recommender TF1 programs (an Estimator knowledge-graph
model fed sparse labels by Dataset.from_generator, trained by train_and_evaluate) showed
apart on tfcluster. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_text_sweep.py and on tfcluster by tests/unit/test_text_sweep_behaviours.py. Python 3.7
code."""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile

import numpy as np


def _draw_after(tf, build):
    """A seeded draw made after `build()` in a fresh graph: its op seed is the op count
    there, so it shows whether the graph counted TF's ops."""
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        fetch = build()
        draw = tf.random_uniform([3])
        with tf.Session() as sess:
            values = sess.run([draw] + ([] if fetch is None else [fetch]))
    return values


def _sparse(tf):
    return tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])


def sparse_elements_count_tfs_ops(tf):
    """TF 1.15 boxes each SparseTensor leaf of a dataset element into one variant
    (SerializeSparse / SerializeManySparse going in, DeserializeSparse in get_next): seeded
    ops made after a pipeline with sparse elements draw TF's numbers, at graph level and in
    map functions taking sparse arguments."""

    def gen():
        yield ([[0], [2]], [1.0, 1.0], [4])

    def from_generator():
        ds = tf.data.Dataset.from_generator(
            gen, (tf.int64, tf.float32, tf.int64), ([None, 1], [None], [1])
        )
        ds = ds.map(lambda i, v, s: tf.SparseTensor(i, v, s))
        return tf.sparse.to_dense(ds.make_one_shot_iterator().get_next())

    def two_leaves():
        it = tf.data.Dataset.from_tensors((_sparse(tf), _sparse(tf))).make_one_shot_iterator()
        return tf.sparse.to_dense(it.get_next()[1])

    def optional_value():
        it = tf.data.Dataset.from_tensors(_sparse(tf)).make_one_shot_iterator()
        return tf.sparse.to_dense(tf.data.experimental.get_next_as_optional(it).get_value())

    def batched_slices():
        ds = tf.data.Dataset.from_tensor_slices(_sparse(tf)).batch(2)
        return tf.sparse.to_dense(ds.make_one_shot_iterator().get_next())

    def map_functions():
        ds = tf.data.Dataset.from_tensors(_sparse(tf))
        ds = ds.map(lambda s: (s, tf.random_uniform([2]) + tf.sparse.reduce_sum(s)))
        ds = ds.map(lambda s, r: (tf.random_uniform([2]), r))
        return ds.make_one_shot_iterator().get_next()

    out = {}
    for name, build in [
        ("from_generator", from_generator),
        ("two_leaves", two_leaves),
        ("optional_value", optional_value),
        ("batched_slices", batched_slices),
        ("map_functions", map_functions),
    ]:
        out[name] = _draw_after(tf, build)
    return out


def _tiny_estimator(tf, model_dir, **config):
    def input_fn():
        x = np.arange(10, dtype=np.float32).reshape(5, 2)
        y = np.array([0, 1, 0, 1, 1], np.int32)
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat(2).batch(2)

    def model_fn(features, labels, mode):
        logits = tf.layers.dense(features["x"], 2, kernel_initializer=tf.ones_initializer())
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        step = tf.train.get_or_create_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        metrics = {"acc": tf.metrics.accuracy(labels, tf.argmax(logits, 1))}
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, train_op=train_op, eval_metric_ops=metrics
        )

    run_config = tf.estimator.RunConfig(tf_random_seed=1, **config)
    return tf.estimator.Estimator(model_fn, model_dir=model_dir, config=run_config), input_fn


class _Messages(logging.Handler):
    """The INFO messages of the 'tensorflow' logger, the model folder and times masked."""

    def __init__(self, model_dir):
        logging.Handler.__init__(self, logging.INFO)
        self.model_dir = model_dir
        self.lines = []

    def emit(self, record):
        if record.levelno != logging.INFO:
            return
        text = record.getMessage().replace(self.model_dir, "MODEL_DIR")
        if text.startswith("Using config"):
            return  # the RunConfig's repr (objects, TF 2 fields)
        text = re.sub(r"\d{4}-\d\d-\d\d[T-]\d\d:\d\d:\d\dZ?", "TIME", text)
        self.lines.append(text)


def _logged(tf, fn):
    model_dir = tempfile.mkdtemp(prefix="text_sweep_")
    logger = logging.getLogger("tensorflow")
    handler = _Messages(model_dir)
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    try:
        result = fn(model_dir)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        shutil.rmtree(model_dir, ignore_errors=True)
    return handler.lines, result


def _plain(results):
    return {k: [type(v).__name__, v.item()] for k, v in sorted(results.items())}


def estimator_logs_as_tf(tf):
    """What Estimator.train / evaluate (to the input's end, and for 2 steps) and
    train_and_evaluate log: model_fn calls, the CheckpointSaverHook, restores, evaluation
    start/progress/end, the metrics dict as TF formats float32 values, the checkpoint_path
    summary, the coordinator and throttle notes; and evaluate's result types."""

    def train_then_evaluate(model_dir):
        est, input_fn = _tiny_estimator(tf, model_dir)
        est.train(input_fn, steps=3)
        whole = est.evaluate(input_fn)
        two = est.evaluate(input_fn, steps=2)
        return {"whole": _plain(whole), "two_steps": _plain(two)}

    def train_and_evaluate(model_dir):
        est, input_fn = _tiny_estimator(tf, model_dir, save_checkpoints_steps=2)
        train_spec = tf.estimator.TrainSpec(input_fn, max_steps=6)
        eval_spec = tf.estimator.EvalSpec(input_fn, steps=None, throttle_secs=1000)
        metrics, _ = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
        return _plain(metrics)

    lines, results = _logged(tf, train_then_evaluate)
    tae_lines, tae = _logged(tf, train_and_evaluate)
    return {
        "train_evaluate_log": lines,
        "results": results,
        "train_and_evaluate_log": tae_lines,
        "train_and_evaluate_metrics": tae,
    }


def estimator_graph_names(tf):
    """The (name, type) of every op an Estimator's training graph holds, in order, as
    written to graph.pbtxt: the hooks' read of the global step is `global_step/add`
    (AddV2) after TF's initialized_value cond."""

    def train(model_dir):
        est, input_fn = _tiny_estimator(tf, model_dir)
        est.train(input_fn, steps=1)
        graph_def = tf.GraphDef()
        from google.protobuf import text_format

        with open(os.path.join(model_dir, "graph.pbtxt")) as f:
            text_format.Merge(f.read(), graph_def)
        return [[n.name, n.op] for n in graph_def.node if n.name.startswith("global_step")]

    _, names = _logged(tf, train)
    return {"global_step_ops": names}


def canned_heads_summarize_the_mean_loss(tf):
    """LinearClassifier / DNNClassifier / DNNLinearCombinedClassifier in TRAIN mode: TF
    1.15's v1 head (SUM reduction) divides the loss by the summed example weights
    (`<scope>/head/truediv`, which tensorflow/models' wide_deep logs by name as
    average_loss) and summarizes it as 'average_loss' beside 'loss'; the linear model's
    first mean loss (zero weights) is log 2."""
    out = {}
    col = [tf.feature_column.numeric_column("x")]
    for kind in ("wide", "deep", "both"):
        if kind == "wide":
            est = tf.estimator.LinearClassifier(col)
        elif kind == "deep":
            est = tf.estimator.DNNClassifier([3], col)
        else:
            est = tf.estimator.DNNLinearCombinedClassifier(
                linear_feature_columns=col, dnn_feature_columns=col, dnn_hidden_units=[3]
            )
        with tf.Graph().as_default() as g:
            tf.set_random_seed(1)
            features = {"x": tf.constant([[1.0], [2.0], [0.5]])}
            labels = tf.constant([[0], [1], [1]])
            tf.train.get_or_create_global_step()
            est.model_fn(features, labels, tf.estimator.ModeKeys.TRAIN, est.config)
            found = [
                o.name
                for o in g.get_operations()
                if o.name.endswith("head/truediv") or o.name.endswith("head/weighted_loss/Sum")
            ]
            tags = [o.name for o in g.get_collection(tf.GraphKeys.SUMMARIES)]
            entry = {"ops": found, "summaries": tags}
            if kind == "wide":
                with tf.Session() as sess:
                    sess.run(tf.global_variables_initializer())
                    entry["mean_loss"] = sess.run(g.get_tensor_by_name(found[-1] + ":0"))
            out[kind] = entry
    return out


CASES = {
    "canned_heads_summarize_the_mean_loss": canned_heads_summarize_the_mean_loss,
    "sparse_elements_count_tfs_ops": sparse_elements_count_tfs_ops,
    "estimator_logs_as_tf": estimator_logs_as_tf,
    "estimator_graph_names": estimator_graph_names,
}
