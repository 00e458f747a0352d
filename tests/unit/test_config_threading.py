"""tf.config.threading as TensorFlow 1.15 has it: the thread counts (0 until set) that a
session made without a config takes; a local session sizes the process's pools to them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import tfcluster as tf
from tfcluster.runtime import thread_budget


@pytest.fixture(autouse=True)
def unset_threads() -> Iterator[None]:
    thread_budget._reset_for_tests()
    yield
    tf.config.threading.set_intra_op_parallelism_threads(0)
    tf.config.threading.set_inter_op_parallelism_threads(0)
    thread_budget._reset_for_tests()


def test_thread_counts_are_zero_until_set() -> None:
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    assert tf.config.threading.get_inter_op_parallelism_threads() == 0
    tf.config.threading.set_intra_op_parallelism_threads(2)
    tf.config.threading.set_inter_op_parallelism_threads(3)
    assert tf.config.threading.get_intra_op_parallelism_threads() == 2
    assert tf.config.threading.get_inter_op_parallelism_threads() == 3


def test_a_session_without_config_takes_them() -> None:
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(2)
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(tf.constant(2.0) * 3.0) == 6.0
    assert thread_budget.current() == thread_budget.Budget(1, 2, "session config")
    pools = [p for p in thread_budget.blas_pools_info() if p["user_api"] == "blas"]
    assert {p["num_threads"] for p in pools} == {1}


def test_an_explicit_config_wins() -> None:
    tf.config.threading.set_intra_op_parallelism_threads(1)
    config = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=1)
    with tf.Graph().as_default(), tf.Session(config=config):
        pass
    assert thread_budget.current().intra == 2


def test_other_config_names_are_unimplemented_by_name() -> None:
    with pytest.raises(tf.errors.UnimplementedError, match="experimental_connect_to_cluster"):
        tf.config.experimental_connect_to_cluster(None)
