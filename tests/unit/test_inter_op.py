"""Inter-op parallelism: independent heavy kernels of one step run at once on the inter-op
threads (seen in the step's trace: their run times overlap), while graphs whose heavy
kernels form a chain, or are too small to pay for a hand-over, stay sequential."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.runtime import inter_op, parallel_run, thread_budget


@pytest.fixture(autouse=True)
def fresh_budget() -> Iterator[None]:
    thread_budget._reset_for_tests()
    yield
    thread_budget._reset_for_tests()


def test_chain_of_heavy_ops_is_not_independent() -> None:
    # a -> b -> c: a chain; a light node in between changes nothing.
    assert not inter_op.independent_heavy_ops([True, False, True, True], [[], [0], [1], [2]])
    # Two heavy nodes fed by one source: independent.
    assert inter_op.independent_heavy_ops([False, True, True], [[], [0], [0]])
    # A diamond whose heavy nodes are both on one path: a chain.
    assert not inter_op.independent_heavy_ops([True, False, True], [[], [0], [0, 1]])


def _matmul_chains(n: int, chains: int, depth: int) -> tuple[tf.Graph, list[tf.Tensor]]:
    g = tf.Graph()
    with g.as_default():
        rng = np.random.default_rng(0)
        outs = []
        for c in range(chains):
            # Not a constant: the session would fold the matmuls of constants before the step.
            value = rng.random((n, n), dtype=np.float32) / n
            x = tf.placeholder_with_default(value, [n, n], name=f"x{c}")
            for _ in range(depth):
                x = tf.matmul(x, x)
            outs.append(x)
    return g, outs


def _intervals(meta: tf.RunMetadata, op_prefix: str) -> list[tuple[int, int]]:
    out = []
    for dev in meta.step_stats.dev_stats:
        for ns in dev.node_stats:
            if ns.node_name.startswith(op_prefix):
                start = ns.all_start_micros
                out.append((start, start + ns.all_end_rel_micros))
    return sorted(out)


def test_independent_matmuls_overlap_in_time() -> None:
    g, outs = _matmul_chains(768, chains=2, depth=1)
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=2)
    with g.as_default(), tf.Session(config=config) as sess:
        expect = sess.run(outs)
        for _ in range(inter_op.PROBE_STEPS):
            sess.run(outs)
        meta = tf.RunMetadata()
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        got = sess.run(outs, options=opts, run_metadata=meta)
    for a, b in zip(got, expect):
        np.testing.assert_allclose(a, b, rtol=1e-5)
    (s0, e0), (s1, e1) = _intervals(meta, "MatMul")
    assert s1 < e0, f"the two matmuls ran one after the other: {(s0, e0)}, {(s1, e1)}"


def test_tiny_independent_matmuls_stay_sequential() -> None:
    g, outs = _matmul_chains(4, chains=2, depth=2)
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=2)
    with g.as_default(), tf.Session(config=config) as sess:
        for _ in range(inter_op.PROBE_STEPS + 2):
            sess.run(outs)
        meta = tf.RunMetadata()
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        sess.run(outs, options=opts, run_metadata=meta)
    spans = _intervals(meta, "MatMul")
    assert len(spans) == 4
    # One after the other: each starts once the one before has ended.
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end - 1  # microseconds, rounded


def test_one_inter_op_thread_never_overlaps() -> None:
    g, outs = _matmul_chains(512, chains=2, depth=1)
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    with g.as_default(), tf.Session(config=config) as sess:
        for _ in range(inter_op.PROBE_STEPS + 1):
            sess.run(outs)
        meta = tf.RunMetadata()
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        sess.run(outs, options=opts, run_metadata=meta)
    (_, e0), (s1, _) = _intervals(meta, "MatMul")
    assert s1 >= e0 - 1


def test_one_inter_op_thread_runs_heavy_kernels_from_the_compiled_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Matmuls heavy enough that a probe would choose overlapping them: with one inter-op
    # thread nothing can overlap, so the step is compiled into its plan as a light one is
    # (a task sharing its host's CPUs with three others has one: the word2vec benchmark's
    # workers ran every step through the dataflow loop instead).
    from tfcluster.runtime import executor

    compiled = []
    original = executor.Executor._compile_plan

    def counting(self: executor.Executor) -> Any:
        compiled.append(len(self.steps))
        return original(self)

    monkeypatch.setattr(executor.Executor, "_compile_plan", counting)
    g, outs = _matmul_chains(512, chains=2, depth=1)
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    with g.as_default(), tf.Session(config=config) as sess:
        expect = sess.run(outs)
        for _ in range(inter_op.PROBE_STEPS + 2):
            got = sess.run(outs)
    assert compiled, "the step never ran from a compiled plan"
    for a, b in zip(got, expect):
        np.testing.assert_array_equal(a, b)


def test_step_whose_last_kernel_ends_on_an_inter_op_thread_is_not_a_stall(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The stepping thread finds nothing ready while the inter-op thread still runs the step's
    # last kernels, then waits; that kernel may end in between. Here the stepping thread is
    # made to reach its wait only after it ended (the window is otherwise microseconds wide:
    # char-rnn's training step hit it once in ~150 steps), which must end the step.
    original = parallel_run.ParallelRun._wait

    def wait_after_the_others_end(self: parallel_run.ParallelRun, box: Any) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with self.lock:
                if not self.outstanding:
                    break
            time.sleep(0.001)
        original(self, box)

    monkeypatch.setattr(parallel_run.ParallelRun, "_wait", wait_after_the_others_end)
    g = tf.Graph()
    with g.as_default():
        rng = np.random.default_rng(0)
        a = tf.placeholder_with_default(rng.random((512, 512), dtype=np.float32) / 512, [512, 512])
        b = tf.placeholder_with_default(rng.random((512, 512), dtype=np.float32) / 512, [512, 512])
        long_chain = tf.matmul(tf.matmul(a, a), a)
        short_chain = tf.matmul(b, b)
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=2)
    with g.as_default(), tf.Session(config=config) as sess:
        expect = sess.run([long_chain, short_chain])
        for _ in range(inter_op.PROBE_STEPS + 5):
            got = sess.run([long_chain, short_chain])
    for x, y in zip(got, expect):
        np.testing.assert_allclose(x, y, rtol=1e-5)


def test_a_variable_read_by_a_kernel_handed_to_an_inter_op_thread_is_updated_in_place() -> None:
    # The stepping thread hands `read` (x @ w) to an inter-op thread, which then goes on along
    # the long chain after it; w's update, off that chain, runs meanwhile. The handed kernel's
    # inputs must not stay held (by the thread pool's argument, or by the stepping thread)
    # while the chain runs: the update would wait for them, then copy w (kernels/in_place.py).
    from support.traced_memory import traced_peak

    n, m = 2048, 64
    rng = np.random.default_rng(3)
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(rng.standard_normal((n, n)).astype(np.float32) / n, name="w")
        x = tf.placeholder_with_default(rng.standard_normal((m, n)).astype(np.float32), [m, n])
        a = tf.placeholder_with_default(rng.standard_normal((n, n)).astype(np.float32) / n, [n, n])
        y = tf.placeholder_with_default(rng.standard_normal((m, n)).astype(np.float32), [m, n])
        beside = tf.matmul(y, a)  # ready at the start with `read`: `read` is handed over
        read = tf.matmul(x, w)
        chain = read
        for _ in range(6):
            chain = tf.matmul(chain, a)
        grad = tf.matmul(x, read, transpose_a=True)
        update = tf.train.GradientDescentOptimizer(1e-3).apply_gradients([(grad, w)])
    config = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)
    with g.as_default(), tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(inter_op.PROBE_STEPS + 2):
            sess.run([update, chain, beside])
        with traced_peak() as peak:
            for _ in range(3):
                sess.run([update, chain, beside])
    # The gradient (n x n) is the step's one array of w's size; a copy of w would be another.
    assert peak.bytes < 1.5 * n * n * 4, f"a step allocated {peak.bytes} bytes at its peak"
