"""Records TF 1.15's CuDNNLSTM / CuDNNGRU (cudnn_keras_cases.py): names, shapes, the weights
file TF writes, and outputs computed by LSTM / GRU with the weights converted by Keras's
loader. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_cudnn_keras.py
"""

import os

import h5py
import tensorflow as tf
from cudnn_keras_cases import UNITS, build, describe, inputs, weights
from recorder import Recorder
from tensorflow.python.keras.saving import hdf5_format

if not tf.__version__.startswith("1."):
    raise SystemExit("record_cudnn_keras.py records TensorFlow 1.15")

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "cudnn_keras")
rec = Recorder("cudnn_keras")


def _twin(kind):
    if kind == "lstm":
        return tf.keras.layers.LSTM(
            UNITS, recurrent_activation="sigmoid", return_sequences=True, return_state=True
        )
    return tf.keras.layers.GRU(
        UNITS,
        recurrent_activation="sigmoid",
        reset_after=True,
        return_sequences=True,
        return_state=True,
    )


for kind in ("lstm", "gru"):
    tf.keras.backend.clear_session()
    with tf.Graph().as_default():
        model, layer = build(tf, kind)
        info = describe(layer, model.outputs)
        # A session would place the CudnnRNNV2 op, which has no CPU kernel in TF 1.15: the
        # file is written by Keras's own HDF5 writer, with the weights' values handed to it.
        values_of = {id(w): v for w, v in zip(layer.weights, weights(kind))}
        real_get = hdf5_format.K.batch_get_value
        hdf5_format.K.batch_get_value = lambda ws, v=values_of: [v[id(w)] for w in ws]
        try:
            with h5py.File(os.path.join(HERE, f"cudnn_{kind}.h5"), "w") as f:
                hdf5_format.save_weights_to_hdf5_group(f, model.layers)
        finally:
            hdf5_format.K.batch_get_value = real_get
    tf.keras.backend.clear_session()
    with tf.Graph().as_default():
        x = tf.keras.Input((inputs().shape[1], inputs().shape[2]))
        twin = _twin(kind)
        twin_model = tf.keras.Model(x, twin(x))
        twin.set_weights(hdf5_format._convert_rnn_weights(twin, weights(kind)))
        values = twin_model.predict(inputs())
        feed = tf.constant(inputs())
        seq = twin_model(feed)[0]
        grad = tf.gradients(tf.reduce_sum(seq * seq), feed)[0]
        grad_value = tf.keras.backend.get_session().run(grad)
    rec.add(kind, sequences=values[0], states=list(values[1:]), d_input=grad_value, **info)
rec.save()
