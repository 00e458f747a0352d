"""tf.keras.layers.CuDNNLSTM / CuDNNGRU build TF 1.15's layer (names, weight shapes, a
CudnnRNNV2 op on the flattened weights), load the weights file TF 1.15 wrote, and compute
what TF 1.15's LSTM / GRU compute with those weights converted by Keras's loader
(tests/tf_reference/cudnn_keras_cases.py, record_cudnn_keras.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.cudnn_keras_cases import build, describe, inputs, weights

DATA = Path(__file__).resolve().parents[1] / "tf_reference" / "data" / "cudnn_keras"


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_layer_is_tfs_and_computes_what_tf_computes(kind: str) -> None:
    want = reference.case("cudnn_keras", kind)
    tf.keras.backend.clear_session()
    with tf.Graph().as_default():
        model, layer = build(tf, kind)
        info = describe(layer, model.outputs)
        for key in ("layer_name", "weights", "weight_shapes", "output_shapes"):
            assert info[key] == want[key], key
        assert any(op.type == "CudnnRNNV2" for op in tf.get_default_graph().get_operations())
        layer.set_weights(weights(kind))
        got = model.predict(inputs())
        feed = tf.constant(inputs())
        seq = model(feed)[0]
        grad = tf.gradients(tf.reduce_sum(seq * seq), feed)[0]
        d_input = tf.keras.backend.get_session().run(grad)
    reference.assert_close(got[0], want["sequences"], rtol=1e-5, atol=1e-6)
    for g, w in zip(got[1:], want["states"]):
        reference.assert_close(g, w, rtol=1e-5, atol=1e-6)
    reference.assert_close(d_input, want["d_input"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_weights_file_tf_wrote_loads(kind: str) -> None:
    pytest.importorskip("h5py")
    want = reference.case("cudnn_keras", kind)
    tf.keras.backend.clear_session()
    with tf.Graph().as_default():
        model, layer = build(tf, kind)
        model.load_weights(str(DATA / f"cudnn_{kind}.h5"))
        for got, w in zip(layer.get_weights(), weights(kind)):
            np.testing.assert_array_equal(got, w)
        got = model.predict(inputs())
    reference.assert_close(got[0], want["sequences"], rtol=1e-5, atol=1e-6)
