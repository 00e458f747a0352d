"""tf.data.experimental's grouping, sparse batching, Optional and TFRecordWriter cases, read
the way data_cases.py reads its cases: by TensorFlow 1.15 in record_data_extras.py and by
tfcluster in tests/unit/test_data_extras_reference.py. Runs on Python 3.7 too."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

try:
    from tf_reference.data_cases import Build, Case
except ImportError:  # the recorder runs from this folder, in TensorFlow's venv
    from data_cases import Build, Case  # type: ignore[no-redef]

VALUES = np.array([5, 3, 9, 1, 7, 2, 8, 4, 6, 0, 11, 13], np.int32)
SEQUENCES = [[1], [2, 2], [3, 3, 3], [4, 4, 4, 4], [5] * 5, [6] * 6, [7] * 7, [1, 2], [9] * 9]


def _key(tf: Any) -> Any:
    # Keys in another order than they first appear (groups flush in ascending key order).
    return lambda x: tf.cast(x % 4, tf.int64) * 7 % 5


def _group_by_window(tf: Any, f: Any) -> Any:
    return tf.data.Dataset.from_tensor_slices(VALUES).apply(
        tf.data.experimental.group_by_window(
            _key(tf), lambda k, w: w.batch(10).map(lambda b: (k, b)), window_size=3
        )
    )


def _group_by_window_sizes(tf: Any, f: Any) -> Any:
    ds = tf.data.Dataset.from_tensor_slices({"v": VALUES, "w": VALUES * 2.0})
    return ds.apply(
        tf.data.experimental.group_by_window(
            lambda e: tf.cast(e["v"] % 3, tf.int64),
            lambda k, w: w.padded_batch(4, {"v": [], "w": []}).map(lambda b: (k, b["v"], b["w"])),
            window_size_func=lambda k: k + 1,
        )
    )


def _sequences(tf: Any) -> Any:
    def gen() -> Any:
        for s in SEQUENCES:
            yield np.array(s, np.int64)

    return tf.data.Dataset.from_generator(gen, tf.int64, tf.TensorShape([None]))


def _bucket(tf: Any, f: Any, **kwargs: Any) -> Any:
    return _sequences(tf).apply(
        tf.data.experimental.bucket_by_sequence_length(
            lambda x: tf.shape(x)[0], [3, 6], [2, 2, 3], **kwargs
        )
    )


def _group_by_reducer(tf: Any, f: Any) -> Any:
    reducer = tf.data.experimental.Reducer(
        lambda k: (k, tf.constant(0, tf.int64)),
        lambda s, x: (s[0], s[1] * 10 + tf.cast(x, tf.int64)),
        lambda k, s: (k, s),
    )
    return tf.data.Dataset.from_tensor_slices(VALUES).apply(
        tf.data.experimental.group_by_reducer(_key(tf), reducer)
    )


def _group_by_reducer_growing_state(tf: Any, f: Any) -> Any:
    reducer = tf.data.experimental.Reducer(
        lambda k: tf.zeros([0], tf.int32),
        lambda s, x: tf.concat([s, [x]], 0),
        lambda s: {"items": s, "total": tf.reduce_sum(s)},
    )
    return tf.data.Dataset.from_tensor_slices(VALUES).apply(
        tf.data.experimental.group_by_reducer(lambda x: tf.cast(x % 2, tf.int64), reducer)
    )


def _dense_to_sparse(tf: Any, f: Any, row_shape: Any) -> Any:
    rows = tf.data.Dataset.from_tensor_slices([[1, 2, 0], [3, 0, 0], [4, 5, 6], [7, 0, 0]])
    trimmed = rows.map(lambda x: tf.boolean_mask(x, x > 0))
    return trimmed.apply(tf.data.experimental.dense_to_sparse_batch(3, row_shape))


def _dense_to_sparse_matrix(tf: Any, f: Any) -> Any:
    ds = tf.data.Dataset.range(1, 4).map(lambda n: tf.fill(tf.stack([n, 2]), n))
    return ds.apply(tf.data.experimental.dense_to_sparse_batch(2, [5, 2]))


def _optional(tf: Any, f: Any) -> Any:
    it = (
        tf.data.Dataset.range(3)
        .map(lambda x: (x, tf.cast(x, tf.float32) / 2))
        .make_initializable_iterator()
    )
    opt = tf.data.experimental.get_next_as_optional(it)
    has = opt.has_value()
    value = tf.cond(
        has, lambda: opt.get_value(), lambda: (tf.constant(-1, tf.int64), tf.constant(-1.0))
    )
    return {"init": it.initializer, "elements": (has, value), "reads": 5}


def _optional_from_value(tf: Any, f: Any) -> Any:
    full = tf.data.experimental.Optional.from_value((tf.constant(1.5), {"a": tf.constant([1, 2])}))
    empty = tf.data.experimental.Optional.none_from_structure(full.value_structure)
    return {
        "init": tf.no_op(),
        "elements": (full.has_value(), full.get_value(), empty.has_value()),
        "reads": 1,
    }


def _tfrecord_writer(tf: Any, f: Any, compression: Any) -> Any:
    path = os.path.join(f["dir"], f"written_{compression or 'plain'}.tfrecord")
    data = tf.data.Dataset.from_tensor_slices([b"a", b"bc", b"", b"\x00" * 300])
    write = tf.data.experimental.TFRecordWriter(path, compression).write(data)
    read = tf.data.TFRecordDataset(path, compression_type=compression).make_initializable_iterator()
    return {"init": write, "then_init": read.initializer, "elements": read.get_next()}


CASES = [
    Case("group_by_window", _group_by_window),
    Case("group_by_window_size_func_dicts", _group_by_window_sizes),
    Case("bucket_by_sequence_length", lambda tf, f: _bucket(tf, f)),
    Case(
        "bucket_by_sequence_length_no_padding",
        lambda tf, f: tf.data.Dataset.range(10).apply(
            tf.data.experimental.bucket_by_sequence_length(
                lambda x: tf.cast(x, tf.int32), [3, 6], [2, 2, 3], no_padding=True
            )
        ),
    ),
    Case(
        "bucket_by_sequence_length_drop_remainder",
        lambda tf, f: _bucket(tf, f, drop_remainder=True, padding_values=tf.constant(-1, tf.int64)),
    ),
    Case(
        "bucket_by_sequence_length_to_boundary",
        lambda tf, f: (
            _sequences(tf)
            .take(6)
            .apply(
                tf.data.experimental.bucket_by_sequence_length(
                    lambda x: tf.shape(x)[0], [3, 7], [2, 2, 3], pad_to_bucket_boundary=True
                )
            )
        ),
    ),
    Case("group_by_reducer", _group_by_reducer),
    Case("group_by_reducer_growing_state", _group_by_reducer_growing_state),
    Case("dense_to_sparse_batch_unknown_row", lambda tf, f: _dense_to_sparse(tf, f, [None])),
    Case("dense_to_sparse_batch_fixed_row", lambda tf, f: _dense_to_sparse(tf, f, [4])),
    Case("dense_to_sparse_batch_matrix", _dense_to_sparse_matrix),
]

# Cases read with an initializer and a fixed number of reads (Optional never ends).
STEP_CASES: list[tuple[str, Build]] = [
    ("get_next_as_optional", _optional),
    ("optional_from_value", _optional_from_value),
]

WRITE_CASES: list[tuple[str, Build]] = [
    ("tfrecord_writer_plain", lambda tf, f: _tfrecord_writer(tf, f, None)),
    ("tfrecord_writer_gzip", lambda tf, f: _tfrecord_writer(tf, f, "GZIP")),
    ("tfrecord_writer_zlib", lambda tf, f: _tfrecord_writer(tf, f, "ZLIB")),
]

RUN_ERRORS: list[tuple[str, Build, int]] = [
    (
        "dense_to_sparse_batch_row_too_long",
        lambda tf, f: _dense_to_sparse(tf, f, [2]),
        0,
    ),
    (
        "group_by_window_size_zero",
        lambda tf, f: tf.data.Dataset.range(4).apply(
            tf.data.experimental.group_by_window(
                lambda x: x % 2, lambda k, w: w, window_size_func=lambda k: k - k
            )
        ),
        0,
    ),
    (
        "bucket_by_sequence_length_past_last_boundary",
        lambda tf, f: _sequences(tf).apply(
            tf.data.experimental.bucket_by_sequence_length(
                lambda x: tf.shape(x)[0], [3, 7], [2, 2, 3], pad_to_bucket_boundary=True
            )
        ),
        3,
    ),
]


def _key_not_int64(tf: Any, f: Any) -> Any:
    return tf.data.Dataset.range(3).apply(
        tf.data.experimental.group_by_window(lambda x: tf.cast(x, tf.float32), lambda k, w: w, 2)
    )


def _reduce_not_dataset(tf: Any, f: Any) -> Any:
    return tf.data.Dataset.range(3).apply(
        tf.data.experimental.group_by_window(lambda x: x, lambda k, w: k, 2)
    )


def _both_window_sizes(tf: Any, f: Any) -> Any:
    return tf.data.experimental.group_by_window(lambda x: x, lambda k, w: w, 2, lambda k: k)


def _reducer_state_type_changes(tf: Any, f: Any) -> Any:
    reducer = tf.data.experimental.Reducer(
        lambda k: tf.constant(0, tf.int64), lambda s, x: tf.cast(s, tf.int32) + 1, lambda s: s
    )
    return tf.data.Dataset.range(3).apply(
        tf.data.experimental.group_by_reducer(lambda x: x % 2, reducer)
    )


def _bucket_sizes_mismatch(tf: Any, f: Any) -> Any:
    return tf.data.experimental.bucket_by_sequence_length(lambda x: 1, [3, 6], [2, 2])


def _writer_not_strings(tf: Any, f: Any) -> Any:
    return tf.data.experimental.TFRecordWriter("/tmp/never").write(tf.data.Dataset.range(3))


def _dense_to_sparse_tuple(tf: Any, f: Any) -> Any:
    ds = tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4]))
    return ds.apply(tf.data.experimental.dense_to_sparse_batch(2, [None]))


BUILD_ERRORS: list[tuple[str, Build]] = [
    ("group_by_window_key_not_int64", _key_not_int64),
    ("group_by_window_reduce_not_dataset", _reduce_not_dataset),
    ("group_by_window_both_sizes", _both_window_sizes),
    ("group_by_reducer_state_type_changes", _reducer_state_type_changes),
    ("bucket_by_sequence_length_sizes_mismatch", _bucket_sizes_mismatch),
    ("tfrecord_writer_not_strings", _writer_not_strings),
    ("dense_to_sparse_batch_tuple", _dense_to_sparse_tuple),
]


def run_steps(tf: Any, build: Build, files: dict[str, str]) -> dict[str, Any]:
    """A STEP_CASES or WRITE_CASES case: its init op, then `reads` runs of its elements (or,
    for a writer, the records read back until OutOfRange)."""
    try:
        from tf_reference.data_cases import plain, read_all
    except ImportError:
        from data_cases import plain, read_all  # type: ignore[no-redef]
    with tf.Graph().as_default():
        built = build(tf, files)
        with tf.Session() as sess:
            sess.run(built["init"])
            if "then_init" in built:
                sess.run(built["then_init"])
                return {"elements": read_all(tf, sess, built["elements"])}
            return {
                "elements": [plain(tf, sess.run(built["elements"])) for _ in range(built["reads"])]
            }


# rejection_resample draws with each framework's own random streams: what is compared is the
# element structure, how many elements come out and the class proportions (statistically).
RESAMPLE_LABELS = np.random.RandomState(1).choice(3, 4000, p=[0.7, 0.2, 0.1]).astype(np.int32)
RESAMPLE_CASES: list[tuple[str, Any]] = [
    ("estimated_initial", None),
    ("given_initial", [0.7, 0.2, 0.1]),
]


def run_resample(tf: Any, initial: Any) -> dict[str, Any]:
    """Output types/shapes, element count and class proportions of one resampled pass."""
    try:
        from tf_reference.data_cases import describe
    except ImportError:
        from data_cases import describe  # type: ignore[no-redef]
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(
            (RESAMPLE_LABELS, np.arange(RESAMPLE_LABELS.size, dtype=np.int64))
        )
        resampled = ds.apply(
            tf.data.experimental.rejection_resample(
                lambda label, i: label, [1 / 3.0, 1 / 3.0, 1 / 3.0], initial_dist=initial, seed=5
            )
        )
        out = describe(tf, resampled)
        nxt = tf.data.make_one_shot_iterator(resampled).get_next()
        classes = []
        with tf.Session() as sess:
            try:
                while True:
                    classes.append(int(sess.run(nxt)[0]))
            except tf.errors.OutOfRangeError:
                pass
    out["count"] = len(classes)
    out["proportions"] = (np.bincount(classes, minlength=3) / max(len(classes), 1)).tolist()
    return out
