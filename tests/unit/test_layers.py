"""tf.layers behaviours beyond the TF-recorded casebook (test_layers_reference.py): channels-
first layers computing what their channels-last forms compute (TF 1.15's CPU kernels cannot
run them, so no recording exists), batch normalisation's moving statistics under training,
per-input updates and losses, dropout's mask, placement under replica_device_setter, and
the base Layer's calling conventions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference.conv_cases import arr


def _run(fetches: Any, feed: dict[Any, Any] | None = None, init: bool = True) -> Any:
    with tf.Session() as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def _same_weights(first: Any, last: Any) -> list[Any]:
    return [tf.assign(a, b) for a, b in zip(first.weights, last.weights)]


@pytest.mark.parametrize(
    "make",
    [
        lambda: tf.layers.Conv2D(4, 3, padding="same", activation=tf.nn.relu),
        lambda: tf.layers.Conv2D(3, (3, 2), strides=2, dilation_rate=1),
        lambda: tf.layers.Conv2D(2, 3, dilation_rate=2, padding="same"),
        lambda: tf.layers.SeparableConv2D(4, 3, depth_multiplier=2, padding="same"),
        lambda: tf.layers.Conv2DTranspose(2, 3, strides=2, padding="same"),
        lambda: tf.layers.MaxPooling2D(2, 2),
        lambda: tf.layers.AveragePooling2D(3, 2, padding="same"),
    ],
)
def test_channels_first_2d_layers_compute_the_channels_last_results(make: Any) -> None:
    x_val = arr(1, (2, 7, 6, 3))
    last, first = make(), make()
    first.data_format = "channels_first"
    x = tf.constant(x_val)
    y_last = last(x)
    y_first = tf.transpose(first(tf.transpose(x, [0, 3, 1, 2])), [0, 2, 3, 1])
    assert y_first.shape.as_list() == y_last.shape.as_list()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(_same_weights(first, last))
        a, b = sess.run([y_last, y_first])
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "make,shape,perm",
    [
        (lambda fmt: tf.layers.Conv1D(3, 3, padding="same", data_format=fmt), (2, 9, 4), [0, 2, 1]),
        (lambda fmt: tf.layers.MaxPooling1D(2, 2, data_format=fmt), (2, 9, 4), [0, 2, 1]),
        (lambda fmt: tf.layers.Conv3D(2, 2, data_format=fmt), (2, 4, 5, 3, 2), [0, 4, 1, 2, 3]),
        (
            lambda fmt: tf.layers.AveragePooling3D(2, 1, data_format=fmt),
            (2, 4, 5, 3, 2),
            [0, 4, 1, 2, 3],
        ),
    ],
)
def test_channels_first_1d_and_3d_layers_match_channels_last(
    make: Any, shape: tuple[int, ...], perm: list[int]
) -> None:
    last, first = make("channels_last"), make("channels_first")
    x = tf.constant(arr(10, shape))
    y_last = last(x)
    y_first = tf.transpose(first(tf.transpose(x, perm)), list(np.argsort(perm)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(_same_weights(first, last))
        a, b = sess.run([y_last, y_first])
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)


def test_batch_norm_over_axis_1_matches_the_last_axis() -> None:
    x = tf.constant(arr(20, (4, 5, 3, 2)))
    bn_last = tf.layers.batch_normalization(x, training=True)
    bn_first = tf.layers.batch_normalization(tf.transpose(x, [0, 3, 1, 2]), axis=1, training=True)
    a, b = _run([bn_last, tf.transpose(bn_first, [0, 2, 3, 1])])
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)


def test_batch_norm_moving_statistics_follow_the_data_through_update_ops() -> None:
    x = tf.placeholder(tf.float32, [None, 4, 4, 3])
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.batch_normalization(x, training=training, momentum=0.5)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(updates) == 2
    data = 3.0 + 2.0 * np.random.default_rng(0).standard_normal((64, 4, 4, 3)).astype(np.float32)
    mean_var, var_var = tf.global_variables()[2:4]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(12):
            sess.run(updates, {x: data, training: True})
        mean, var = sess.run([mean_var, var_var])
        # Inference normalises with the moving statistics; no update runs.
        out = sess.run(y, {x: data, training: False})
        assert np.allclose(sess.run(mean_var), mean)
    np.testing.assert_allclose(mean, data.mean(axis=(0, 1, 2)), rtol=1e-3)
    n = data.size / 3
    np.testing.assert_allclose(var, data.var(axis=(0, 1, 2)) * n / (n - 1), rtol=1e-3)
    assert abs(out.mean()) < 0.05 and abs(out.std() - 1) < 0.05


def test_updates_and_losses_are_kept_per_input() -> None:
    layer = tf.layers.BatchNormalization(gamma_regularizer=tf.nn.l2_loss)
    a, b = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [None, 3])
    layer(a, training=True)
    layer(b, training=True)
    assert len(layer.updates) == 4
    assert len(layer.get_updates_for(a)) == 2 and len(layer.get_updates_for(b)) == 2
    assert layer.get_updates_for(None) == []
    # The weight regulariser depends on no input.
    assert len(layer.get_losses_for(None)) == 1
    assert layer.get_losses_for(a) == []


def test_dropout_keeps_a_fraction_and_scales_it() -> None:
    x = tf.ones([400, 50])
    training = tf.placeholder_with_default(False, [])
    y = tf.layers.dropout(x, rate=0.3, training=training)
    with tf.Session() as sess:
        on = sess.run(y, {training: True})
        off = sess.run(y)
    np.testing.assert_array_equal(off, np.ones((400, 50), np.float32))
    kept = on[on > 0]
    np.testing.assert_allclose(kept, 1 / 0.7, rtol=1e-6)
    assert abs((on > 0).mean() - 0.7) < 0.02


def test_layers_under_replica_device_setter_put_variables_on_the_ps() -> None:
    setter = tf.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:0")
    with tf.device(setter):
        x = tf.placeholder(tf.float32, [None, 8, 8, 1])
        h = tf.layers.conv2d(x, 4, 3)
        h = tf.layers.batch_normalization(h, training=True)
        y = tf.layers.dense(tf.layers.flatten(h), 2)
    devices = {v.name: v.device for v in tf.global_variables()}
    assert all(d.startswith("/job:ps/task:") for d in devices.values()), devices
    assert {d for d in devices.values()} == {"/job:ps/task:0", "/job:ps/task:1"}
    assert y.op.device == "/job:worker/task:0"
    assert tf.get_default_graph().get_operation_by_name("conv2d/Conv2D").device == (
        "/job:worker/task:0"
    )


def test_a_layer_subclass_gets_its_scope_and_numpy_inputs() -> None:
    class Offset(tf.layers.Layer):
        def build(self, input_shape: Any) -> None:
            self.b = self.add_weight("b", [input_shape[-1]], initializer=tf.ones_initializer())
            self.built = True

        def call(self, inputs: Any, scope: Any = None) -> Any:
            self.seen_scope = scope.name
            return inputs + self.b

    layer = Offset(name="off")
    y = layer(np.zeros((2, 3), np.float32))
    assert layer.seen_scope == "off" and layer.b.name == "off/b:0"
    np.testing.assert_array_equal(_run(y), np.ones((2, 3), np.float32))
    with tf.variable_scope("outer"):
        z = layer(np.zeros((1, 3), np.float32), scope="ignored_once_built")
    assert layer.seen_scope == "off" and z.op.name.startswith("off/")
    assert layer.count_params() == 3
    with pytest.raises(ValueError, match="isn't built"):
        Offset().count_params()


def test_dense_on_rank_3_inputs_is_a_tensordot() -> None:
    x_val = arr(30, (2, 3, 4))
    layer = tf.layers.Dense(5)
    y = layer(tf.placeholder_with_default(x_val, [None, 3, 4]))
    assert y.shape.as_list() == [None, 3, 5]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, kernel, bias = sess.run([y, layer.kernel, layer.bias])
    np.testing.assert_allclose(got, x_val @ kernel + bias, rtol=1e-5, atol=1e-6)
