"""What TF 1.15 logs while an Estimator exports a SavedModel and while a SavedModelBuilder
writes one: the signature report ("Signatures INCLUDED in export for Predict: ['predict']",
the excluded ones and why, "Export includes no default signature!"), "Assets added to graph.",
"No assets to write." and "SavedModel written to: ...". Each case is `fn(tf, model_dir) ->
plain values`, run on TF 1.15 by record_export_log.py and on tfcluster by
tests/unit/test_export_log.py. Python 3.7 code."""

from __future__ import annotations

import logging
import os
import re

import numpy as np


class _Logged(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        self.lines.append(f"{record.levelname}:{record.getMessage()}")


def _logged(fn, model_dir):
    handler = _Logged()
    logger = logging.getLogger("tensorflow")
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    try:
        result = fn()
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    # (tf.compat.v1, which the recorder runs, announces no deprecated names.)
    lines = [
        line.replace(model_dir, "MODEL_DIR") for line in handler.lines if "deprecat" not in line
    ]
    return result, lines


def _trained_regressor(tf, model_dir):
    columns = [tf.feature_column.numeric_column("x"), tf.feature_column.numeric_column("k")]
    est = tf.estimator.LinearRegressor(
        columns, model_dir=model_dir, config=tf.estimator.RunConfig(tf_random_seed=1)
    )

    def input_fn():
        features = {"x": np.array([1.0, 2.0, 3.0], np.float32), "k": np.zeros(3, np.float32)}
        return tf.data.Dataset.from_tensors((features, np.array([2.0, 4.0, 6.0], np.float32)))

    est.train(input_fn, steps=1)
    return est, columns


def _export_lines(lines):
    start = next(i for i, line in enumerate(lines) if "Signatures INCLUDED" in line)
    kept = []
    for line in lines[start:]:
        kept.append(re.sub(r"\d{10}", "TIMESTAMP", line))  # export/temp-b'<timestamp>'/...
    return kept


def export_raw_features(tf, model_dir):
    """A receiver of raw float placeholders: the classify/regress signatures need one string
    input, so they are excluded and no default signature is left."""
    est, _ = _trained_regressor(tf, model_dir)

    def serving_input_fn():
        receivers = {
            "x": tf.placeholder(tf.float32, [None], name="x"),
            "k": tf.placeholder(tf.float32, [None], name="k"),
        }
        return tf.estimator.export.ServingInputReceiver(receivers, receivers)

    path, lines = _logged(
        lambda: est.export_saved_model(os.path.join(model_dir, "export"), serving_input_fn),
        model_dir,
    )
    return {"lines": _export_lines(lines), "is_bytes": isinstance(path, bytes)}


def export_parsed_examples(tf, model_dir):
    """A tf.Example parsing receiver: every signature is served."""
    est, columns = _trained_regressor(tf, model_dir)
    spec = tf.feature_column.make_parse_example_spec(columns)
    serving_input_fn = tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)
    _, lines = _logged(
        lambda: est.export_saved_model(os.path.join(model_dir, "export"), serving_input_fn),
        model_dir,
    )
    return {"lines": _export_lines(lines)}


def _build_and_save(tf, export_dir, assets):
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        with tf.Session() as sess:
            sess.run(v.initializer)
            builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
            builder.add_meta_graph_and_variables(sess, ["serve"], assets_collection=assets)
            builder.save()


def builder_without_assets(tf, model_dir):
    """SavedModelBuilder with no assets collection, then with an empty one."""
    out = {}
    for name, assets in (("none", None), ("empty", [])):
        export_dir = os.path.join(model_dir, name)
        _, out[name] = _logged(lambda: _build_and_save(tf, export_dir, assets), model_dir)  # noqa: B023
    return out


def _custom_model_fn(tf, export_outputs_of):
    def model_fn(features, labels, mode):
        x = tf.expand_dims(features["x"], -1)
        pred = tf.layers.dense(x, 1, name="d")
        loss = train_op = None
        if mode != tf.estimator.ModeKeys.PREDICT:
            loss = tf.losses.mean_squared_error(tf.expand_dims(labels, -1), pred)
            train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
                loss, tf.train.get_global_step()
            )
        return tf.estimator.EstimatorSpec(
            mode,
            predictions={"predicted": pred},
            loss=loss,
            train_op=train_op,
            export_outputs=export_outputs_of(pred),
        )

    return model_fn


def lone_export_output_served_as_default(tf, model_dir):
    """A model_fn with one RegressionOutput named otherwise: TF also serves it as
    serving_default (both then excluded for raw float receivers)."""
    model_fn = _custom_model_fn(
        tf, lambda pred: {"regression_export_outputs": tf.estimator.export.RegressionOutput(pred)}
    )
    est = tf.estimator.Estimator(
        model_fn, model_dir=model_dir, config=tf.estimator.RunConfig(tf_random_seed=1)
    )

    def input_fn():
        return tf.data.Dataset.from_tensors(
            ({"x": np.array([1.0, 2.0], np.float32)}, np.array([2.0, 4.0], np.float32))
        )

    est.train(input_fn, steps=1)

    def serving_input_fn():
        x = tf.placeholder(tf.float32, [None], name="x")
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})

    _, lines = _logged(
        lambda: est.export_saved_model(os.path.join(model_dir, "export"), serving_input_fn),
        model_dir,
    )
    return {"lines": _export_lines(lines)}


def spec_export_outputs(tf, model_dir):
    """EstimatorSpec's export outputs in PREDICT mode: the lone one is added as
    serving_default; several without one of that name are refused."""
    with tf.Graph().as_default():
        pred = tf.constant([[1.0]])
        lone = {"r": tf.estimator.export.RegressionOutput(pred)}
        spec = tf.estimator.EstimatorSpec("infer", predictions=pred, export_outputs=lone)
        out = {"keys": sorted(spec.export_outputs), "given_dict_changed": sorted(lone)}
        two = {
            "r": tf.estimator.export.RegressionOutput(pred),
            "p": tf.estimator.export.PredictOutput({"y": pred}),
        }
        try:
            tf.estimator.EstimatorSpec("infer", predictions=pred, export_outputs=two)
        except Exception as e:
            out["two"] = [type(e).__name__, str(e)]
        try:
            tf.estimator.EstimatorSpec("infer", predictions=pred, export_outputs=[pred])
        except Exception as e:
            out["list"] = type(e).__name__
    return out


CASES = {
    "lone_export_output_served_as_default": lone_export_output_served_as_default,
    "spec_export_outputs": spec_export_outputs,
    "builder_without_assets": builder_without_assets,
    "export_parsed_examples": export_parsed_examples,
    "export_raw_features": export_raw_features,
}
