"""The local Session: fetch structures, feeds, targets, pruning, plan cache, errors, traces."""

from __future__ import annotations

import collections
import contextlib
import io
import threading

import numpy as np
import pytest
import tfcluster as tf


def test_two_local_sessions_keep_their_own_variable_values() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        var = tf.Variable(initial_value=0.0)
        sess1 = tf.Session()
        sess2 = tf.Session()
        sess1.run(tf.global_variables_initializer())
        sess2.run(tf.global_variables_initializer())
        print("Initial value of var in session 1:", sess1.run(var))
        print("Initial value of var in session 2:", sess2.run(var))
        sess1.run(var.assign_add(1.0))
        print("Incremented var in session 1")
        print("Value of var in session 1:", sess1.run(var))
        print("Value of var in session 2:", sess2.run(var))
    assert out.getvalue() == (
        "Initial value of var in session 1: 0.0\n"
        "Initial value of var in session 2: 0.0\n"
        "Incremented var in session 1\n"
        "Value of var in session 1: 1.0\n"
        "Value of var in session 2: 0.0\n"
    )


def test_nested_fetch_structures() -> None:
    a = tf.constant(1.0)
    b = tf.constant([2, 3])
    Pair = collections.namedtuple("Pair", ["x", "y"])
    noop = tf.no_op()
    with tf.Session() as sess:
        result = sess.run({"a": a, "pair": Pair(a, b), "list": [b, (a, noop)], "name": "Const:0"})
    assert result["a"] == 1.0 and isinstance(result["a"], np.float32)
    assert isinstance(result["pair"], Pair)
    np.testing.assert_array_equal(result["pair"].y, [2, 3])
    assert isinstance(result["list"], list) and isinstance(result["list"][1], tuple)
    assert result["list"][1][1] is None
    assert result["name"] == 1.0


def test_strings_come_back_as_bytes() -> None:
    c = tf.constant("Hello, distributed TensorFlow!")
    with tf.Session() as sess:
        assert sess.run(c) == b"Hello, distributed TensorFlow!"
        np.testing.assert_array_equal(sess.run(tf.constant(["a", "bc"])), [b"a", b"bc"])


def test_feeds_by_tensor_and_name_and_placeholder_with_default() -> None:
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = x * 2.0
    d = tf.placeholder_with_default(tf.constant(5.0), [], name="d")
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(y, {x: [[1, 2]]}), [[2, 4]])
        np.testing.assert_allclose(sess.run(y, {"x:0": np.ones((3, 2))}), 2 * np.ones((3, 2)))
        assert sess.run(d) == 5.0
        assert sess.run(d, {d: 7.0}) == 7.0
        # Feeding an intermediate tensor cuts off what produced it.
        assert sess.run(y, {y: [[9.0, 9.0]]}).tolist() == [[9.0, 9.0]]


def test_only_what_fetches_need_runs() -> None:
    x = tf.placeholder(tf.float32, [], name="unfed")
    unused = x + 1.0
    c = tf.constant(3.0)
    with tf.Session() as sess:
        assert sess.run(c) == 3.0
        with pytest.raises(
            tf.errors.InvalidArgumentError, match="must feed a value for placeholder tensor 'unfed'"
        ):
            sess.run(unused)


def test_operations_as_targets_return_none() -> None:
    v = tf.Variable(1.0)
    with tf.Session() as sess:
        assert sess.run(v.initializer) is None
        assert sess.run(v.assign_add(2.0).op) is None
        assert sess.run(v) == 3.0


def test_plan_is_cached_per_signature() -> None:
    x = tf.placeholder(tf.float32, [])
    y = x + 1.0
    with tf.Session() as sess:
        sess.run(y, {x: 1.0})
        master_session = sess._master._master.session(sess._handle)  # type: ignore[attr-defined]
        plans = dict(master_session._plans)
        for i in range(5):
            assert sess.run(y, {x: float(i)}) == i + 1
        assert master_session._plans == plans
        sess.run([y, x], {x: 1.0})
        assert len(master_session._plans) == len(plans) + 1


def test_graph_extension_after_first_run() -> None:
    a = tf.constant(1.0)
    with tf.Session() as sess:
        assert sess.run(a) == 1.0
        b = a + 41.0
        assert sess.run(b) == 42.0


def test_uninitialized_read_is_failed_precondition_naming_the_variable() -> None:
    v = tf.Variable(1.0, name="weights")
    with (
        tf.Session() as sess,
        pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value weights"),
    ):
        sess.run(v + 1.0)


def test_bad_feeds() -> None:
    x = tf.placeholder(tf.float32, [2], name="x")
    i = tf.placeholder(tf.int32, [], name="i")
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="Cannot feed value of shape"):
            sess.run(x, {x: [1.0, 2.0, 3.0]})
        with pytest.raises(ValueError):
            sess.run(x, {x: ["a", "b"]})
        with pytest.raises(TypeError):
            sess.run(i, {i: 1.5})
        with pytest.raises(TypeError):
            sess.run(x, {x: tf.constant([1.0, 2.0])})
        with pytest.raises(TypeError):
            sess.run(x, {object(): 1})
        # The session still works after bad input.
        np.testing.assert_allclose(sess.run(x, {x: [1, 2]}), [1, 2])


