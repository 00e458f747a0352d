"""Pooling ratios TF 1.15 does not check (its kernels then corrupt memory or read out of
bounds, so there is nothing to record): tfcluster refuses them when the graph is built."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf

IMAGE = np.zeros((2, 10, 13, 3), np.float32)


@pytest.mark.parametrize("pool", [tf.nn.fractional_max_pool, tf.nn.fractional_avg_pool])
def test_a_batch_or_channel_ratio_other_than_one_is_a_value_error(pool: object) -> None:
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="batch nor channel"):
            pool(IMAGE, [2.0, 1.5, 1.5, 1.0])  # type: ignore[operator]
        with pytest.raises(ValueError, match="batch nor channel"):
            pool(IMAGE, [1.0, 1.5, 1.5, 3.0])  # type: ignore[operator]


@pytest.mark.parametrize("pool", [tf.nn.fractional_max_pool, tf.nn.fractional_avg_pool])
def test_a_ratio_below_one_is_a_value_error(pool: object) -> None:
    with tf.Graph().as_default(), pytest.raises(ValueError, match="smaller than 1"):
        pool(IMAGE, [1.0, 0.5, 1.5, 1.0])  # type: ignore[operator]


def test_deterministic_seeds_give_the_same_windows_every_run() -> None:
    with tf.Graph().as_default():
        _, rows, cols = tf.nn.fractional_max_pool(
            IMAGE, [1.0, 1.44, 1.73, 1.0], pseudo_random=True, deterministic=True, seed=7, seed2=3
        )
        with tf.Session() as sess:
            first = sess.run([rows, cols])
            second = sess.run([rows, cols])
    # TF 1.15's own sequences for these seeds (recorded once, see cases_nn_extras).
    assert first[0].tolist() == second[0].tolist() == [0, 1, 3, 5, 6, 8, 10]
    assert first[1].tolist() == second[1].tolist() == [0, 2, 4, 6, 8, 10, 12, 13]
