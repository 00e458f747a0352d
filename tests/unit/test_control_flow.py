"""Functional control flow: tf.cond, tf.case, tf.while_loop (If / While ops), values against
numpy, static shapes, gradients against finite differences, variables inside branches,
GraphDef round trips and a two-task cluster."""

from __future__ import annotations

import collections
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.gradient_check import assert_gradients_match
from tfcluster.distributed.master import Master
from tfcluster.distributed.worker import Worker
from tfcluster.framework import errors
from tfcluster.runtime.graph_ir import nodes_from_graph_def


def _run(fetches: Any, feed: dict[Any, Any] | None = None) -> Any:
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def _functional_op(result: tf.Tensor, tf1_name: str) -> tf.Operation:
    """The If/While op behind a cond's or loop's result: an Identity named as TF1's Merge or
    Exit (`cond/Merge`, `while/Exit_1`) reads it."""
    assert result.op.type == "Identity" and result.op.name.endswith(tf1_name), result.op.name
    return result.op.inputs[0].op


# ---- tf.cond ---------------------------------------------------------------------------------
def test_cond_picks_the_branch_at_run_time() -> None:
    x = tf.placeholder(tf.float32, [3])
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: x * 2.0, lambda: x - 1.0)
    assert r.dtype == tf.float32 and r.shape.as_list() == [3]
    assert _functional_op(r, "cond/Merge").type == "StatelessIf"
    xv = np.array([1.0, 2.0, 3.0], np.float32)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(r, {x: xv, p: True}), xv * 2)
        np.testing.assert_allclose(sess.run(r, {x: xv, p: False}), xv - 1)
        assert sess.run(r, {x: xv, p: True}).dtype == np.float32


def test_cond_python_structures_and_singletons() -> None:
    a = tf.placeholder(tf.int32, [])
    P = collections.namedtuple("P", ["u", "v"])
    out = tf.cond(
        a > 0,
        lambda: {"sum": a + 1, "pair": P(a * 2, [tf.cast(a, tf.float64)])},
        lambda: {"sum": a - 1, "pair": P(a * 3, [tf.constant(0.5, tf.float64)])},
    )
    assert set(out) == {"sum", "pair"} and isinstance(out["pair"], P)
    assert out["pair"].v[0].dtype == tf.float64
    single = tf.cond(a > 0, lambda: [a], lambda: [a * 0])
    strict = tf.cond(a > 0, lambda: [a], lambda: [a * 0], strict=True)
    assert isinstance(single, tf.Tensor) and isinstance(strict, list)
    with tf.Session() as sess:
        got = sess.run(out, {a: 4})
        assert got["sum"] == 5 and got["pair"].u == 8 and got["pair"].v[0] == 4.0
        got = sess.run(out, {a: -2})
        assert got["sum"] == -3 and got["pair"].u == -6 and got["pair"].v[0] == 0.5
        assert sess.run(single, {a: 3}) == 3 and sess.run(strict, {a: -3}) == [0]


def test_cond_relaxes_static_shapes_of_differing_branches() -> None:
    x = tf.placeholder(tf.float32, [2, 3])
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: x, lambda: tf.concat([x, x], axis=1))
    assert r.shape.as_list() == [2, None]
    r2 = tf.cond(p, lambda: x, lambda: tf.reshape(x, [6]))
    assert r2.shape.ndims is None
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Session() as sess:
        assert sess.run(r, {x: xv, p: False}).shape == (2, 6)
        assert sess.run(r2, {x: xv, p: False}).shape == (6,)


def test_cond_captures_only_used_in_one_branch_and_constants() -> None:
    x = tf.placeholder(tf.float32, [])
    y = tf.placeholder(tf.float32, [])
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: x * 10.0, lambda: y + 7.0)
    # Both captures are inputs of the one op: pred + x + y.
    assert len(_functional_op(r, "cond/Merge").inputs) == 3
    with tf.Session() as sess:
        assert sess.run(r, {x: 2.0, y: 3.0, p: True}) == 20.0
        assert sess.run(r, {x: 2.0, y: 3.0, p: False}) == 10.0
        assert sess.run(tf.cond(p, lambda: 1.0, lambda: 2.0), {p: False}) == 2.0


