"""tf.CriticalSection runs its section one step at a time (and a failed step does not keep
the mutex); tf.nondifferentiable_batch_function batches concurrent session.run calls."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
import tfcluster as tf


def _overlap_probe() -> tuple[object, list[int]]:
    state = {"inside": 0}
    peaks: list[int] = []
    lock = threading.Lock()

    def enter_and_leave(x: np.ndarray) -> np.ndarray:
        with lock:
            state["inside"] += 1
            peaks.append(state["inside"])
        time.sleep(0.02)
        with lock:
            state["inside"] -= 1
        return x

    return enter_and_leave, peaks


def test_a_critical_section_is_run_by_one_step_at_a_time() -> None:
    probe, peaks = _overlap_probe()
    with tf.Graph().as_default():
        v = tf.Variable(0, name="v")
        cs = tf.CriticalSection()

        def body():
            read = tf.py_func(probe, [v.read_value()], tf.int32)
            return v.assign(read + 1)

        out = cs.execute(body)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            threads = [
                threading.Thread(target=lambda: [s.run(out) for _ in range(4)]) for _ in range(3)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert s.run(v) == 12  # no lost update
    assert max(peaks) == 1


def test_a_failed_step_gives_the_mutex_back() -> None:
    def fail(x: np.ndarray) -> np.ndarray:
        raise ValueError("boom")

    with tf.Graph().as_default():
        cs = tf.CriticalSection(shared_name="shared_cs")
        bad = cs.execute(lambda: tf.py_func(fail, [tf.constant(1)], tf.int32))
        good = cs.execute(lambda: tf.constant(7))
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError):
                s.run(bad)
            assert s.run(good, options=tf.RunOptions(timeout_in_ms=5000)) == 7


def test_concurrent_calls_are_batched_and_split_back() -> None:
    sizes: list[int] = []

    def record(x: np.ndarray) -> np.ndarray:
        sizes.append(int(x.shape[0]))
        return x

    with tf.Graph().as_default():

        @tf.nondifferentiable_batch_function(1, 8, 200000, allowed_batch_sizes=[4, 8])
        def twice(x):
            seen = tf.py_func(record, [x], tf.float32)
            return seen * 2.0

        a = tf.placeholder(tf.float32, [None, 2])
        (out,) = twice(a)
        results: dict[int, np.ndarray] = {}
        with tf.Session() as s:

            def run(i: int) -> None:
                results[i] = s.run(out, {a: np.full((i, 2), i, np.float32)})

            threads = [threading.Thread(target=run, args=(i,)) for i in (1, 2, 3)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for i in (1, 2, 3):
                np.testing.assert_allclose(results[i], np.full((i, 2), 2.0 * i))
            with pytest.raises(tf.errors.InvalidArgumentError, match="larger than maximum"):
                s.run(out, {a: np.zeros((9, 2), np.float32)})
    assert all(n in (4, 8) for n in sizes)  # padded to an allowed batch size
    assert sum(sizes) < 3 * 4  # at least two calls shared a batch


def test_batch_function_takes_tensors_only() -> None:
    with tf.Graph().as_default():
        f = tf.nondifferentiable_batch_function(1, 4, 1000)(lambda x: x)
        with pytest.raises(ValueError, match="supposed to be Tensors"):
            f(3.0)
