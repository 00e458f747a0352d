"""tf.test: TestCase's sessions, fresh graph and seeds per test, its assertions (against
TensorFlow's verdicts on the same inputs), tf.test.main, and the gradient checker (against
TensorFlow's Jacobians)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import unittest

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference, scaffolding_cases


def _run(case: type[unittest.TestCase]) -> unittest.TestResult:
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case)
    result = unittest.TestResult()
    suite.run(result)
    return result


def test_assertions_pass_and_fail_where_tensorflows_do() -> None:
    recorded = reference.case("scaffolding", "test_assertions")
    ours = scaffolding_cases.assertion_cases(tf)["test_assertions"]
    assert ours["cases"] == recorded["cases"]
    expected = list(recorded["outcomes"])
    # A mismatch in assertProtoEquals: TF 2.x's comparison code itself raises AttributeError;
    # TF 1.15's, and tfcluster's, fail the assertion.
    assert (ours["cases"][-1], expected[-1]) == ("assertProtoEquals", "AttributeError")
    expected[-1] = "AssertionError"
    mismatches = [
        (i, case, got, want)
        for i, (case, got, want) in enumerate(zip(ours["cases"], ours["outcomes"], expected))
        if got != want
    ]
    assert not mismatches
    assert ours["shape_equal"] == recorded["shape_equal"]


def test_gradient_checker_gives_tensorflows_jacobians() -> None:
    recorded = reference.case("scaffolding", "test_compute_gradient")
    ours = scaffolding_cases.gradient_cases(tf)["test_compute_gradient"]
    reference.assert_close(ours["theoretical"], recorded["theoretical"])
    reference.assert_close(ours["numeric"], recorded["numeric"], rtol=1e-6, atol=1e-9)
    assert ours["error"] == pytest.approx(float(recorded["error"]), abs=1e-9)
    for got, want in zip(ours["list_theoretical"], recorded["list_theoretical"]):
        reference.assert_close(got, want)
    for got, want in zip(ours["list_numeric"], recorded["list_numeric"]):
        # float32 central differences: round-off differs with the order of operations
        reference.assert_close(got, want, rtol=1e-3, atol=1e-3)


def test_gradient_error_is_small_for_a_correct_gradient_and_large_for_a_wrong_one() -> None:
    with tf.Session():
        x = tf.constant(np.linspace(-1, 1, 6).reshape(2, 3))
        y = tf.tanh(x)
        assert tf.test.compute_gradient_error(x, [2, 3], y, [2, 3]) < 1e-6
        stopped = tf.stop_gradient(y) + 0.0 * x  # the gradient says 0; numerically it is not
        assert tf.test.compute_gradient_error(x, [2, 3], stopped, [2, 3]) > 0.1


def test_gradient_checker_needs_a_default_session() -> None:
    x = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="default session"):
        tf.test.compute_gradient(x, [2], x * 2.0, [2])


def test_device_queries_without_a_gpu() -> None:
    recorded = reference.case("scaffolding", "test_devices")
    if tf.test.is_gpu_available():
        assert tf.test.gpu_device_name() == "/device:GPU:0"
    else:
        assert tf.test.gpu_device_name() == recorded["gpu_device_name_without_gpu"]
        assert not recorded["is_gpu_available_without_gpu"]
    assert tf.test.is_built_with_rocm() is False
    assert tf.test.is_built_with_gpu_support() == tf.test.is_built_with_cuda()


class _GraphAndSeeds(tf.test.TestCase):
    __test__ = False  # run by the test below, not collected by pytest
    graphs: list[object] = []
    draws: list[float] = []

    def test_a(self) -> None:
        self.graphs.append(tf.get_default_graph())
        self.draws.append(float(np.random.rand()))
        assert tf.get_default_graph().seed == 87654321

    def test_b(self) -> None:
        self.graphs.append(tf.get_default_graph())
        self.draws.append(float(np.random.rand()))


def test_each_test_gets_a_fresh_default_graph_and_the_same_seeds() -> None:
    result = _run(_GraphAndSeeds)
    assert result.wasSuccessful(), result.failures + result.errors
    g = _GraphAndSeeds.graphs
    assert len(g) == 2 and g[0] is not g[1]
    assert _GraphAndSeeds.draws[0] == _GraphAndSeeds.draws[1]


class _Sessions(tf.test.TestCase):
    __test__ = False  # run by the test below, not collected by pytest

    def test_session_runs_the_default_graph_and_is_the_default_session(self) -> None:
        x = tf.constant(3.0)
        with self.session() as sess:
            assert tf.get_default_session() is sess
            assert sess.run(x * 2.0) == 6.0
            assert self.evaluate(x + 1.0) == 4.0
            assert (x * 3.0).eval() == 9.0

    def test_session_pins_ops_to_the_cpu_unless_asked_for_the_gpu(self) -> None:
        with self.session():
            pinned = tf.constant(1.0)
        with self.session(use_gpu=True):
            free = tf.constant(1.0)
        assert pinned.device == "/device:CPU:0"
        assert free.device == ""

    def test_cached_session_is_one_session_per_test(self) -> None:
        with self.cached_session() as first:
            pass
        with self.cached_session() as second:
            assert second is first
        with self.test_session() as third:
            assert third is first
        with (
            pytest.raises(ValueError, match="different than the one"),
            self.cached_session(graph=tf.Graph()),
        ):
            pass

    def test_test_session_with_a_graph_is_a_new_session_on_it(self) -> None:
        graph = tf.Graph()
        with graph.as_default():
            c = tf.constant([1, 2])
        with self.test_session(graph=graph) as sess:
            assert sess.graph is graph
            self.assertAllEqual(sess.run(c), [1, 2])

    def test_evaluate_without_a_session_uses_the_cached_one(self) -> None:
        v = tf.Variable(5.0)
        self.evaluate(tf.global_variables_initializer())
        assert self.evaluate({"v": v, "w": v * 2.0}) == {"v": 5.0, "w": 10.0}
        self.assertAllClose({"v": v}, {"v": 5.0})

    def test_assert_raises_op_error_matches_the_message(self) -> None:
        a = tf.placeholder(tf.float32)
        b = tf.reshape(a, [4, 2])
        with self.session() as sess:
            with self.assertRaisesOpError("reshape|Reshape|elements"):
                sess.run(b, {a: np.zeros(6, np.float32)})
            with self.assertRaisesWithPredicateMatch(
                tf.errors.InvalidArgumentError, lambda e: isinstance(e, tf.errors.OpError)
            ):
                sess.run(b, {a: np.zeros(6, np.float32)})
        with pytest.raises(AssertionError), self.assertRaisesOpError("never matches this"):
            raise tf.errors.NotFoundError(None, None, "something else")

    def test_temp_dir_is_the_tests_own_under_the_process_dir(self) -> None:
        d = self.get_temp_dir()
        assert d == self.get_temp_dir()
        assert os.path.isdir(d)
        assert os.path.dirname(d) == tf.test.get_temp_dir()

    def test_checked_thread_reports_its_failure_on_join(self) -> None:
        def boom() -> None:
            raise RuntimeError("in thread")

        t = self.checkedThread(boom)
        t.start()
        with pytest.raises(AssertionError, match="in thread"):
            t.join()


def test_test_case_sessions_and_helpers() -> None:
    result = _run(_Sessions)
    assert result.wasSuccessful(), [str(e) for _, e in result.failures + result.errors]
    # test_session is a context manager, not a test: unittest finds it by name and skips it.
    assert result.testsRun == 9
    assert [t.id().rsplit(".", 1)[-1] for t, _ in result.skipped] == ["test_session"]


def test_tf_test_main_runs_the_modules_tests_and_exits_with_their_result(tmp_path) -> None:
    program = textwrap.dedent(
        """
        import tfcluster as tf

        class T(tf.test.TestCase):
            def test_ok(self):
                with self.session() as sess:
                    self.assertAllClose(sess.run(tf.constant([1.0]) * 2.0), [2.0])

            def test_fails(self):
                if tf.flags.FLAGS.fail:
                    self.assertAllEqual([1], [2])

        tf.flags.DEFINE_boolean("fail", False, "make a test fail")

        if __name__ == "__main__":
            tf.test.main()
        """
    )
    script = tmp_path / "some_test.py"
    script.write_text(program)
    ok = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    bad = subprocess.run(
        [sys.executable, str(script), "--fail"], capture_output=True, text=True, timeout=120
    )
    assert ok.returncode == 0, ok.stderr
    assert "Ran 3 tests" in ok.stderr and "OK" in ok.stderr
    assert bad.returncode == 1
    assert "FAILED (failures=1" in bad.stderr


def test_create_local_cluster_starts_servers_a_session_can_use() -> None:
    workers, ps_servers = tf.test.create_local_cluster(num_workers=2, num_ps=1)
    try:
        assert len(workers) == 2 and len(ps_servers) == 1
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="v")
        with tf.device("/job:worker/task:1"):
            w = v * 3.0
        with tf.Session(workers[0].target) as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(w) == 3.0
    finally:
        for server in workers + ps_servers:
            server.stop()
