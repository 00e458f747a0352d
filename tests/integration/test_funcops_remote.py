"""The functional, debugging, Python-function and sparse ops through remote sessions on task
servers in other processes: a SparseTensorValue is fed to a sparse_placeholder and a
SparseTensor fetched back, Print/print print in the task that runs them, a py_func placed on
a process that does not hold its function fails with InvalidArgumentError (no hang) while one
on a server of the building process runs, and a while loop over TensorArrays trains there."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import TaskProcess, free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


@pytest.fixture(scope="module")
def task() -> TaskProcess:
    (port,) = free_ports(1)
    t = TaskProcess(f"local|localhost:{port}", "local", 0, port).wait_serving()
    yield t
    t.terminate()


def test_sparse_placeholder_is_fed_and_fetched_through_a_remote_session(task: TaskProcess) -> None:
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32, name="sp")
        total = tf.sparse_reduce_sum(sp, 1)
        product = tf.sparse_tensor_dense_matmul(sp, tf.ones([3, 2]))
        words = tf.string_split(tf.placeholder(tf.string, [None], name="lines"))
        value = tf.SparseTensorValue([[0, 0], [1, 2]], [5.0, 6.0], [2, 3])
        with tf.Session(task.target) as sess:
            back, t, p = sess.run([sp, total, product], {sp: value})
            assert isinstance(back, tf.SparseTensorValue)
            assert back.indices.tolist() == [[0, 0], [1, 2]]
            assert back.values.tolist() == [5.0, 6.0]
            assert back.dense_shape.tolist() == [2, 3]
            assert t.tolist() == [5.0, 6.0]
            assert p.tolist() == [[5.0, 5.0], [6.0, 6.0]]
            w = sess.run(words, {"lines:0": ["a b", "c"]})
            assert w.values.tolist() == [b"a", b"b", b"c"]
            assert w.dense_shape.tolist() == [2, 2]
            # A tuple feeds as well; a bad one is TF's error and the session goes on.
            assert sess.run(total, {sp: ([[1, 1]], [2.0], [2, 2])}).tolist() == [0.0, 2.0]
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(tf.sparse_tensor_to_dense(sp), {sp: ([[5, 1]], [2.0], [2, 2])})
            assert sess.run(total, {sp: value}).tolist() == [5.0, 6.0]


def test_print_and_tf_print_print_in_the_task_that_runs_them(
    task: TaskProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    with tf.Graph().as_default():
        x = tf.constant([1, 2, 3])
        y = tf.Print(x, [x], "remote Print: ")
        p = tf.print("remote print:", x * 2)
        with tf.Session(task.target) as sess:
            assert sess.run(y).tolist() == [1, 2, 3]
            sess.run(p)
    out = capsys.readouterr()
    assert "remote Print" not in out.err + out.out  # not in the client's process
    deadline = 50
    while deadline and "remote print:" not in task.stderr():
        time.sleep(0.1)
        deadline -= 1
    log = task.stderr()
    assert "remote Print: [1 2 3]" in log
    assert "remote print: [2 4 6]" in log


def test_a_py_func_on_a_process_without_the_function_is_an_error_not_a_hang(
    task: TaskProcess,
) -> None:
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        y = tf.py_func(lambda v: v * 2, [x], tf.float32)
        z = x + 1.0
        with tf.Session(task.target) as sess:
            with pytest.raises(
                tf.errors.InvalidArgumentError, match=r"callback pyfunc_\d+ is not found"
            ):
                sess.run(y)
            assert sess.run(z).tolist() == [2.0, 3.0]  # the session keeps working


def test_a_py_func_runs_on_a_server_started_by_the_same_program() -> None:
    server = tf.train.Server.create_local_server()
    try:
        with tf.Graph().as_default():
            x = tf.constant([1.0, 2.0])
            y = tf.py_func(lambda v: v * 2, [x], tf.float32)
            e = tf.py_function(lambda v: tf.reduce_sum(v * v), [x], tf.float32)
            (g,) = tf.gradients(e, x)
            with tf.Session(server.target) as sess:
                assert sess.run(y).tolist() == [2.0, 4.0]
                assert sess.run([e, g])[1].tolist() == [2.0, 4.0]
    finally:
        server.stop()


def test_a_while_loop_over_tensor_arrays_trains_on_a_remote_task(task: TaskProcess) -> None:
    rng = np.random.default_rng(0)
    xv = rng.normal(size=(5, 4)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.constant(xv)
        w = tf.Variable(np.eye(4, dtype=np.float32) * 0.5, name="w")
        ys = tf.map_fn(lambda e: tf.tanh(tf.reduce_sum(e * w, axis=1)), x)
        loss = tf.reduce_sum(ys * ys)
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session(task.target) as sess:
            sess.run(tf.global_variables_initializer())
            before = sess.run(loss)
            for _ in range(5):
                sess.run(step)
            after = sess.run(loss)
    assert after < before
    # The same steps in a local session give the same numbers.
    with tf.Graph().as_default():
        x = tf.constant(xv)
        w = tf.Variable(np.eye(4, dtype=np.float32) * 0.5, name="w")
        ys = tf.map_fn(lambda e: tf.tanh(tf.reduce_sum(e * w, axis=1)), x)
        loss = tf.reduce_sum(ys * ys)
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(5):
                sess.run(step)
            assert sess.run(loss) == pytest.approx(after, rel=1e-5)


def test_a_gradient_built_after_a_remote_run_keeps_working(task: TaskProcess) -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, x])
        with tf.Session(task.target) as sess:
            assert sess.run(y, {x: 2.0}) == 16.0
            (g,) = tf.gradients(y, x)  # the loop now keeps its values: a new master session
            assert sess.run(g, {x: 2.0}) == pytest.approx(4 * 2.0**3)
            assert re.match(r"gradients/", g.name)
