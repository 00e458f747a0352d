"""FIFOQueue and ConditionalAccumulator: values, blocking, closing, sharing, errors."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.ops.data_flow_ops import ConditionalAccumulator, FIFOQueue


def test_fifo_order_and_size() -> None:
    q = FIFOQueue(10, [tf.float32, tf.int32], shapes=[[2], []])
    enq = q.enqueue([tf.constant([1.0, 2.0]), tf.constant(7)])
    enq_many = q.enqueue_many([np.array([[3.0, 4.0], [5.0, 6.0]], np.float32), [8, 9]])
    x, y = q.dequeue()
    xs, ys = q.dequeue_many(2)
    assert x.shape.as_list() == [2] and y.dtype == tf.int32
    assert xs.shape.as_list() == [2, 2] and ys.shape.as_list() == [2]
    size = q.size()
    with tf.Session() as sess:
        sess.run(enq)
        sess.run(enq_many)
        assert sess.run(size) == 3
        a, b = sess.run([x, y])
        np.testing.assert_array_equal(a, [1.0, 2.0])
        assert b == 7
        a, b = sess.run([xs, ys])
        np.testing.assert_array_equal(a, [[3.0, 4.0], [5.0, 6.0]])
        np.testing.assert_array_equal(b, [8, 9])
        assert a.dtype == np.float32 and b.dtype == np.int32
        assert sess.run(size) == 0


def test_named_components_dict() -> None:
    q = FIFOQueue(2, [tf.float32, tf.int64], names=["a", "b"], shapes=[[], []])
    enq = q.enqueue({"a": 1.5, "b": 2})
    out = q.dequeue()
    assert sorted(out) == ["a", "b"]
    with tf.Session() as sess:
        sess.run(enq)
        got = sess.run(out)
    assert got == {"a": 1.5, "b": 2}
    with pytest.raises(ValueError, match="do not match names"):
        q.enqueue({"a": 1.0})


def test_dequeue_blocks_until_enqueue_from_another_thread() -> None:
    q = FIFOQueue(1, tf.float32, shapes=[[]])
    deq = q.dequeue()
    enq = q.enqueue(tf.constant(3.0))
    with tf.Session() as sess:
        result: list = []
        t = threading.Thread(target=lambda: result.append(sess.run(deq)))
        t.start()
        time.sleep(0.2)
        assert t.is_alive() and not result
        sess.run(enq)
        t.join(5)
        assert result == [3.0]


def test_enqueue_blocks_when_full_and_close_cancels_it() -> None:
    q = FIFOQueue(1, tf.float32, shapes=[[]])
    enq = q.enqueue(tf.constant(1.0))
    close = q.close(cancel_pending_enqueues=True)
    with tf.Session() as sess:
        sess.run(enq)
        errs: list = []

        def blocked() -> None:
            try:
                sess.run(enq)
            except tf.errors.CancelledError as e:
                errs.append(e)

        t = threading.Thread(target=blocked)
        t.start()
        time.sleep(0.2)
        assert t.is_alive()
        sess.run(close)
        t.join(5)
        assert len(errs) == 1 and "Enqueue operation was cancelled" in errs[0].message


def test_closed_queue_drains_then_out_of_range() -> None:
    q = FIFOQueue(5, tf.int32, shapes=[[]])
    enq = q.enqueue_many([[1, 2, 3]])
    close = q.close()
    deq_many = q.dequeue_many(2)
    up_to = q.dequeue_up_to(5)
    deq = q.dequeue()
    is_closed = q.is_closed()
    with tf.Session() as sess:
        sess.run(enq)
        assert not sess.run(is_closed)
        sess.run(close)
        assert sess.run(is_closed)
        with pytest.raises(tf.errors.CancelledError, match="is closed"):
            sess.run(enq)
        np.testing.assert_array_equal(sess.run(deq_many), [1, 2])
        # Not enough for dequeue_many: OutOfRange, and the element stays queued.
        with pytest.raises(tf.errors.OutOfRangeError, match="insufficient elements"):
            sess.run(deq_many)
        np.testing.assert_array_equal(sess.run(up_to), [3])
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(deq)


def test_blocking_dequeue_respects_the_step_deadline() -> None:
    q = FIFOQueue(1, tf.float32, shapes=[[]])
    deq = q.dequeue()
    with tf.Session() as sess:
        t0 = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(deq, options=tf.RunOptions(timeout_in_ms=200))
        assert time.monotonic() - t0 < 3


def test_shared_name_is_shared_across_graphs_on_a_task() -> None:
    # Two graphs on the same in-process master share the task's resource manager.
    from tfcluster.client import session as session_lib
    from tfcluster.client.master_client import InProcessMasterClient
    from tfcluster.distributed.local import new_local_master

    master = new_local_master()
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        enq = FIFOQueue(3, tf.int32, shapes=[[]], shared_name="shared_q").enqueue(5)
    with g2.as_default():
        deq = FIFOQueue(3, tf.int32, shapes=[[]], shared_name="shared_q").dequeue()
        private = FIFOQueue(3, tf.int32, shapes=[[]]).size()
    s1 = session_lib.Session(graph=g1)
    s2 = session_lib.Session(graph=g2)
    for s in (s1, s2):
        s._master = InProcessMasterClient(master)
    s1.run(enq)
    assert s2.run(deq) == 5
    assert s2.run(private) == 0


def test_shape_and_type_errors() -> None:
    q = FIFOQueue(2, tf.float32, shapes=[[2]])
    with pytest.raises(ValueError, match="incompatible"):
        q.enqueue(tf.constant([1.0, 2.0, 3.0]))
    # As TF: values beyond the queue's components are ignored (1.0 is checked, 2.0 not).
    with pytest.raises(ValueError, match="incompatible"):
        q.enqueue([1.0, 2.0])
    with pytest.raises(ValueError, match="fully defined"):
        FIFOQueue(2, tf.float32, shapes=[[None]])
    p = tf.placeholder(tf.float32)
    enq = q.enqueue(p)
    with (
        tf.Session() as sess,
        pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch"),
    ):
        sess.run(enq, {p: [1.0]})


def test_accumulator_averages_and_drops_stale_gradients() -> None:
    acc = ConditionalAccumulator(tf.float32, shape=[2], shared_name="acc")
    g = tf.placeholder(tf.float32, [2])
    step = tf.placeholder(tf.int64, [])
    apply = acc.apply_grad(g, local_step=step)
    take = acc.take_grad(2)
    num = acc.num_accumulated()
    set_step = acc.set_global_step(5)
    with tf.Session() as sess:
        sess.run(apply, {g: [1.0, 2.0], step: 0})
        sess.run(apply, {g: [3.0, 6.0], step: 0})
        assert sess.run(num) == 2
        np.testing.assert_allclose(sess.run(take), [2.0, 4.0])
        assert sess.run(num) == 0
        # take_grad moved the accumulator to step 1: gradients for step 0 are stale now.
        sess.run(apply, {g: [100.0, 100.0], step: 0})
        assert sess.run(num) == 0
        sess.run(set_step)
        sess.run(apply, {g: [1.0, 1.0], step: 4})
        assert sess.run(num) == 0
        sess.run(apply, {g: [1.0, 1.0], step: 5})
        sess.run(apply, {g: [3.0, 5.0], step: 6})
        np.testing.assert_allclose(sess.run(take), [2.0, 3.0])
        bad = tf.placeholder(tf.float32)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch"):
            sess.run(acc.apply_grad(bad, local_step=9), {bad: [1.0, 2.0, 3.0]})


def test_take_grad_blocks_until_enough_and_validates_num_required() -> None:
    acc = ConditionalAccumulator(tf.float64, shape=[])
    apply = acc.apply_grad(tf.constant(4.0, tf.float64))
    take = acc.take_grad(2)
    bad_take = acc.take_grad(0)
    with tf.Session() as sess:
        out: list = []
        t = threading.Thread(target=lambda: out.append(sess.run(take)))
        t.start()
        sess.run(apply)
        time.sleep(0.2)
        assert t.is_alive()
        sess.run(apply)
        t.join(5)
        assert out == [4.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="num_required must be positive"):
            sess.run(bad_take)
    with pytest.raises(TypeError, match="float dtype"):
        ConditionalAccumulator(tf.int32)


def test_dequeue_many_of_large_elements_stacks_them_exactly_and_writeable() -> None:
    # Elements of >= 256 values are stacked through a memoryview (the dequeuing thread keeps
    # the GIL); the batch is the same as numpy's stack, and the caller's to change.
    q = FIFOQueue(10, [tf.float32, tf.int64], shapes=[[16, 20], []])
    x = tf.placeholder(tf.float32, [16, 20])
    i = tf.placeholder(tf.int64, [])
    enq = q.enqueue([x, i])
    xs, ids = q.dequeue_many(3)
    values = [
        np.random.default_rng(k).standard_normal((16, 20)).astype(np.float32) for k in range(3)
    ]
    with tf.Session() as sess:
        for k, v in enumerate(values):
            sess.run(enq, {x: v, i: k})
        got, got_ids = sess.run([xs, ids])
    np.testing.assert_array_equal(got, np.stack(values))
    assert got.dtype == np.float32 and got.shape == (3, 16, 20) and got.flags.writeable
    got[0, 0, 0] = 1.0
    np.testing.assert_array_equal(got_ids, [0, 1, 2])