def test_nested_cond() -> None:
    x = tf.placeholder(tf.float32, [])

    def sign_bucket() -> tf.Tensor:
        return tf.cond(
            x > 0.0,
            lambda: tf.cond(x > 10.0, lambda: x * 100.0, lambda: x * 10.0),
            lambda: tf.cond(x < -10.0, lambda: -x, lambda: x - 1.0),
        )

    r = sign_bucket()
    assert r.shape.as_list() == []
    with tf.Session() as sess:
        for xv, want in [(20.0, 2000.0), (3.0, 30.0), (-20.0, 20.0), (-3.0, -4.0)]:
            assert sess.run(r, {x: xv}) == pytest.approx(want)


def test_cond_returning_ops_and_control_dependencies_inside() -> None:
    v = tf.Variable(0.0)
    p = tf.placeholder(tf.bool, [])
    first = tf.assign_add(v, 1.0)

    def true_fn() -> Any:
        with tf.control_dependencies([first]):  # an outer op: the whole If waits for it
            return tf.group(tf.assign_add(v, 10.0))

    op = tf.cond(p, true_fn, lambda: tf.no_op())
    assert isinstance(op, tf.Operation) and first.op in op.control_inputs
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(op, {p: True})
        assert sess.run(v) == 11.0
        sess.run(op, {p: False})
        assert sess.run(v) == 12.0


def test_case() -> None:
    x = tf.placeholder(tf.int32, [])
    r = tf.case(
        [(x < 0, lambda: tf.constant(-1)), (tf.equal(x, 0), lambda: tf.constant(0))],
        default=lambda: tf.constant(1),
    )
    by_dict = tf.case({x > 5: lambda: x * 2}, default=lambda: x)
    no_default = tf.case([(x < 0, lambda: x * 0), (x >= 0, lambda: x + 1)])
    with tf.Session() as sess:
        assert [sess.run(r, {x: v}) for v in (-3, 0, 4)] == [-1, 0, 1]
        assert sess.run(by_dict, {x: 7}) == 14 and sess.run(by_dict, {x: 2}) == 2
        assert sess.run(no_default, {x: 3}) == 4 and sess.run(no_default, {x: -3}) == 0


# ---- tf.while_loop ------------------------------------------------------------------------
def test_while_counter_sum_one_to_n() -> None:
    n = tf.placeholder(tf.int32, [])
    i, s = tf.while_loop(lambda i, s: i <= n, lambda i, s: (i + 1, s + i), (1, 0))
    assert i.dtype == tf.int32 and s.shape.as_list() == []
    assert _functional_op(i, "while/Exit").type == "StatelessWhile"
    with tf.Session() as sess:
        for nv in (0, 1, 10, 100):
            assert sess.run(s, {n: nv}) == nv * (nv + 1) // 2


def test_while_single_loop_var_returns_a_tensor() -> None:
    r = tf.while_loop(lambda x: x < 100, lambda x: x * 2, [tf.constant(3)])
    same = tf.while_loop(
        lambda x: x < 100, lambda x: [x * 2], [tf.constant(3)], return_same_structure=True
    )
    bare = tf.while_loop(lambda x: x < 100, lambda x: x * 3, tf.constant(1))
    assert isinstance(r, tf.Tensor) and isinstance(same, list)
    assert _run([r, same, bare]) == [192, [192], 243]


def test_while_power_series_of_exp() -> None:
    x = tf.placeholder(tf.float64, [4])

    def body(k: tf.Tensor, term: tf.Tensor, total: tf.Tensor) -> tuple[Any, ...]:
        k1 = k + 1.0
        term = term * x / k1
        return k1, term, total + term

    ones = tf.ones([4], tf.float64)
    _, _, total = tf.while_loop(
        lambda k, term, total: k < 30.0, body, [tf.constant(0.0, tf.float64), ones, ones]
    )
    assert total.shape.as_list() == [4]
    xv = np.array([-1.5, 0.0, 0.7, 2.0])
    np.testing.assert_allclose(_run(total, {x: xv}), np.exp(xv), rtol=1e-12)


