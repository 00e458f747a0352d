"""Queue-based input as TF1 programs use it: a file pipeline trained on until its epochs run
out (plain Session with a Coordinator, and MonitoredTrainingSession), the summaries the
pipeline adds, errors from the threads reaching the Coordinator, Session.reset waking a
blocked dequeue, and SparseTensors through a batch join."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import queues_cases as cases


def _write_examples(path: Path, start: int, count: int) -> str:
    with tf.python_io.TFRecordWriter(str(path)) as w:
        for i in range(start, start + count):
            features = {
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i, 2.0 * i])),
                "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 2])),
            }
            example = tf.train.Example(features=tf.train.Features(feature=features))
            w.write(example.SerializeToString())
    return str(path)


def _pipeline(files: list[str], num_epochs: int, batch_size: int) -> tuple[tf.Tensor, tf.Tensor]:
    names = tf.train.string_input_producer(files, num_epochs=num_epochs, seed=1)
    _, serialized = tf.TFRecordReader().read(names)
    parsed = tf.parse_single_example(
        serialized,
        {"x": tf.FixedLenFeature([2], tf.float32), "y": tf.FixedLenFeature([], tf.int64)},
    )
    return tf.train.shuffle_batch(
        [parsed["x"], parsed["y"]],
        batch_size=batch_size,
        capacity=50,
        min_after_dequeue=10,
        num_threads=2,
        allow_smaller_final_batch=True,
    )


def test_training_from_files_ends_cleanly_when_the_epochs_run_out(tmp_path: Path) -> None:
    files = [_write_examples(tmp_path / f"part-{k}", 20 * k, 20) for k in range(3)]
    x, y = _pipeline(files, num_epochs=2, batch_size=8)
    w = tf.Variable(tf.zeros([2, 1]))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - tf.cast(tf.expand_dims(y, 1), tf.float32)))
    train = tf.train.GradientDescentOptimizer(1e-4).minimize(loss)
    seen: list[float] = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            while not coord.should_stop():
                _, xs = sess.run([train, x])
                seen.extend(xs[:, 0].tolist())
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads)
    # Every record of every file, once per epoch.
    assert sorted(seen) == sorted([float(i) for i in range(60)] * 2)


def test_monitored_training_session_starts_the_runners_and_stops_at_the_end(
    tmp_path: Path,
) -> None:
    files = [_write_examples(tmp_path / "data", 0, 30)]
    x, _ = _pipeline(files, num_epochs=1, batch_size=7)
    step = tf.train.get_or_create_global_step()
    count = tf.assign_add(step, 1)
    sizes = []
    with tf.train.MonitoredTrainingSession() as sess:
        while not sess.should_stop():
            xs, _ = sess.run([x, count])
            sizes.append(len(xs))
    assert sum(sizes) == 30 and sizes[:-1] == [7] * 4


def test_the_pipeline_adds_tensorflows_summaries_and_they_run(tmp_path: Path) -> None:
    files = [_write_examples(tmp_path / "data", 0, 5)]
    _pipeline(files, num_epochs=1, batch_size=2)
    merged = tf.summary.merge_all()
    tags = [t.op.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]
    assert tags == [
        "input_producer/fraction_of_32_full",
        "shuffle_batch/fraction_over_10_of_40_full",
    ]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        raw = sess.run(merged)
    # A serialized Summary with both scalars (the queues are empty: both values are 0).
    assert isinstance(raw, bytes)
    assert b"input_producer/fraction_of_32_full" in raw
    assert b"shuffle_batch/fraction_over_10_of_40_full" in raw


def test_an_error_in_a_runner_thread_reaches_the_coordinator(tmp_path: Path) -> None:
    names = tf.train.string_input_producer([str(tmp_path / "missing.tfrecord")])
    _, value = tf.TFRecordReader().read(names)
    batch = tf.train.batch([value], batch_size=2)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        with pytest.raises(tf.errors.NotFoundError, match=r"missing\.tfrecord"):
            try:
                while not coord.should_stop():
                    sess.run(batch, options=tf.RunOptions(timeout_in_ms=2000))
            except (tf.errors.OutOfRangeError, tf.errors.CancelledError):
                pass  # the stop request closed the batch queue under the dequeue, as in TF
            finally:
                coord.request_stop()
            coord.join(threads)


def test_session_reset_wakes_a_dequeue_blocked_on_a_server() -> None:
    server = tf.train.Server.create_local_server()
    try:
        q = tf.FIFOQueue(2, tf.int32, shapes=[[]], shared_name="wait_here")
        dequeue = q.dequeue()
        errors: list[BaseException] = []
        with tf.Session(server.target) as sess:
            # The dequeue's step planned first: the blocked run starts waiting at once (its
            # planning took more than the wait below on a loaded machine).
            sess.run(q.enqueue(1))
            sess.run(dequeue)

            def blocked() -> None:
                try:
                    sess.run(dequeue)
                except tf.errors.OpError as e:
                    errors.append(e)

            t = threading.Thread(target=blocked)
            t.start()
            time.sleep(0.3)
            assert t.is_alive()
            tf.Session.reset(server.target)
            t.join(10)
            assert not t.is_alive()
            assert [type(e) for e in errors] == [tf.errors.OutOfRangeError]
    finally:
        server.stop()


def test_sparse_tensors_from_two_readers_are_joined_into_one_batch() -> None:
    first = tf.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue()
    second = tf.train.range_input_producer(2, num_epochs=1, shuffle=False).dequeue() + 10

    def row(i: tf.Tensor) -> tf.SparseTensor:
        n = tf.cast(i % 3 + 1, tf.int64)
        return tf.SparseTensor(
            tf.reshape(tf.range(n), [-1, 1]), tf.fill(tf.reshape(n, [1]), i), tf.reshape(n, [1])
        )

    sp, dense = tf.train.batch_join(
        [[row(first), first], [row(second), second]], batch_size=5, allow_smaller_final_batch=True
    )
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        got_sp, got_dense = sess.run([sp, dense])
        coord.request_stop()
        coord.join(threads)
    assert sorted(got_dense.tolist()) == [0, 1, 2, 10, 11]
    # Each row keeps its own values: row r holds i % 3 + 1 copies of dense[r].
    for r, i in enumerate(got_dense.tolist()):
        values = got_sp.values[got_sp.indices[:, 0] == r]
        assert values.tolist() == [i] * (i % 3 + 1)
    assert got_sp.dense_shape.tolist() == [5, 3]


def test_read_up_to_and_parse_example_feed_an_enqueue_many_batch(tmp_path: Path) -> None:
    files = [_write_examples(tmp_path / f"p{k}", 10 * k, 10) for k in range(2)]
    names = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader().read_up_to(names, 4)
    parsed = tf.parse_example(serialized, {"x": tf.FixedLenFeature([2], tf.float32)})
    xs = tf.train.batch(
        [parsed["x"]], batch_size=6, enqueue_many=True, allow_smaller_final_batch=True
    )
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        got = []
        try:
            while True:
                got.append(sess.run(xs))
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads)
    np.testing.assert_array_equal(np.concatenate(got)[:, 0], np.arange(20, dtype=np.float32))
    assert [len(g) for g in got] == [6, 6, 6, 2]


def test_whole_file_reader_over_matched_files_reads_each_once() -> None:
    files = tf.train.match_filenames_once(os.path.join(cases.QUEUES_DIR, "*.txt"))
    names = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    key, value = tf.WholeFileReader().read(names)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        got = {}
        try:
            while True:
                k, v = sess.run([key, value])
                got[os.path.basename(k.decode())] = v
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads)
    assert got == cases.TEXT_FILES


def test_closing_the_session_ends_runner_threads_blocked_on_its_queues() -> None:
    # Nobody dequeues: the batch queue fills and its runner blocks in an enqueue.
    x = tf.train.range_input_producer(1000, shuffle=False).dequeue()
    tf.train.batch([x], batch_size=2, capacity=4)
    sess = tf.Session()
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    time.sleep(0.3)
    assert any(t.is_alive() for t in threads)
    sess.close()
    deadline = time.monotonic() + 10
    while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(t.is_alive() for t in threads)
