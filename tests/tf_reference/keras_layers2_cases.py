"""tf.keras layers (graph mode) written once for TF 1.15 and tfcluster: each case builds one
layer on a fixed input, sets its weights from a seeded generator, and reports the output
(inference phase), its static shape, the variables' names, the layer's config, and the
gradients of sum(output * fixed weights) with respect to the input and each weight.
record_keras_layers2.py runs them on TF 1.15; test_keras_layers2_reference.py on tfcluster.

Kept runnable on Python 3.7 and free of anything but numpy.
"""

from __future__ import annotations

import json

import numpy as np

CASES = {}


def case(input_shape, dtype="float32", low=-1.0, high=1.0):
    def wrap(fn):
        CASES[fn.__name__] = (fn, input_shape, dtype, low, high)
        return fn

    return wrap


@case((2, 5, 3))
def zero_padding1d(L):
    return L.ZeroPadding1D((1, 2))


@case((2, 4, 5, 2))
def zero_padding2d(L):
    return L.ZeroPadding2D(((1, 2), (0, 1)))


@case((1, 3, 3, 3, 2))
def zero_padding3d(L):
    return L.ZeroPadding3D(1)


@case((2, 6, 3))
def cropping1d(L):
    return L.Cropping1D((1, 2))


@case((2, 6, 5, 2))
def cropping2d(L):
    return L.Cropping2D(((1, 0), (2, 1)))


@case((1, 4, 4, 4, 2))
def cropping3d(L):
    return L.Cropping3D(((1, 1), (0, 1), (1, 0)))


@case((2, 4, 3))
def upsampling1d(L):
    return L.UpSampling1D(3)


@case((2, 3, 4, 2))
def upsampling2d_nearest(L):
    return L.UpSampling2D((2, 3))


@case((2, 3, 4, 2))
def upsampling2d_bilinear(L):
    return L.UpSampling2D(2, interpolation="bilinear")


@case((1, 2, 3, 2, 2))
def upsampling3d(L):
    return L.UpSampling3D((2, 1, 2))


@case((2, 6, 6, 3))
def depthwise_conv2d(L):
    return L.DepthwiseConv2D(3, depth_multiplier=2, activation="relu")


@case((2, 7, 7, 2))
def depthwise_conv2d_same_strided(L):
    return L.DepthwiseConv2D((2, 3), strides=2, padding="same", use_bias=False)


@case((2, 4, 4, 3))
def prelu_shared(L):
    return L.PReLU(alpha_initializer="ones", shared_axes=[1, 2])


@case((2, 5))
def prelu(L):
    return L.PReLU()


@case((2, 5, 3))
def elu(L):
    return L.ELU(0.5)


@case((2, 5, 3))
def thresholded_relu(L):
    return L.ThresholdedReLU(0.2)


@case((2, 5, 3))
def leaky_relu(L):
    return L.LeakyReLU(0.3)


@case((2, 5, 3))
def gaussian_noise_inference(L):
    return L.GaussianNoise(0.5)


@case((2, 5, 3))
def gaussian_dropout_inference(L):
    return L.GaussianDropout(0.3)


@case((2, 5, 3))
def alpha_dropout_inference(L):
    return L.AlphaDropout(0.3)


@case((2, 5, 3))
def spatial_dropout1d_inference(L):
    return L.SpatialDropout1D(0.3)


@case((2, 4, 4, 3))
def spatial_dropout2d_inference(L):
    return L.SpatialDropout2D(0.3)


@case((1, 3, 3, 3, 2))
def spatial_dropout3d_inference(L):
    return L.SpatialDropout3D(0.3)


@case((2, 5, 3))
def activity_regularization(L):
    return L.ActivityRegularization(l1=0.01, l2=0.02)


@case((2, 5, 4))
def layer_normalization(L):
    return L.LayerNormalization()


@case((2, 3, 4, 2))
def layer_normalization_two_axes(L):
    return L.LayerNormalization(axis=[1, 3], epsilon=1e-5)


@case((2, 6, 3))
def locally_connected1d(L):
    return L.LocallyConnected1D(4, 3, strides=2, activation="tanh")


@case((2, 5, 6, 2))
def locally_connected2d(L):
    return L.LocallyConnected2D(3, (2, 3), strides=(1, 2))


@case((2, 4, 3))
def time_distributed_dense(L):
    return L.TimeDistributed(L.Dense(5, activation="relu"))


@case((2, 3, 4, 4, 1))
def time_distributed_conv(L):
    return L.TimeDistributed(L.Conv2D(2, 3))


@case((2, 5, 3))
def bidirectional_lstm_concat(L):
    return L.Bidirectional(L.LSTM(4, return_sequences=True))


@case((2, 5, 3))
def bidirectional_gru_sum(L):
    return L.Bidirectional(L.GRU(3), merge_mode="sum")


@case((2, 5, 3))
def stacked_cells(L):
    return L.RNN([L.LSTMCell(3), L.SimpleRNNCell(2)], return_sequences=True)


@case((2, 3, 5, 5, 2))
def conv_lstm2d(L):
    return L.ConvLSTM2D(3, (3, 3), padding="same", return_sequences=True)


@case((2, 3, 6, 6, 1))
def conv_lstm2d_valid_last(L):
    return L.ConvLSTM2D(2, (2, 2), strides=2)


def _fix(layer, seed=0):
    rng = np.random.RandomState(seed)
    values = []
    for w in layer.get_weights():
        values.append(rng.uniform(-0.5, 0.5, w.shape).astype(w.dtype))
    layer.set_weights(values)


def run_case(tf, name):
    fn, shape, dtype, low, high = CASES[name]
    K = tf.keras
    K.backend.clear_session()
    rng = np.random.RandomState(7)
    x_value = rng.uniform(low, high, shape).astype(dtype)
    x = K.Input(batch_shape=shape, dtype=dtype)
    layer = fn(K.layers)
    y = layer(x)
    _fix(layer)
    y_value_shape = K.backend.int_shape(y)
    weights_out = rng.uniform(-1, 1, [d for d in y_value_shape]).astype("float32")
    loss = tf.reduce_sum(y * weights_out)
    wrt = [x] + list(layer.trainable_weights)
    grads = tf.gradients(loss, wrt)
    sess = K.backend.get_session()
    values = sess.run([y] + [g for g in grads if g is not None], {x: x_value})
    return {
        "input": x_value,
        "output": values[0],
        "shape": list(y_value_shape),
        "variables": [v.name for v in tf.global_variables()],
        "config": json.loads(json.dumps(layer.get_config(), default=_json_default)),
        "grad_present": [g is not None for g in grads],
        "grads": values[1:],
    }


def _json_default(obj):
    if hasattr(obj, "get_config"):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    if isinstance(obj, (np.generic,)):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(repr(obj))

