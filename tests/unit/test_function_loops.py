"""For, SymbolicGradient, MapDefun, RemoteCall and BatchFunction as TF 1.15's raw ops compute
them (tests/tf_reference/record_function_loops.py), GraphDefs TF 1.15 wrote with them import
and run, and RemoteCall runs its function on another task of a cluster."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tfcluster as tf
from support.ports import free_port
from tf_reference import reference
from tf_reference.function_loops_cases import CASES
from tfcluster.api import raw_ops
from tfcluster.protos import graph_pb2

AREA = "function_loops"
GRAPHS = Path(__file__).resolve().parents[1] / "tf_reference" / "data" / "function_loops"


@pytest.mark.parametrize("name", sorted(CASES))
def test_raw_op_matches_tf(name: str) -> None:
    with tf.Graph().as_default():
        got = CASES[name](tf)
    reference.assert_nested_close(got, reference.case(AREA, name))


@pytest.mark.parametrize("name", ["defun_for", "concrete_ops"])
def test_graph_tf_wrote_imports_and_runs(name: str) -> None:
    want = reference.case(AREA, f"graph_{name}")
    gd = graph_pb2.GraphDef.FromString((GRAPHS / f"{name}.pb").read_bytes())
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        feeds = {g.get_tensor_by_name(k): v for k, v in want["feeds"].items()}
        with tf.Session() as sess:
            got = sess.run([g.get_tensor_by_name(n) for n in want["fetches"]], feeds)
    reference.assert_nested_close(got, want["values"])


def test_ops_count_as_implemented() -> None:
    done = raw_ops.implemented_ops()
    for op in ("For", "SymbolicGradient", "MapDefun", "RemoteCall", "BatchFunction"):
        assert op in done


def test_symbolic_gradient_of_integer_argument_is_zero() -> None:
    @tf.function
    def f(x: Any, k: Any) -> Any:
        return x * tf.cast(k, tf.float32)

    with tf.Graph().as_default():
        fn = f.get_concrete_function(tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.int32))
        dx, dk = tf.raw_ops.SymbolicGradient(
            input=[tf.constant(2.0), tf.constant(3), tf.constant(1.0)],
            Tout=[tf.float32, tf.int32],
            f=fn,
        )
        with tf.Session() as sess:
            assert sess.run([dx, dk]) == [3.0, 0]


def test_remote_call_runs_the_function_on_the_target_task() -> None:
    cluster = tf.train.ClusterSpec(
        {"worker": [f"localhost:{free_port()}", f"localhost:{free_port()}"]}
    )
    servers = [tf.train.Server(cluster, "worker", k) for k in range(2)]
    try:
        with tf.Graph().as_default():

            @tf.function
            def f(x: Any) -> Any:
                # A variable that only the target task's resources hold.
                counter = tf.raw_ops.VarHandleOp(
                    dtype=tf.int64, shape=[], shared_name="funcloops_calls"
                )
                done = tf.raw_ops.AssignAddVariableOp(
                    resource=counter, value=tf.constant(1, tf.int64)
                )
                with tf.control_dependencies([done]):
                    return x * 10.0, tf.raw_ops.ReadVariableOp(resource=counter, dtype=tf.int64)

            fn = f.get_concrete_function(tf.TensorSpec([], tf.float32))
            target = tf.placeholder(tf.string, [])
            with tf.device("/job:worker/task:0"):
                out = tf.raw_ops.RemoteCall(
                    target=target, args=[tf.constant(2.0)], Tout=[tf.float32, tf.int64], f=fn
                )
            inits = []
            for dev in ("/job:worker/task:0", "/job:worker/task:1"):
                with tf.device(dev):
                    handle = tf.raw_ops.VarHandleOp(
                        dtype=tf.int64, shape=[], shared_name="funcloops_calls"
                    )
                    inits.append(
                        tf.raw_ops.AssignVariableOp(resource=handle, value=tf.constant(0, tf.int64))
                    )
            remote = "/job:worker/replica:0/task:1/device:CPU:0"
            local = "/job:worker/replica:0/task:0/device:CPU:0"
            with tf.Session(servers[0].target) as sess:
                sess.run(inits)
                assert sess.run(out, {target: remote})[1] == 1
                assert sess.run(out, {target: remote})[1] == 2
                # Task 0's own counter is separate: the remote calls did not touch it.
                assert sess.run(out, {target: local})[1] == 1
                assert sess.run(out, {target: remote})[0] == 20.0
    finally:
        for s in servers:
            s.stop()
