"""Which ready kernel runs first when a step's kernels run on two threads: the one heading the
longest chain of work still to come (runtime/critical_path.py), and an inter-op thread that
ends a kernel goes on with the next ready one while the stepping thread is busy."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.runtime import critical_path, inter_op, thread_budget


@pytest.fixture(autouse=True)
def fresh_budget() -> Iterator[None]:
    thread_budget._reset_for_tests()
    yield
    thread_budget._reset_for_tests()


def test_longest_chain_counts_the_costliest_consumer_path() -> None:
    # 0 -> 1 -> 3 and 0 -> 2 -> 3; node 2 is dear, so 0's chain goes through it.
    costs = [1.0, 2.0, 10.0, 0.5]
    consumers = [[1, 2], [3], [3], []]
    assert critical_path.longest_chains(costs, consumers) == [11.5, 2.5, 10.5, 0.5]


def test_a_node_nothing_waits_for_heads_only_itself() -> None:
    # A large variable's update (no consumers) ranks below a cheap node feeding a long chain.
    costs = [3.0, 0.1, 5.0, 5.0]
    consumers = [[], [2], [3], []]
    chains = critical_path.longest_chains(costs, consumers)
    assert chains[1] > chains[0]


def test_kernels_measured_long_are_heavy_whatever_their_type() -> None:
    assert critical_path.measured_heavy([0.0, 1e-5, 0.002]) == [False, False, True]


def _spans(meta: tf.RunMetadata) -> dict[str, tuple[int, int]]:
    out = {}
    for dev in meta.step_stats.dev_stats:
        for ns in dev.node_stats:
            out[ns.node_name] = (ns.all_start_micros, ns.all_start_micros + ns.all_end_rel_micros)
    return out


def test_inter_op_thread_goes_on_with_a_chain_while_the_stepping_thread_is_busy() -> None:
    # Two independent branches: a chain of six products of 384x384 matrices, and one product
    # of 768x768 ones (about three links' work). The chain heads the longer path, so its first
    # link goes to the inter-op thread and the lone product runs on the stepping thread; when
    # that link ends, its successor must start at once on the inter-op thread, not wait for
    # the lone product to end.
    rng = np.random.default_rng(0)
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder_with_default(rng.random((384, 384), dtype=np.float32) / 384, [384, 384])
        x = a
        for k in range(6):
            x = tf.matmul(x, a, name=f"link{k}")
        b = tf.placeholder_with_default(rng.random((768, 768), dtype=np.float32) / 768, [768, 768])
        lone = tf.matmul(b, b, name="lone")
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=2)
    with g.as_default(), tf.Session(config=config) as sess:
        expect = sess.run([lone, x])
        for _ in range(inter_op.PROBE_STEPS):
            sess.run([lone, x])
        meta = tf.RunMetadata()
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        got = sess.run([lone, x], options=opts, run_metadata=meta)
    for want, have in zip(expect, got):  # [lone, chain]
        np.testing.assert_allclose(have, want, rtol=1e-5)
    spans = _spans(meta)
    lone_start, lone_end = spans["lone"]
    first_start, _ = spans["link0"]
    second_start, _ = spans["link1"]
    assert first_start < lone_end and lone_start < spans["link0"][1], spans
    assert second_start < lone_end, f"the chain waited for the lone product: {spans}"


def test_an_update_is_known_to_write_the_variable_a_product_reads() -> None:
    # The input gradient's product reads the weights through their Identity ("read"); the
    # update writes them: the parallel executor starts the update only after that read.
    from tfcluster.runtime import executor
    from tfcluster.runtime.graph_ir import node_from_operation

    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        w = tf.Variable(np.ones((3, 4), np.float32), name="w")
        y = tf.matmul(x, w, name="y")
        grad = tf.placeholder(tf.float32, [3, 4], name="grad")
        update = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(grad, w)])
    nodes = [node_from_operation(op) for op in g.get_operations()]
    ex = executor.Executor(nodes, ["x:0", "grad:0"], [y.name], [update.name])
    names = ex.node_names
    reads = {names[i]: r for i, r in enumerate(ex.var_reads) if r}
    writes = {names[i]: w_ for i, w_ in enumerate(ex.var_writes) if w_}
    assert reads["y"] == {"w"}
    (updater,) = [n for n in writes if n.endswith("ApplyGradientDescent")]
    assert writes[updater] == {"w"}


def test_probe_keeps_each_kernels_least_time_of_a_step() -> None:
    probe = inter_op.HeavyProbe()

    class Step:
        heavy = True

        def __init__(self, index: int) -> None:
            self.index = index

    a, b = Step(0), Step(1)
    probe.start_step()
    probe.add(a, 0.0, 0.0001)  # a step that failed here: never ended, its times dropped
    for a_times, b_time in (([0.031], 0.002), ([0.001, 0.002], 0.004), ([0.004], 0.003)):
        probe.start_step()
        for t in a_times:  # a kernel that runs twice in a step counts both runs
            probe.add(a, 0.0, t)
        probe.add(b, 0.0, b_time)
        probe.end_step()
    assert probe.per_node == {0: pytest.approx(0.003), 1: pytest.approx(0.002)}


def test_a_first_steps_one_off_cost_does_not_rank_a_kernel_first() -> None:
    # A graph's first step pays once for what later steps reuse (the first update of a large
    # variable took ten times its later time): the probe's priorities come from each kernel's
    # least time, so such a kernel does not outrank the chains the step waits for.
    import time

    from tfcluster.runtime import executor
    from tfcluster.runtime.graph_ir import node_from_operation
    from tfcluster.runtime.resources import ResourceMgr
    from tfcluster.runtime.step_context import StepContext

    rng = np.random.default_rng(0)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder_with_default(rng.random((384, 384), dtype=np.float32), [384, 384])
        once = tf.matmul(x, x, name="once_dear")
        other = tf.matmul(x + 1.0, x, name="other")
    nodes = [node_from_operation(op) for op in g.get_operations()]
    ex = executor.Executor(nodes, [], [once.name, other.name], [])
    (dear,) = [s for s in ex.steps if s.name == "once_dear"]
    calls = [0]
    compute = dear.fn

    def first_call_dear(ctx: object, ins: list[object]) -> object:
        calls[0] += 1
        if calls[0] == 1:  # 60 ms of this thread's CPU, the first time only
            end = time.thread_time() + 0.06
            while time.thread_time() < end:
                pass
        return compute(ctx, ins)

    dear.fn = first_call_dear
    for _ in range(inter_op.PROBE_STEPS):
        ex.run(StepContext(1, ResourceMgr(), None), [])  # type: ignore[arg-type]
    assert ex.priority is not None, "the probe found nothing to run beside another"
    index = ex.steps.index(dear)
    assert ex.priority[index] < 0.02, ex.priority[index]
