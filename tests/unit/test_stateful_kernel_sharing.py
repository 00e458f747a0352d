"""A session's steps share one kernel per stateful node, as TF's OpSegment shares them, even
when two steps are planned at the same moment in two threads: a QueueRunner's enqueue while
the main thread plans its dequeue (Estimator.predict over numpy_input_fn hung forever on a
dequeue whose step had bound a queue of its own, one that nobody fed)."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import tfcluster as tf
from tfcluster.runtime import kernel_table


def test_steps_bound_at_the_same_moment_share_the_sessions_queue() -> None:
    kdef = kernel_table.lookup("FIFOQueueV2", "CPU")
    # Both steps' executors make their queue kernel before either stores it: the
    # interleaving that, without one atomic store, gave each step a private queue.
    both_binding = threading.Barrier(2, timeout=30)

    def factory_meeting_the_other_step(node: Any) -> Any:
        fn = kdef.factory(node)
        both_binding.wait()
        return fn

    kernel_table.add(dataclasses.replace(kdef, factory=factory_meeting_the_other_step), True)
    try:
        with tf.Graph().as_default():
            q = tf.FIFOQueue(10, tf.float32, shapes=[[]])
            enqueue_one, enqueue_two = q.enqueue(1.0), q.enqueue(2.0)
            size = q.size()
            with tf.Session() as sess:
                errors: list[BaseException] = []

                def run_in_thread() -> None:
                    try:
                        sess.run(enqueue_one)
                    except BaseException as e:
                        errors.append(e)

                other = threading.Thread(target=run_in_thread)
                other.start()
                sess.run(enqueue_two)
                other.join()
                assert not errors
                kernel_table.add(kdef, True)
                assert sess.run(size) == 2
                assert sorted(sess.run(q.dequeue_many(2)).tolist()) == [1.0, 2.0]
    finally:
        kernel_table.add(kdef, True)
