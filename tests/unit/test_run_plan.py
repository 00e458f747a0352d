"""Steps after the first run through a compiled straight-line plan (runtime/run_plan.py): the
same values, the same errors naming the failing node, tracing as before; and the host-input
reuse of Shape, Reshape, StridedSlice(Grad) and BroadcastGradientArgs stays right when the
shapes change from one step to the next."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.runtime import executor, run_plan
from tfcluster.runtime.graph_ir import node_from_operation
from tfcluster.runtime.resources import ResourceMgr
from tfcluster.runtime.step_context import StepContext


def _executor(g: tf.Graph, feeds: list[str], fetches: list[str]) -> executor.Executor:
    nodes = [node_from_operation(op) for op in g.get_operations()]
    return executor.Executor(nodes, feeds, fetches, [])


def _ctx(trace: bool = False) -> StepContext:
    return StepContext(1, ResourceMgr(), None, trace=trace)  # type: ignore[arg-type]


def test_plan_is_made_on_the_second_run_and_gives_the_same_values() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        parts = tf.split(x * 2.0, 3, axis=1)  # one node, several outputs
        total = tf.add_n(parts) + tf.constant(1.0)
    ex = _executor(g, ["x:0"], [total.name, parts[1].name])
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    first = ex.run(_ctx(), [xv])
    assert ex._plan is None  # a graph run once never pays for compiling
    for _ in range(3):
        again = ex.run(_ctx(), [xv])
        assert ex._plan is not None
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(first[0], (xv * 2).sum(axis=1, keepdims=True) + 1)


def test_traced_runs_and_graphs_too_big_keep_the_loop() -> None:
    g = tf.Graph()
    with g.as_default():
        y = tf.constant(2.0) * 3.0
    ex = _executor(g, [], [y.name])
    for _ in range(3):
        assert ex.run(_ctx(trace=True), []) == [6.0]
    assert ex._plan is None
    big = _executor(g, [], [y.name])
    big._plannable = False  # as a graph of more than run_plan.MAX_NODES nodes is
    for _ in range(3):
        assert big.run(_ctx(), []) == [6.0]
    assert big._plan is None
    assert run_plan.MAX_NODES > 1000


def test_planned_step_names_the_failing_node_and_the_session_goes_on() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, name="x")
        shape = tf.placeholder(tf.int32, [None], name="shape")
        y = tf.reshape(x, shape, name="reshape_me") + 1.0
    with tf.Session(graph=g) as sess:
        for _ in range(3):  # the later runs go through the plan
            np.testing.assert_array_equal(
                sess.run(y, {x: np.ones(4), shape: [2, 2]}), np.full((2, 2), 2.0)
            )
        with pytest.raises(tf.errors.InvalidArgumentError, match="reshape_me"):
            sess.run(y, {x: np.ones(4), shape: [3, 2]})
        got = sess.run(y, {x: np.ones(6), shape: [3, 2]})
        np.testing.assert_array_equal(got, np.full((3, 2), 2.0))


def test_planned_steps_read_variables_and_update_them() -> None:
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        bump = tf.assign_add(v, [1.0, 1.0])
        doubled = v * 2.0
        init = tf.global_variables_initializer()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        for step in range(4):
            got_v, got_d = sess.run([v, doubled])
            np.testing.assert_array_equal(got_v, [1.0 + step, 2.0 + step])
            np.testing.assert_array_equal(got_d, got_v * 2)
            got_v[0] = -1.0  # a fetched value is the caller's own
            sess.run(bump)


def test_a_traced_run_after_the_plan_still_has_its_step_stats() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        y = tf.identity(x * 3.0, name="tripled")
    with tf.Session(graph=g) as sess:
        for _ in range(3):
            sess.run(y, {x: [1.0, 2.0]})
        meta = tf.RunMetadata()
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        out = sess.run(y, {x: [1.0, 2.0]}, options=opts, run_metadata=meta)
    np.testing.assert_array_equal(out, [3.0, 6.0])
    names = {ns.node_name for d in meta.step_stats.dev_stats for ns in d.node_stats}
    assert "tripled" in names


def test_while_loop_bodies_run_planned_across_steps() -> None:
    g = tf.Graph()
    with g.as_default():
        n = tf.placeholder(tf.int32, [], name="n")
        w = tf.Variable(2.0, name="w")
        _, total = tf.while_loop(
            lambda i, acc: i < n, lambda i, acc: (i + 1, acc + w * tf.cast(i, tf.float32)), [0, 0.0]
        )
        grad = tf.gradients(total, w)[0]
        init = tf.global_variables_initializer()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        for count in (5, 7, 5, 3, 10):
            got, dw = sess.run([total, grad], {n: count})
            want = sum(range(count))
            assert got == pytest.approx(2.0 * want)
            assert dw == pytest.approx(want)


def test_shape_arrays_follow_changing_shapes_and_reach_the_caller_writable() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, None], name="x")
        s = tf.shape(x)
    with tf.Session(graph=g) as sess:
        for rows, cols in ((2, 3), (4, 1), (2, 3), (0, 5)):
            got = sess.run(s, {x: np.zeros((rows, cols))})
            np.testing.assert_array_equal(got, [rows, cols])
            got[0] = 99  # the caller's own copy
        np.testing.assert_array_equal(sess.run(s, {x: np.zeros((2, 3))}), [2, 3])


def test_reshape_and_slices_reused_specs_follow_changing_inputs() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, None], name="x")
        head = x[:, :2]
        flat = tf.reshape(x, tf.shape(x)[::-1])
        grad = tf.gradients(tf.reduce_sum(head * 3.0), x)[0]
    with tf.Session(graph=g) as sess:
        for rows, cols in ((2, 3), (3, 4), (2, 3), (1, 2)):
            xv = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
            got_head, got_flat, got_grad = sess.run([head, flat, grad], {x: xv})
            np.testing.assert_array_equal(got_head, xv[:, :2])
            np.testing.assert_array_equal(got_flat, xv.reshape(cols, rows))
            want = np.zeros_like(xv)
            want[:, :2] = 3.0
            np.testing.assert_array_equal(got_grad, want)


def test_broadcast_gradients_follow_changing_shapes() -> None:
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, name="a")
        b = tf.placeholder(tf.float32, name="b")
        ga, gb = tf.gradients(tf.reduce_sum(a * b), [a, b])
    with tf.Session(graph=g) as sess:
        for sa, sb in (((2, 3), (3,)), ((2, 3), (2, 1)), ((2, 3), (3,)), ((4,), (1,))):
            av, bv = np.ones(sa, np.float32), np.full(sb, 2.0, np.float32)
            got_a, got_b = sess.run([ga, gb], {a: av, b: bv})
            assert got_a.shape == sa and got_b.shape == sb
            np.testing.assert_allclose(got_a, np.full(sa, 2.0))
            np.testing.assert_allclose(got_b, np.full(sb, av.size / bv.size))


def test_fed_shapes_are_checked_against_partial_shapes() -> None:
    from tfcluster.framework.tensor_shape import TensorShape, fits

    assert fits(TensorShape(None), (2, 3))
    assert fits(TensorShape([None, 3]), (5, 3))
    assert not fits(TensorShape([None, 3]), (5, 4))
    assert not fits(TensorShape([None, 3]), (3,))
    assert fits(TensorShape([]), ())
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = x + 1.0
    with tf.Session(graph=g) as sess:
        for _ in range(3):
            sess.run(y, {x: np.zeros((2, 3))})
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(2, 4\)"):
            sess.run(y, {x: np.zeros((2, 4))})
        np.testing.assert_array_equal(sess.run(y, {x: np.zeros((1, 3))}), np.ones((1, 3)))


def test_steps_on_several_threads_get_their_own_shapes() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, None], name="x")
        head = x[:, :1]
        flat = tf.reshape(x, tf.shape(x)[::-1])
        grad = tf.gradients(tf.reduce_sum(head * x[:, 1:2]), x)[0]
    errors: list[BaseException] = []
    with tf.Session(graph=g) as sess:

        def work(rows: int, cols: int) -> None:
            xv = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
            try:
                for _ in range(200):
                    got_head, got_flat, got_grad = sess.run([head, flat, grad], {x: xv})
                    np.testing.assert_array_equal(got_head, xv[:, :1])
                    np.testing.assert_array_equal(got_flat, xv.reshape(cols, rows))
                    assert got_grad.shape == (rows, cols)
            except BaseException as e:  # reported to the test
                errors.append(e)

        threads = [threading.Thread(target=work, args=s) for s in ((2, 3), (5, 2), (3, 4))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors[0]


def test_element_wise_ops_in_a_plan_keep_their_dtypes_values_and_errors() -> None:
    # A plan calls a binary kernel's direct form (kernels/math.py; BiasAdd's, AddN's): two
    # float arrays give the kernel's values; anything else goes through the kernel itself.
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [None, None], name="a")
        b = tf.placeholder(tf.float32, [None, None], name="b")
        n = tf.placeholder(tf.int32, [None], name="n")
        prod = tf.multiply(a, b, name="prod")
        clipped = tf.minimum(prod, 0.5)
        quotient = tf.truncatediv(n, tf.constant(2))
        scalar = tf.reduce_sum(a) * 2.0
        biased = tf.nn.bias_add(prod, tf.constant([1.0, 2.0, 3.0, 4.0]), name="biased")
        summed = tf.add_n([biased, a], name="summed")
    fetches = [clipped.name, quotient.name, scalar.name, summed.name]
    ex = _executor(g, ["a:0", "b:0", "n:0"], fetches)
    rng = np.random.default_rng(4)
    av = rng.standard_normal((3, 4)).astype(np.float32)
    bv = rng.standard_normal((3, 4)).astype(np.float32)
    nv = np.array([-5, 7], np.int32)
    first = ex.run(_ctx(), [av, bv, nv])  # kernel by kernel: no plan yet
    got, q, s, total = first
    assert got.dtype == np.float32 and q.dtype == np.int32 and s.dtype == np.float32
    assert got.tobytes() == np.minimum(av * bv, np.float32(0.5)).tobytes()
    np.testing.assert_array_equal(q, [-2, 3])  # C++'s division, toward zero
    assert total.tobytes() == ((av * bv + np.float32([1, 2, 3, 4])) + av).tobytes()
    direct_calls: list[str] = []

    def counting(name: str, direct: Any) -> Any:
        def counted(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            direct_calls.append(name)
            return direct(x, y)

        return counted

    for step in ex.steps:
        if step.name in ("prod", "biased", "summed"):
            step.fn.direct = counting(step.name, step.fn.direct)
    for _ in range(3):  # the later runs go through the plan
        again = ex.run(_ctx(), [av, bv, nv])
        for x, y in zip(first, again):
            assert type(x) is type(y) and x.dtype == y.dtype and x.tobytes() == y.tobytes()
    assert ex._plan is not None
    # the plan called the product's, the bias's and the sum's direct forms
    assert sorted(direct_calls) == ["biased"] * 3 + ["prod"] * 3 + ["summed"] * 3
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes(.|\n)*prod"):
        ex.run(_ctx(), [av, bv[:, :3], nv])
