"""What TF 1.15 logs while an Estimator exports a SavedModel and while a SavedModelBuilder
writes one: the signature report ("Signatures INCLUDED in export for Predict: ['predict']",
the excluded ones and why, "Export includes no default signature!"), "Assets added to graph.",
"No assets to write." and "SavedModel written to: ...". Each case is `fn(tf, model_dir) ->
plain values`, run on TF 1.15 by record_export_log.py and on tfcluster by
tests/unit/test_export_log.py. Python 3.7 code."""

from __future__ import annotations

import logging
import os

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
        if line.startswith("INFO:SavedModel written to: "):
            # .../export/<timestamp>-named temp folder/saved_model.pb
            line = "INFO:SavedModel written to: " + os.path.basename(line)
        kept.append(line)
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


CASES = {
    "builder_without_assets": builder_without_assets,
    "export_parsed_examples": export_parsed_examples,
    "export_raw_features": export_raw_features,
}
