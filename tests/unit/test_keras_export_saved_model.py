"""A Keras SavedModel written by TF 1.15's tf.keras.experimental.export_saved_model
(recorded by tests/tf_reference/record_keras_export.py) loads in tfcluster with
load_from_saved_model and predicts what TF 1.15 predicted; one written by tfcluster reads back
the same way, and its directory layout is TF's (the full comparison with TF's own export runs
in test_later_names.py: keras_export_saved_model)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference

_TF_EXPORT = os.path.join(reference.DATA_DIR, "keras_export", "tf115_sequential")


def test_a_keras_saved_model_tf_wrote_loads_and_predicts_as_tf() -> None:
    recorded = reference.case("keras_export", "tf115_sequential")
    tf.reset_default_graph()
    model = tf.keras.experimental.load_from_saved_model(_TF_EXPORT)
    reference.assert_close(model.predict(recorded["x"]), recorded["predictions"], rtol=1e-6)


def test_an_export_of_an_uncompiled_model_has_only_the_serving_graph(tmp_path: Path) -> None:
    tf.reset_default_graph()
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    path = str(tmp_path / "export")
    tf.keras.experimental.export_saved_model(model, path)
    with tf.Graph().as_default(), tf.Session() as sess:
        meta_graph = tf.saved_model.loader.load(sess, ["serve"], path)
        sig = meta_graph.signature_def["serving_default"]
        x = np.ones((1, 3), np.float32)
        got = sess.run(sig.outputs["dense"].name, {sig.inputs["dense_input"].name: x})
    reference.assert_close(got, model.predict(x), rtol=1e-6)
    with tf.Graph().as_default(), tf.Session() as sess, pytest.raises(RuntimeError):
        tf.saved_model.loader.load(sess, ["train"], path)


def test_a_subclassed_model_is_refused_unless_serving_only() -> None:
    class Tiny(tf.keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)

        def call(self, inputs):  # type: ignore[no-untyped-def]
            return self.dense(inputs)

    with pytest.raises(NotImplementedError, match="serving_only=True"):
        tf.keras.experimental.export_saved_model(Tiny(), "/nonexistent/unused")
