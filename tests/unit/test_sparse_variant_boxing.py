"""SparseTensors boxed in TF's variant form ([..., 3] object arrays of their three arrays, the
form a dataset's sparse leaf takes): SerializeManySparse's rows remember the batch they came
from, and DeserializeSparse of those very rows hands that batch back; it is what combining
the rows one by one gives, and a copy of the rows (which forgets) is combined that way."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import sparse_serialization as ss


def _run(fetches: object, feed: dict[object, object] | None = None) -> object:
    with tf.Session() as sess:
        return sess.run(fetches, feed)


@pytest.mark.parametrize("values_dtype", [tf.float32, tf.int64, tf.string])
def test_deserializing_boxed_rows_gives_the_batch_they_came_from(values_dtype: object) -> None:
    with tf.Graph().as_default():
        raw = [b"a", b"b", b"c", b"d"] if values_dtype == tf.string else [1, 2, 3, 4]
        values = tf.cast(raw, values_dtype) if values_dtype != tf.string else tf.constant(raw)
        batch = tf.SparseTensor([[0, 1], [0, 3], [2, 0], [3, 2]], values, [4, 5])
        rows = tf.io.serialize_many_sparse(batch, out_type=tf.variant)
        rows_value = _run(rows)
        assert isinstance(rows_value, np.ndarray) and rows_value.shape == (4, 3)
        assert [r.tolist() for r in rows_value[:, 2]] == [[5]] * 4
        direct = ss.deserialize_boxed(rows_value, values_dtype)
        copied = ss.deserialize_boxed(np.array(rows_value, dtype=object), values_dtype)
    assert direct is not None and copied is not None
    for a, b in zip(direct, copied):
        assert np.asarray(a).tolist() == np.asarray(b).tolist()
    assert direct[0].tolist() == [[0, 1], [0, 3], [2, 0], [3, 2]]
    assert direct[2].tolist() == [4, 5]


def test_rows_of_different_lengths_combine_with_the_largest_shape() -> None:
    rows = np.empty((2, 3), dtype=object)
    rows[0] = [np.array([[0], [1]], np.int64), np.array([1.0, 2.0], np.float32), np.array([2])]
    rows[1] = [np.array([[3]], np.int64), np.array([3.0], np.float32), np.array([4])]
    indices, values, shape = ss.deserialize_boxed(rows, tf.float32)  # type: ignore[misc]
    assert indices.tolist() == [[0, 0], [0, 1], [1, 3]]
    assert values.tolist() == [1.0, 2.0, 3.0]
    assert shape.tolist() == [2, 4]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requested SparseTensor of type"):
        ss.deserialize_boxed(rows, tf.int64)
