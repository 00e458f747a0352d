"""What a session sees of a queue while an enqueue waits for room: TF 1.15's queue puts the
waiting enqueue's next element in as part of the dequeue that makes room, so the queue is
full again when the dequeue's step ends (a QueueRunner's enqueue_many over a small queue:
sizes printed next to each dequeue stay at the capacity until the last batch drains). Each
case is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_queue_waits.py and on
tfcluster by tests/unit/test_queue_waits.py. Python 3.7 code."""

from __future__ import annotations

import threading
import time


def _until_size(sess, size, wanted):
    deadline = time.time() + 30
    while sess.run(size) != wanted and time.time() < deadline:
        time.sleep(0.01)


def refill_by_a_waiting_enqueue_many(tf):
    """capacity 3, enqueue_many of 5 waiting in another thread: the size after each dequeue."""
    with tf.Graph().as_default():
        q = tf.FIFOQueue(capacity=3, dtypes=tf.float32)
        enqueue = q.enqueue_many(tf.constant([1.0, 2.0, 3.0, 4.0, 5.0]))
        dequeue = q.dequeue()
        size = q.size()
        with tf.Session() as sess:
            worker = threading.Thread(target=lambda: sess.run(enqueue))
            worker.start()
            _until_size(sess, size, 3)
            steps = []
            for _ in range(5):
                value = sess.run(dequeue)
                steps.append([float(value), int(sess.run(size))])
            worker.join(30)
            return {"steps": steps, "enqueue_done": not worker.is_alive()}


def refill_by_waiting_enqueues_of_a_shuffle_queue(tf):
    """RandomShuffleQueue(capacity 4, min_after_dequeue 1), two enqueue_many of 3 waiting:
    the size after each dequeue_many(2) (the values' order is the queue's seeded shuffle)."""
    with tf.Graph().as_default():
        q = tf.RandomShuffleQueue(
            capacity=4, min_after_dequeue=1, dtypes=tf.int32, shapes=[[]], seed=3
        )
        enqueues = [q.enqueue_many(tf.constant([0, 1, 2]) + 3 * k) for k in range(2)]
        dequeue = q.dequeue_many(2)
        size = q.size()
        with tf.Session() as sess:
            workers = []
            for op in enqueues:
                worker = threading.Thread(target=lambda op=op: sess.run(op))
                worker.start()
                workers.append(worker)
                _until_size(sess, size, 3 if len(workers) == 1 else 4)
            sizes = []
            for _ in range(2):
                sess.run(dequeue)
                sizes.append(int(sess.run(size)))
            for worker in workers:
                worker.join(30)
            return {"sizes": sizes, "enqueues_done": not any(w.is_alive() for w in workers)}


CASES = {
    "refill_by_a_waiting_enqueue_many": refill_by_a_waiting_enqueue_many,
    "refill_by_waiting_enqueues_of_a_shuffle_queue": refill_by_waiting_enqueues_of_a_shuffle_queue,
}
