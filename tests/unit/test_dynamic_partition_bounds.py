"""DynamicPartition's check of its partition numbers: a negative entry and one past the
count fail with TF's message naming the first bad entry; valid ones split rows in order."""

from __future__ import annotations

import re

import numpy as np
import pytest
import tfcluster as tf


def _parts(p: list[int], num: int) -> list[np.ndarray]:
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant(np.arange(len(p) * 2, dtype=np.float32).reshape(len(p), 2))
        out: list[np.ndarray] = sess.run(tf.dynamic_partition(x, np.array(p, np.int32), num))
        return out


@pytest.mark.parametrize(
    ("p", "bad"), [([0, -1, 1, -5], "partitions[1] = -1"), ([1, 0, 2], "partitions[2] = 2")]
)
def test_out_of_range_partition_names_first_bad_entry(p: list[int], bad: str) -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(f"{bad} is not in [0, 2)")):
        _parts(p, 2)


def test_rows_split_in_order_with_an_empty_partition() -> None:
    parts = _parts([2, 0, 2, 2], 3)
    assert [p.tolist() for p in parts] == [[[2.0, 3.0]], [], [[0.0, 1.0], [4.0, 5.0], [6.0, 7.0]]]
    assert parts[1].shape == (0, 2)