def test_while_nested_loop_vars_structure() -> None:
    State = collections.namedtuple("State", ["step", "acc"])
    init = (State(tf.constant(0), {"a": tf.constant([1.0, 1.0]), "b": [tf.constant(2.0)]}),)

    def body(state: Any) -> Any:
        acc = state.acc
        return (
            State(
                state.step + 1, {"a": acc["a"] * 2.0, "b": [acc["b"][0] + tf.reduce_sum(acc["a"])]}
            ),
        )

    (out,) = tf.while_loop(lambda s: s.step < 3, body, init)
    assert isinstance(out, State) and out.acc["a"].shape.as_list() == [2]
    got = _run(out)
    assert got.step == 3
    np.testing.assert_allclose(got.acc["a"], [8.0, 8.0])
    assert got.acc["b"][0] == pytest.approx(2.0 + 2.0 + 4.0 + 8.0)


def test_while_maximum_iterations() -> None:
    limit = tf.placeholder(tf.int32, [])
    i = tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [0], maximum_iterations=limit)
    j = tf.while_loop(lambda j: j < 3, lambda j: j + 1, [0], maximum_iterations=10)
    with tf.Session() as sess:
        assert sess.run(i, {limit: 5}) == 5
        assert sess.run(i, {limit: 0}) == 0
        assert sess.run(j) == 3
        with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
            sess.run(i, {limit: -1})


def test_while_runaway_loop_stops_at_the_step_deadline() -> None:
    i = tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0, tf.int64)])
    with tf.Session() as sess, pytest.raises(tf.errors.DeadlineExceededError):
        sess.run(i, options=tf.RunOptions(timeout_in_ms=200))


def test_while_shape_invariants() -> None:
    x0 = tf.constant([1.0])
    with pytest.raises(ValueError, match="shape_invariants"):
        tf.while_loop(lambda x: tf.size(x) < 8, lambda x: tf.concat([x, x], 0), [x0])
    out = tf.while_loop(
        lambda x: tf.size(x) < 8,
        lambda x: tf.concat([x, x * 2.0], 0),
        [x0],
        shape_invariants=[tf.TensorShape([None])],
    )
    assert out.shape.as_list() == [None]
    np.testing.assert_allclose(_run(out), [1, 2, 2, 4, 2, 4, 4, 8])
    with pytest.raises(ValueError, match="not compatible with the initial shape"):
        tf.while_loop(lambda x: True, lambda x: x, [x0], shape_invariants=[tf.TensorShape([2])])


def test_cond_inside_while_collatz() -> None:
    n = tf.placeholder(tf.int64, [])

    def body(v: tf.Tensor, steps: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        nxt = tf.cond(tf.equal(v % 2, 0), lambda: v // 2, lambda: 3 * v + 1)
        return nxt, steps + 1

    _, steps = tf.while_loop(lambda v, s: v > 1, body, [n, tf.constant(0)])

    def collatz(v: int) -> int:
        k = 0
        while v > 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            k += 1
        return k

    with tf.Session() as sess:
        for v in (1, 6, 27):
            assert sess.run(steps, {n: v}) == collatz(v)


def test_nested_while_loops() -> None:
    n = tf.placeholder(tf.int32, [])

    def outer(i: tf.Tensor, total: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        _, inner_sum = tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + j * i), [0, 0])
        return i + 1, total + inner_sum

    _, total = tf.while_loop(lambda i, t: i < n, outer, [0, 0])
    want = sum(j * i for i in range(7) for j in range(i))
    assert _run(total, {n: 7}) == want


# ---- variables inside branches and bodies ----------------------------------------------------
def test_cond_reads_a_variable_and_assign_adds_in_a_branch() -> None:
    v = tf.Variable(1.0)
    counter = tf.Variable(0, dtype=tf.int32)
    p = tf.placeholder(tf.bool, [])

    def true_fn() -> tf.Tensor:
        tf.assign_add(counter, 1)  # unused result: it runs anyway, as the branch runs
        return tf.assign_add(v, 2.0)

    r = tf.cond(p, true_fn, lambda: v * 10.0)
    assert _functional_op(r, "cond/Merge").type == "If" and r.dtype == tf.float32
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(r, {p: True}) == 3.0
        assert sess.run(r, {p: True}) == 5.0
        assert sess.run(r, {p: False}) == 50.0
        assert sess.run([v, counter]) == [5.0, 2]


def test_while_body_assign_adds_every_iteration() -> None:
    v = tf.Variable(0.0)

    def body(i: tf.Tensor) -> tf.Tensor:
        with tf.control_dependencies([tf.assign_add(v, tf.cast(i, tf.float32))]):
            return i + 1

    loop = tf.while_loop(lambda i: i < 5, body, [0])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(loop) == 5
        assert sess.run(v) == 10.0


def test_random_op_in_a_branch_keeps_its_state_across_steps() -> None:
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: tf.random_uniform([4], seed=3), lambda: tf.zeros([4]))
    with tf.Session() as sess:
        a, b = sess.run(r, {p: True}), sess.run(r, {p: True})
    assert not np.array_equal(a, b) and np.all((a >= 0) & (a < 1))


