"""The dataflow loop (partitions with Send/Recv) takes the outputs of CPU constants once and
starts each untraced step with them settled: the same values every step, each Const kernel
run once, and traced steps still time every node, constants included."""

from __future__ import annotations

from typing import Any

import numpy as np
import tfcluster as tf
from tfcluster.runtime import executor
from tfcluster.runtime.graph_ir import node_from_operation
from tfcluster.runtime.resources import ResourceMgr
from tfcluster.runtime.step_context import StepContext


def _dataflow_executor(g: tf.Graph, feeds: list[str], fetches: list[str]) -> executor.Executor:
    nodes = [node_from_operation(op) for op in g.get_operations()]
    ex = executor.Executor(nodes, feeds, fetches, [])
    # As a partition with a _Recv: the dataflow loop runs it, never a compiled plan.
    ex.has_async = True
    ex._plannable = False
    return ex


def _ctx(trace: bool = False) -> StepContext:
    return StepContext(1, ResourceMgr(), None, trace=trace)  # type: ignore[arg-type]


def _count_calls(ex: executor.Executor, op: str, g: tf.Graph) -> dict[str, int]:
    """Wraps the kernels of the nodes of type `op`: how often each ran."""
    calls: dict[str, int] = {}
    for step in ex.steps:
        if g.get_operation_by_name(step.name).type != op:
            continue
        calls[step.name] = 0

        def counted(ctx: Any, ins: list[Any], fn: Any = step.fn, name: str = step.name) -> Any:
            calls[name] += 1
            return fn(ctx, ins)

        step.fn = counted
    return calls


def test_constants_run_once_and_every_step_gets_their_values() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        scale = tf.constant([[2.0, 3.0]], name="scale")
        shift = tf.constant(1.0, name="shift")
        y = tf.reshape(x * scale + shift, [-1], name="y")
    ex = _dataflow_executor(g, ["x:0"], [y.name, scale.name])
    calls = _count_calls(ex, "Const", g)
    assert len(calls) >= 3  # scale, shift and the reshape's shape
    for k in range(4):
        xv = np.full((2, 2), float(k), dtype=np.float32)
        got, fetched_scale = ex.run(_ctx(), [xv])
        np.testing.assert_array_equal(got, (xv * [[2.0, 3.0]] + 1.0).reshape(-1))
        np.testing.assert_array_equal(fetched_scale, [[2.0, 3.0]])
    assert set(calls.values()) == {1}


def test_traced_steps_time_the_constants_too() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        y = tf.multiply(x, tf.constant(4.0, name="four"), name="y")
    ex = _dataflow_executor(g, ["x:0"], [y.name])
    xv = np.arange(3, dtype=np.float32)
    ex.run(_ctx(), [xv])  # untraced: the constants settle
    ctx = _ctx(trace=True)
    (got,) = ex.run(ctx, [xv])
    np.testing.assert_array_equal(got, xv * 4.0)
    timed = {n.node_name for dev in ctx.step_stats for n in dev.node_stats}
    assert {"four", "y"} <= timed
