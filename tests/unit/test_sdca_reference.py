"""The SDCA ops (tf.train.sdca_optimizer / sdca_fprint / sdca_shrink_l1, the raw ops) and
LinearSDCA in LinearClassifier / LinearRegressor compute what TF 1.15 computes: each program of
tests/tf_reference/sdca_cases.py runs here on tfcluster and is compared with TF 1.15's
recorded answers (record_sdca_kmeans.py); tfcluster restores the checkpoint TF wrote."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.compare import assert_same_answers
from tf_reference.sdca_cases import CASES, RESTORE_CASES, bad_run


def _assert_same(got: Any, recorded: Any, where: str) -> None:
    assert_same_answers(got, recorded, where, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(CASES) + sorted(RESTORE_CASES))
def test_program_computes_what_tf_computed(name: str) -> None:
    tf.reset_default_graph()
    tf.set_random_seed(1)
    program = CASES.get(name) or RESTORE_CASES[name]
    _assert_same(program(tf), reference.case("sdca", name), name)


def test_index_vectors_of_different_lengths_are_invalid() -> None:
    # TF 1.15 reads out of bounds here; tfcluster says what is wrong.
    tf.reset_default_graph()
    from tf_reference import sdca_cases

    sdca_cases.BAD_INPUTS["mismatched"] = dict(sparse_example_indices=[np.array([0, 0], np.int64)])
    try:
        assert bad_run(tf, "mismatched") == {"error": "InvalidArgumentError"}
    finally:
        del sdca_cases.BAD_INPUTS["mismatched"]


def test_a_session_keeps_working_after_a_bad_pass() -> None:
    tf.reset_default_graph()
    labels = tf.placeholder(tf.float32, [1])
    out = tf.train.sdca_optimizer(
        [],
        [],
        [],
        [np.array([[1.0, 2.0]], np.float32)],
        np.array([1.0], np.float32),
        labels,
        [],
        [],
        [np.zeros(2, np.float32)],
        np.zeros((1, 4), np.float32),
        loss_type="logistic_loss",
        l1=0.0,
        l2=1.0,
        num_loss_partitions=1,
        num_inner_iterations=1,
    )
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Only labels of 0\.0 or 1\.0"):
            sess.run(out[0], {labels: [0.5]})
        state = sess.run(out[0], {labels: [1.0]})
    # logistic dual of one example with |x|^2 = 5, l2 = 1, from w = 0
    assert 0.0 < state[0, 0] < 1.0 and state[0, 3] == 1.0


def test_example_runs_out_of_order_get_no_features_as_in_tf() -> None:
    """TF reads a group's example indices as runs in example order: with indices [1, 0], the
    walk for example 0 stops at once, so only example 1 has a feature (the first one). These
    are the values TF 1.15 gives for this program."""
    tf.reset_default_graph()
    out = tf.train.sdca_optimizer(
        [np.array([1, 0], np.int64)],
        [np.array([0, 1], np.int64)],
        [],
        [],
        np.array([1.0, 1.0], np.float32),
        np.array([1.0, -1.0], np.float32),
        [np.array([0, 1], np.int64)],
        [np.zeros(2, np.float32)],
        [],
        np.zeros((2, 4), np.float32),
        loss_type="squared_loss",
        l1=0.0,
        l2=1.0,
        num_loss_partitions=1,
        num_inner_iterations=1,
        adaptative=False,
    )
    with tf.Session() as sess:
        state, (delta,) = sess.run([out[0], list(out[1])])
    # example 0 has no features: dual = (label - 0 - 0) / (1 + 0) = 1; example 1's one feature
    # (index 0, norm 1): dual = -1 / 2.
    np.testing.assert_allclose(state[:, 0], [1.0, -0.5])
    np.testing.assert_allclose(delta, [-0.5, 0.0])