def test_a_variable_made_in_a_branch_lives_in_the_enclosing_graph() -> None:
    # As TF's init_scope: the variable and its initializer leave the body being built. Its
    # name is in the cond's (the loop's) scope, as TF1 names them (recorded under TF 1.15).
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: tf.Variable(1.0, name="in_branch").value() * 2.0, lambda: 0.0)
    x = tf.while_loop(lambda i: i < 3.0, lambda i: i + tf.Variable(1.0, name="in_loop"), [1.0])
    assert [v.op.name for v in tf.global_variables()] == ["cond/in_branch", "while/in_loop"]
    assert tf.get_default_graph().get_operation_by_name("cond/in_branch").type == "VariableV2"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(r, {p: True}) == 2.0
        assert sess.run(r, {p: False}) == 0.0
        assert sess.run(x) == 3.0


# ---- gradients -----------------------------------------------------------------------------
@pytest.mark.parametrize("take", [True, False])
def test_cond_gradient_matches_finite_differences(take: bool) -> None:
    def build(x: tf.Tensor, w: tf.Tensor) -> tf.Tensor:
        return tf.cond(
            tf.constant(take),
            lambda: tf.tanh(tf.matmul(x, w)) * x[:, :1],
            lambda: tf.matmul(x * x, w) + 3.0,
        )

    rng = np.random.default_rng(1)
    assert_gradients_match(build, [rng.normal(size=(2, 3)), rng.normal(size=(3, 2))])


def test_nested_cond_and_case_gradients() -> None:
    def build(x: tf.Tensor) -> tf.Tensor:
        s = tf.reduce_sum(x)
        return tf.cond(
            s > 0.0,
            lambda: tf.cond(s > 100.0, lambda: x, lambda: tf.sin(x) * x),
            lambda: tf.case([(s < -100.0, lambda: -x)], default=lambda: x * x * x),
        )

    assert_gradients_match(build, [np.array([0.3, 0.5, -0.1])])
    assert_gradients_match(build, [np.array([-0.3, 0.5, -0.9])])


def test_cond_gradient_of_one_branch_is_zero_for_the_other_capture() -> None:
    x = tf.placeholder(tf.float32, [2])
    y = tf.placeholder(tf.float32, [2])
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: x * x, lambda: y * 3.0)
    gx, gy = tf.gradients(tf.reduce_sum(r), [x, y])
    assert gx.shape.as_list() == [2] and gx.dtype == tf.float32
    feed = {x: [1.0, 2.0], y: [5.0, 6.0]}
    with tf.Session() as sess:
        got = sess.run([gx, gy], {**feed, p: True})
        np.testing.assert_allclose(got[0], [2.0, 4.0])
        np.testing.assert_allclose(got[1], [0.0, 0.0])
        got = sess.run([gx, gy], {**feed, p: False})
        np.testing.assert_allclose(got[0], [0.0, 0.0])
        np.testing.assert_allclose(got[1], [3.0, 3.0])


