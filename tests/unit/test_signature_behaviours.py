"""What the public-signature fixes added behaves as TF 1.15's (programs in
tf_reference/signature_behaviour_cases.py, recorded by record_signature_behaviours.py):
TensorShape.with_rank_at_most / assert_same_rank / most_specific_compatible_shape,
Dimension.assert_is_compatible_with, Keras layers' get_*_at(node_index), add_weight without a
name and in TF's positional order, LSTMCell/GRUCell constructor arguments, cells'
get_initial_state, dynamic=True layers, Variable.sparse_read / gather_nd /
batch_scatter_update and experimental_ref."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode
from tf_reference.signature_behaviour_cases import CASES


def _same(actual: Any, expected: Any) -> None:
    if isinstance(expected, np.ndarray):
        reference.assert_close(np.asarray(actual), expected)
    elif isinstance(expected, dict):
        assert sorted(actual) == sorted(expected)
        for key in expected:
            _same(actual[key], expected[key])
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _same(a, e)
    else:
        assert actual == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_matches_tf_1_15(name: str) -> None:
    expected = decode(reference.case("signature_behaviours", name)["result"])
    with tf.Graph().as_default():
        np.random.seed(0)
        tf.set_random_seed(0)
        actual = CASES[name](tf)
    _same(actual, expected)


def test_compile_with_a_distribute_strategy_is_refused_by_name() -> None:
    with tf.Graph().as_default():
        inputs = tf.keras.Input((2,))
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
        with pytest.raises(tf.errors.UnimplementedError, match="compile\\(distribute"):
            model.compile("sgd", "mse", distribute=tf.distribute.OneDeviceStrategy("/cpu:0"))
        model.compile("sgd", "mse", distribute=None)


def test_ragged_keras_input_is_refused_by_name() -> None:
    with (
        tf.Graph().as_default(),
        pytest.raises(tf.errors.UnimplementedError, match="ragged=True"),
    ):
        tf.keras.Input((None,), ragged=True)
