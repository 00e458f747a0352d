"""A Keras network's input_shape and output_shape as TF 1.15 reports them (values checked
against TF 1.15): one shape for one tensor, a list for several, unchanged by compile and
predict, and a Sequential rebuilt at each add keeps one node of its own."""

from __future__ import annotations

import numpy as np
import tfcluster as tf


def test_sequential_with_batch_input_shape_keeps_its_shapes_after_predict() -> None:
    m = tf.keras.Sequential(
        [tf.keras.layers.Dense(3, batch_input_shape=(None, 4)), tf.keras.layers.Dense(2)]
    )
    m.compile("sgd", "mse")
    m.predict(np.ones((5, 4), np.float32))
    assert m.output_shape == (None, 2)
    assert m.input_shape == (None, 4)
    assert m.layers[0].output_shape == (None, 3)
    assert len(m._inbound_nodes) == 1


def test_functional_models_report_one_shape_per_tensor_or_a_list() -> None:
    a = tf.keras.Input((4,))
    b = tf.keras.Input((2,))
    both = tf.keras.Model([a, b], tf.keras.layers.Dense(3)(tf.keras.layers.concatenate([a, b])))
    assert both.input_shape == [(None, 4), (None, 2)]
    assert both.output_shape == (None, 3)
    listed = tf.keras.Model([a], [tf.keras.layers.Dense(3)(a)])
    assert (listed.input_shape, listed.output_shape) == ((None, 4), (None, 3))
    two = tf.keras.Model(a, [tf.keras.layers.Dense(3)(a), tf.keras.layers.Dense(1)(a)])
    assert two.output_shape == [(None, 3), (None, 1)]


def test_a_sequential_called_on_a_new_input_has_a_second_node() -> None:
    s = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,)), tf.keras.layers.Dense(2)])
    assert (s.input_shape, s.output_shape, s.layers[1].input_shape) == (
        (None, 4),
        (None, 2),
        (None, 3),
    )
    s(tf.keras.Input((4,)))
    assert s.output_shape == (None, 2)
    assert len(s._inbound_nodes) == 2