def test_cond_gradient_reuses_the_forward_random_draw_and_side_effects() -> None:
    x = tf.placeholder(tf.float32, [5])
    v = tf.Variable(2.0)
    calls = tf.Variable(0.0)
    p = tf.placeholder(tf.bool, [])

    def true_fn() -> tf.Tensor:
        with tf.control_dependencies([tf.assign_add(calls, 1.0)]):
            return x * tf.random_uniform([5]) * v

    r = tf.cond(p, true_fn, lambda: x * v)
    gx, gv = tf.gradients(tf.reduce_sum(r), [x, v])
    xv = np.arange(1, 6, dtype=np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, g, g_v = sess.run([r, gx, gv], {x: xv, p: True})
        mask = out / (xv * 2.0)
        np.testing.assert_allclose(g, mask * 2.0, rtol=1e-6)  # the same draw, not a new one
        assert g_v == pytest.approx(float(np.sum(xv * mask)), rel=1e-5)
        assert sess.run(calls) == 1.0  # the gradient did not run the branch's assign again
        np.testing.assert_allclose(sess.run(gx, {x: xv, p: False}), [2.0] * 5)


def test_while_gradient_matches_finite_differences() -> None:
    def build(x: tf.Tensor, c: tf.Tensor) -> tf.Tensor:
        def body(i: tf.Tensor, y: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
            return i + 1, tf.sin(y) * c + y * x

        _, y = tf.while_loop(lambda i, y: i < 4, body, [0, x])
        return y

    rng = np.random.default_rng(2)
    # A small step: four nested sin() make the central difference's error show at 1e-3.
    assert_gradients_match(build, [rng.normal(size=3) * 0.5, rng.normal(size=3)], delta=1e-5)


def test_while_gradient_with_maximum_iterations_and_power() -> None:
    x = tf.placeholder(tf.float64, [])
    limit = tf.placeholder(tf.int32, [])
    _, y = tf.while_loop(
        lambda i, y: i < 100,
        lambda i, y: (i + 1, y * x),
        # A tuple, as the body returns: TF 1.15 rejects a list here (TypeError).
        (0, tf.constant(1.0, tf.float64)),
        maximum_iterations=limit,
    )
    (g,) = tf.gradients(y, x)
    with tf.Session() as sess:
        for n in (0, 1, 5):
            assert sess.run(g, {x: 1.5, limit: n}) == pytest.approx(n * 1.5 ** max(n - 1, 0))


def test_gradient_through_cond_inside_while_and_while_inside_cond() -> None:
    def cond_in_while(x: tf.Tensor) -> tf.Tensor:
        def body(i: tf.Tensor, y: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
            y = tf.cond(tf.equal(i % 2, 0), lambda: y * y, lambda: tf.sin(y))
            return i + 1, y

        return tf.while_loop(lambda i, y: i < 3, body, [0, x])[1]

    def while_in_cond(x: tf.Tensor) -> tf.Tensor:
        def loop() -> tf.Tensor:
            return tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, x])[1]

        return tf.cond(tf.reduce_sum(x) > 0.0, loop, lambda: x)

    assert_gradients_match(cond_in_while, [np.array([0.4, -0.7])])
    assert_gradients_match(while_in_cond, [np.array([0.4, 0.7])])


def test_while_gradient_with_a_random_op_in_the_body_uses_the_forward_draws() -> None:
    v = tf.Variable(1.0, dtype=tf.float64)
    x = tf.placeholder(tf.float64, [])

    def body(i: tf.Tensor, y: tf.Tensor, draws: tf.TensorArray) -> tuple[Any, ...]:
        u = tf.random_uniform([], dtype=tf.float64)
        return i + 1, y * x + u, draws.write(i, u)

    draws = tf.TensorArray(tf.float64, size=3)
    _, y, draws = tf.while_loop(lambda i, y, d: i < 3, body, [0, x, draws])
    (g,) = tf.gradients(y, x)
    with tf.Session() as sess:
        xv = 0.5
        gv, u = sess.run([g, draws.stack()], {x: xv})
    # y = ((x*x + u0)*x + u1)*x + u2, so dy/dx = 4x^3 + 2*u0*x + u1 with this step's draws.
    assert gv == pytest.approx(4 * xv**3 + 2 * u[0] * xv + u[1], rel=1e-12)
    no_backprop = tf.while_loop(lambda y: y < 3.0, lambda y: y + v, [x], back_prop=False)
    assert tf.gradients(no_backprop, x) == [None]


# ---- serialisation and distribution --------------------------------------------------------
def _model() -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    x = tf.placeholder(tf.float32, [3], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: tf.reduce_sum(x * x), lambda: tf.reduce_max(x), name="pick")
    _, s = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + r), [0, 0.0], name="loop")
    (g,) = tf.gradients(s, x)
    return r, s, g


