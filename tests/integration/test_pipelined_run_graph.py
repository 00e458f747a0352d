"""A master sends its step's RunGraph requests to the other tasks from the step's own thread,
runs its own partition, then reads their answers there (rpc PipelinedWorker over plain direct
streams): no pool thread between the step and its tasks. Answers are read as they come, so a
partition that fails still ends the step while another partition waits for something that
never comes; a thread that has not run steps before reuses the connections of those that
did."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.direct_links import wait_for_direct_links

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


def _master_pool_wakeups() -> int:
    """Voluntary context switches of this process's master pool threads (named master_N)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    total = 0
    for tid, name in names.items():
        if not name.startswith("master"):
            continue
        try:
            with open(f"/proc/self/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            continue
    return total


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_a_step_over_three_tasks_needs_no_master_pool_thread(
    worker_and_two_ps: dict[str, tf.train.Server],
) -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [4], name="x")
        with tf.device("/job:ps/task:0"):
            a = tf.Variable(np.ones(4, np.float32), name="a")
            ua = tf.assign_add(a, x)
        with tf.device("/job:ps/task:1"):
            b = tf.Variable(np.full(4, 2.0, np.float32), name="b")
            ub = tf.assign_add(b, x * 2.0)
        with tf.device("/job:worker/task:0"):
            total = tf.reduce_sum(ua) + tf.reduce_sum(ub)
    sess = tf.Session(worker_and_two_ps["worker"].target, graph=g)
    sess.run([a.initializer, b.initializer])
    feed = {x: np.ones(4, np.float32)}
    wait_for_direct_links(worker_and_two_ps, lambda: sess.run(total, feed))
    done = sess.run(a)[0] - 1.0  # steps run so far
    before = _master_pool_wakeups()
    for _ in range(30):
        sess.run(total, feed)
    assert _master_pool_wakeups() == before
    # Every step ran on both ps tasks.
    np.testing.assert_allclose(sess.run(a), np.full(4, 1.0 + done + 30))
    np.testing.assert_allclose(sess.run(b), np.full(4, 2.0 + 2 * (done + 30)))
    sess.close()


def test_a_failing_partition_ends_the_step_while_another_waits(
    worker_and_two_ps: dict[str, tf.train.Server],
) -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        with tf.device("/job:ps/task:0"):
            # Nobody ever enqueues: this partition waits until the step is aborted.
            q = tf.FIFOQueue(4, tf.float32, shapes=[[]])
            waits = q.dequeue()
            warm = tf.identity(x)
        with tf.device("/job:ps/task:1"):
            checked = tf.check_numerics(x * 1.0, "x must be finite")
        with tf.device("/job:worker/task:0"):
            out = checked + 1.0
    sess = tf.Session(worker_and_two_ps["worker"].target, graph=g)
    ok = {x: np.ones(2, np.float32)}
    wait_for_direct_links(worker_and_two_ps, lambda: sess.run([warm, out], ok))
    t0 = time.monotonic()
    # ps:0's partition is the first the master reads the answer of; ps:1's fails.
    with pytest.raises(tf.errors.InvalidArgumentError, match="x must be finite"):
        sess.run([waits, out], {x: np.array([1.0, np.nan], np.float32)})
    assert time.monotonic() - t0 < 20
    # The session and its connections go on working.
    np.testing.assert_allclose(sess.run(out, ok), [2.0, 2.0])
    sess.close()


def test_a_new_thread_reuses_the_connections_of_earlier_steps(
    worker_and_two_ps: dict[str, tf.train.Server],
) -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        with tf.device("/job:ps/task:0"):
            y0 = x + 1.0
        with tf.device("/job:ps/task:1"):
            y1 = x + 2.0
        with tf.device("/job:worker/task:0"):
            out = y0 * y1
    sess = tf.Session(worker_and_two_ps["worker"].target, graph=g)
    wait_for_direct_links(worker_and_two_ps, lambda: sess.run(out, {x: 0.0}))
    for _ in range(5):
        sess.run(out, {x: 1.0})
    served = [worker_and_two_ps[n]._transport.direct.calls_served for n in ("ps0", "ps1")]
    results: list[Any] = []

    def run() -> None:
        for _ in range(5):
            results.append(sess.run(out, {x: 2.0}))

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
        t.join()  # one after another: each finds the connections the last one gave back
    assert results == [12.0] * 15
    assert [worker_and_two_ps[n]._transport.direct.calls_served for n in ("ps0", "ps1")] == served
    sess.close()