def test_bad_fetches() -> None:
    tf.constant(1.0)  # a graph with no op is an error of its own (test_fetch_errors.py)
    with tf.Session() as sess:
        with pytest.raises(TypeError):
            sess.run(None)
        with pytest.raises(ValueError):
            sess.run("nope:0")
        with pytest.raises(TypeError):
            sess.run(3)


def test_runtime_errors_name_the_node() -> None:
    a = tf.placeholder(tf.float32, [None, None])
    b = tf.placeholder(tf.float32, [None, None])
    c = tf.matmul(a, b, name="bad_matmul")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad_matmul"):
            sess.run(c, {a: np.ones((2, 3)), b: np.ones((2, 3))})
        assert sess.run(c, {a: np.ones((2, 3)), b: np.ones((3, 1))}).shape == (2, 1)


def test_full_trace_lists_nodes_by_device() -> None:
    var = tf.Variable(0.0, name="var")
    update = var.assign_add(1.0)
    with tf.Session() as sess:
        sess.run(var.initializer)
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        md = tf.RunMetadata()
        sess.run(update, options=opts, run_metadata=md)
    devices = [d.device for d in md.step_stats.dev_stats]
    assert devices == ["/job:localhost/replica:0/task:0/device:CPU:0"]
    names = [n.node_name for n in md.step_stats.dev_stats[0].node_stats]
    assert names == ["_SOURCE", "AssignAdd/value", "var", "AssignAdd"]


def test_context_manager_default_session_and_eval() -> None:
    c = tf.constant(2.0)
    with tf.Session() as sess:
        assert tf.get_default_session() is sess
        assert c.eval() == 2.0
    assert tf.get_default_session() is None
    with pytest.raises(RuntimeError):
        sess.run(c)


def test_interactive_session() -> None:
    sess = tf.InteractiveSession()
    try:
        v = tf.Variable(3.0)
        v.initializer.run()
        assert v.eval() == 3.0
    finally:
        sess.close()
    assert tf.get_default_session() is None


def test_separate_sessions_are_separate_engines_and_graphs() -> None:
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(5.0)
    s1 = tf.Session(graph=g)
    s2 = tf.Session(graph=g)
    s1.run(v.initializer)
    with pytest.raises(tf.errors.FailedPreconditionError):
        s2.run(v)


def test_concurrent_runs_in_one_session_count_exactly() -> None:
    v = tf.Variable(0, name="counter")
    inc = tf.assign_add(v, 1, use_locking=True)
    with tf.Session() as sess:
        sess.run(v.initializer)

        def work() -> None:
            for _ in range(200):
                sess.run(inc.op)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sess.run(v) == 800


def test_make_callable() -> None:
    x = tf.placeholder(tf.float32, [])
    y = x * 3.0
    with tf.Session() as sess:
        f = sess.make_callable(y, [x])
        assert f(2.0) == 6.0


def test_variable_api() -> None:
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(v.initialized_value() * 2.0, name="w")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(w), [2.0, 4.0])
        np.testing.assert_allclose(sess.run(v.assign([3.0, 4.0])), [3.0, 4.0])
        np.testing.assert_allclose(sess.run(v.assign_sub([1.0, 1.0])), [2.0, 3.0])
        np.testing.assert_allclose(sess.run(v + 1.0), [3.0, 4.0])
        v.load([7.0, 8.0], sess)
        np.testing.assert_allclose(sess.run(v.read_value()), [7.0, 8.0])
        anything = tf.placeholder(tf.float32, None)
        with pytest.raises(tf.errors.InvalidArgumentError, match="shapes of both tensors"):
            sess.run(tf.assign(v, anything), {anything: np.ones((2, 2))})
        with pytest.raises(ValueError, match="Cannot feed value of shape"):
            v.load(np.ones((2, 2), np.float32), sess)
        assert sess.run(tf.is_variable_initialized(v))
        assert sess.run(tf.report_uninitialized_variables()).tolist() == []


def test_fetched_arrays_are_the_clients_own() -> None:
    c = tf.constant([1.0, 2.0])
    v = tf.Variable([1.0, 2.0])
    x = tf.placeholder(tf.float32, [2])
    echo = tf.identity(x)
    with tf.Session() as sess:
        sess.run(v.initializer)
        for fetched in (sess.run(c), sess.run(v)):
            fetched += 1.0
        fed = np.array([1.0, 2.0], np.float32)
        out = sess.run(echo, {x: fed})
        out += 1.0
        np.testing.assert_array_equal(sess.run(c), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
        np.testing.assert_array_equal(fed, [1.0, 2.0])


def test_master_rejects_fed_values_that_do_not_match_the_placeholder() -> None:
    # What a client that bypasses tf.Session's own checks (a raw gRPC peer) would send.
    x = tf.placeholder(tf.float32, [2], name="x")
    y = x * 2.0
    with tf.Session() as sess:
        assert sess.run(y, {x: [1.0, 2.0]}).tolist() == [2.0, 4.0]
        master = sess._master._master  # type: ignore[attr-defined]
        handle = sess._handle
        with pytest.raises(tf.errors.InvalidArgumentError, match="dtype int64, expected float32"):
            master.run_step(handle, {"x:0": np.array([1, 2], np.int64)}, [y.name], [])
        with pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
            master.run_step(handle, {"x:0": np.ones(3, np.float32)}, [y.name], [])
        assert sess.run(y, {x: [3.0, 4.0]}).tolist() == [6.0, 8.0]