def test_graph_def_round_trip_runs_the_same() -> None:
    r, s, g = _model()
    feed = {"x:0": np.array([1.0, -2.0, 3.0], np.float32)}
    with tf.Session() as sess:
        want = [sess.run([r.name, s.name, g.name], {**feed, "p:0": pv}) for pv in (True, False)]
    graph_def = tf.GraphDef.FromString(tf.get_default_graph().as_graph_def().SerializeToString())
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(graph_def, name="")
        # A gradient built on the imported ops (bodies parsed back from their attrs).
        x2 = g2.get_tensor_by_name("x:0")
        (g_again,) = tf.gradients(g2.get_tensor_by_name(s.name), x2)
        with tf.Session(graph=g2) as sess:
            for pv, w in zip((True, False), want):
                got = sess.run([r.name, s.name, g.name, g_again], {**feed, "p:0": pv})
                for a, b in zip(got, [*w, w[2]]):
                    np.testing.assert_allclose(a, b, rtol=1e-6)


class _InProcessCluster:
    """Two task workers in this process; RecvTensor goes straight to the peer."""

    def __init__(self, tasks: list[str]) -> None:
        self.workers = {t: Worker(t, worker_cache=self) for t in tasks}

    def tasks(self) -> list[str]:
        return list(self.workers)

    def worker(self, task: str) -> Any:
        return self.workers[task]

    def addresses(self) -> dict[str, str]:
        return {}

    def learn_peers(self, addresses: Mapping[str, str]) -> None:
        """In-process: no task is reached by address."""

    def is_local(self, task: str) -> bool:
        return False


def test_two_task_cluster_from_a_graph_def() -> None:
    ps, wk = "/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0"
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(3.0, name="v")
        hits = tf.Variable(0.0, name="hits")
    with tf.device("/job:worker/task:0"):
        x = tf.placeholder(tf.float32, [], name="x")
        # Reads v (on ps) by value: it crosses tasks as an input of the If on the worker.
        r = tf.cond(x > 0.0, lambda: v * x, lambda: -x, name="read")
        # Updates hits: the If runs where the variable lives.
        bump = tf.cond(x > 0.0, lambda: tf.assign_add(hits, 1.0), lambda: hits + 0.0, name="bump")
    graph = tf.get_default_graph()
    nodes = nodes_from_graph_def(graph.as_graph_def())
    out_dtypes = {t.name: t.dtype.base_dtype for op in graph.get_operations() for t in op.outputs}
    cluster = _InProcessCluster([ps, wk])
    master = Master(cluster, wk)
    handle = master.create_session(nodes, out_dtypes)
    init = tf.global_variables_initializer()
    master.extend_session(handle, nodes_from_graph_def(graph.as_graph_def())[len(nodes) :], {})
    master.run_step(handle, {}, [], [init.name])
    fetched, _ = master.run_step(handle, {"x:0": np.float32(2.0)}, [r.name, bump.name], [])
    assert fetched == [6.0, 1.0]
    fetched, _ = master.run_step(handle, {"x:0": np.float32(-2.0)}, [r.name, bump.name], [])
    assert fetched == [2.0, 1.0]
    plan = master.session(handle)._plans[(("x:0",), (r.name, bump.name), ())]
    by_task = {p.task: {n.name for n in p.partition.nodes} for p in plan.parts}
    # The If and the Identity named as its Merge on the worker; the cond that updates a ref
    # variable runs as TF1's Switch/Merge, its Merge (`bump/Merge`) the result, on the ps.
    assert {"read", "read/Merge"} <= by_task[wk] and {"bump/Merge", "bump/Switch_0"} <= by_task[ps]
    master.close()


