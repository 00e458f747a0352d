"""Queue-based input across a cluster of task server processes, through `grpc://` sessions:
a reader and its queues placed on the ps with tf.device live in the ps's resource manager
and are fed by QueueRunner threads that a client starts; the batches reach the client's
session; the end of the epochs is OutOfRangeError and the Coordinator stops cleanly. A
corrupt file is DataLossError and the session keeps working; a shared queue on the ps is
one queue for two client sessions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, free_ports
from tf_reference import queues_cases as cases

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]
PS = "/job:ps/task:0"


def _placed(sess: Any, fetches: Any) -> dict[str, str]:
    """node name -> the device it ran on, for one traced step."""
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    metadata = tf.RunMetadata()
    sess.run(fetches, options=options, run_metadata=metadata)
    return {n.node_name: d.device for d in metadata.step_stats.dev_stats for n in d.node_stats}


def test_a_reader_pipeline_on_the_ps_feeds_a_client_session(cluster: Cluster) -> None:
    pw, pp = free_ports(2)
    cluster.start({"worker": [pw], "ps": [pp]})
    files = [cases.rec_path(cases.EXAMPLES), cases.rec_path(cases.EXAMPLES_GZ)]
    expected = list(tf.python_io.tf_record_iterator(files[0]))
    with tf.Graph().as_default():
        with tf.device(PS):
            names = tf.train.string_input_producer(files[:1], num_epochs=2, shuffle=False)
            key, value = tf.TFRecordReader().read(names)
            keys, values = tf.train.batch(
                [key, value], batch_size=4, allow_smaller_final_batch=True
            )
        batch_queue_size = tf.get_default_graph().get_tensor_by_name("batch/fifo_queue_Size:0")
        init = [tf.global_variables_initializer(), tf.local_variables_initializer()]
        with tf.Session(cluster.task("worker", 0).target) as sess:
            sess.run(init)
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            got: list[bytes] = []
            placed: dict[str, str] = {}
            try:
                while not coord.should_stop():
                    if not placed:
                        placed = _placed(sess, batch_queue_size)
                    k, v = sess.run([keys, values])
                    got.extend(v.tolist())
                    assert all(x.startswith(files[0].encode() + b":") for x in k)
            except tf.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
            coord.join(threads)
    assert got == expected * 2
    assert placed["batch/fifo_queue"].startswith("/job:ps/replica:0/task:0")
    assert placed["batch/fifo_queue_Size"].startswith("/job:ps/replica:0/task:0")


def test_a_corrupt_record_on_the_ps_is_data_loss_and_the_session_keeps_working(
    cluster: Cluster,
) -> None:
    pw, pp = free_ports(2)
    cluster.start({"worker": [pw], "ps": [pp]})
    with tf.Graph().as_default():
        with tf.device(PS):
            queue = tf.FIFOQueue(5, tf.string, shapes=[[]])
            fill = queue.enqueue_many([[cases.rec_path(cases.CORRUPT)]])
            _, value = tf.TFRecordReader().read(queue)
        other = tf.constant(np.arange(3)) * 2
        with tf.Session(cluster.task("worker", 0).target) as sess:
            sess.run(fill)
            assert len(sess.run(value)) > 0  # the first record is good
            with pytest.raises(tf.errors.DataLossError, match=r"corrupted record at \d+"):
                sess.run(value)
            assert sess.run(other).tolist() == [0, 2, 4]
            with pytest.raises(tf.errors.DataLossError):
                sess.run(value)  # the reader stays at the bad record, as TF's


def test_a_shared_queue_on_the_ps_is_one_queue_for_two_client_sessions(cluster: Cluster) -> None:
    pw, pp = free_ports(2)
    cluster.start({"worker": [pw], "ps": [pp]})
    target = cluster.task("worker", 0).target

    def shared() -> Any:
        with tf.device(PS):
            return tf.PaddingFIFOQueue(10, [tf.int32], shapes=[[None]], shared_name="shared")

    producer, consumer = tf.Graph(), tf.Graph()
    with producer.as_default():
        item = tf.placeholder(tf.int32, [None])
        put = shared().enqueue([item])
        close = shared().close()
    with consumer.as_default():
        take = shared().dequeue_many(2)
        take_rest = shared().dequeue_up_to(5)
    with tf.Session(target, graph=producer) as p, tf.Session(target, graph=consumer) as c:
        p.run(put, {item: [1]})
        p.run(put, {item: [2, 3, 4]})
        p.run(put, {item: [5, 6]})
        assert c.run(take).tolist() == [[1, 0, 0], [2, 3, 4]]
        p.run(close)
        assert c.run(take_rest).tolist() == [[5, 6]]
        with pytest.raises(tf.errors.OutOfRangeError, match="is closed and has insufficient"):
            c.run(take_rest)