# ---- errors ----------------------------------------------------------------------------------
def test_cond_predicate_errors() -> None:
    x = tf.constant(1.0)
    with pytest.raises(TypeError, match="bool"):
        tf.cond(x, lambda: x, lambda: x)
    with pytest.raises(ValueError, match="scalar"):
        tf.cond(tf.constant([True, False]), lambda: x, lambda: x)
    with pytest.raises(TypeError, match="Python bool"):
        tf.cond(True, lambda: x, lambda: x)
    with pytest.raises(TypeError, match="callable"):
        tf.cond(tf.constant(True), x, lambda: x)
    p = tf.placeholder(tf.bool, None)
    r = tf.cond(p, lambda: x, lambda: x + 1.0)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="scalar"):
        sess.run(r, {p: [True, False]})


def test_cond_branch_mismatches() -> None:
    p = tf.placeholder(tf.bool, [])
    a, b = tf.constant(1.0), tf.constant(2)
    with pytest.raises(ValueError, match="same nested structure"):
        tf.cond(p, lambda: (a, a), lambda: a)
    with pytest.raises(ValueError, match="same nested structure"):
        tf.cond(p, lambda: {"k": a}, lambda: {"j": a})
    with pytest.raises(ValueError, match="same type"):
        tf.cond(p, lambda: a, lambda: b)
    with pytest.raises(ValueError, match="return value"):
        tf.cond(p, lambda: None, lambda: a)


def test_while_loop_errors() -> None:
    i0 = tf.constant(0)
    with pytest.raises(TypeError, match="bool"):
        tf.while_loop(lambda i: i, lambda i: i + 1, [i0])
    with pytest.raises(ValueError, match="same structure"):
        tf.while_loop(lambda i, j: i < 3, lambda i, j: i + 1, [i0, i0])
    with pytest.raises(TypeError, match="enters the loop with type int32"):
        tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32), [i0])
    with pytest.raises(TypeError, match="callable"):
        tf.while_loop(lambda i: i < 3, None, [i0])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="No loop variables"):
        tf.while_loop(lambda: True, lambda: (), [])
    with pytest.raises(ValueError, match="maximum_iterations must be a scalar"):
        tf.while_loop(lambda i: i < 3, lambda i: i + 1, [i0], maximum_iterations=[1, 2])


def test_a_failing_body_names_the_node() -> None:
    x = tf.placeholder(tf.float32, None)
    r = tf.while_loop(lambda y: tf.reduce_sum(y) < 10.0, lambda y: tf.reshape(y, [3]) + 1.0, [x])
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError, match="while"):
            sess.run(r, {x: [1.0, 2.0]})
        assert sess.run(r, {x: [1.0, 2.0, 3.0]}).tolist() == [3.0, 4.0, 5.0]


def test_optimizer_step_inside_a_branch_sees_outer_collections() -> None:
    w = tf.Variable([1.0, -1.0])
    step = tf.train.get_or_create_global_step()
    p = tf.placeholder(tf.bool, [])

    def train() -> tf.Operation:
        assert tf.train.get_global_step() is step
        loss = tf.reduce_sum(w * w)
        return tf.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=step)

    op = tf.cond(p, train, lambda: tf.no_op())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(op, {p: True})
        sess.run(op, {p: False})
        np.testing.assert_allclose(sess.run(w), [0.5, -0.5])
        assert sess.run(step) == 1


def test_assign_add_in_nested_cond_and_in_a_cond_inside_a_loop() -> None:
    v = tf.Variable(0.0)
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(
        p, lambda: tf.cond(p, lambda: tf.assign_add(v, 1.0), lambda: v + 0.0), lambda: v + 100.0
    )

    def body(i: tf.Tensor) -> tf.Tensor:
        even = tf.equal(i % 2, 0)
        bump = tf.cond(even, lambda: tf.assign_add(v, 10.0), lambda: tf.identity(v))
        with tf.control_dependencies([bump]):
            return i + 1

    loop = tf.while_loop(lambda i: i < 4, body, [0])
    assert _functional_op(loop, "while/Exit").type == "While"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert [sess.run(r, {p: pv}) for pv in (True, True, False)] == [1.0, 2.0, 102.0]
        assert sess.run(loop) == 4 and sess.run(v) == 22.0
