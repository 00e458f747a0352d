"""The NCCL ops (NcclAllReduce, NcclReduce, NcclBroadcast) build TF 1.15's graph — names,
op types, attrs (shared_name, num_devices, reduction), shapes, dtypes and the gradient graph
of nccl_ops.py — and compute what TF's math gives, on tfcluster's CPU kernels (TF 1.15 has
GPU kernels only): tests/tf_reference/nccl_cases.py, recorded by record_nccl.py."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.nccl_cases import build, gradient_errors
from tfcluster.ops import nccl_ops


@pytest.fixture(autouse=True)
def _fresh_shared_names() -> None:
    # TF counts shared names per process from c0; the recording was a fresh process.
    nccl_ops._shared_name_counter = 0


def test_graph_and_gradient_graph_are_tfs() -> None:
    recorded = reference.case("nccl", "graph")
    with tf.Graph().as_default():
        built = build(tf, lambda i: f"/gpu:{i}")
        assert built["graph"] == recorded["ops"]
        assert [g.name for g in built["grads"]] == recorded["grads"]


def test_values_and_gradients_on_cpu_kernels() -> None:
    want = reference.case("nccl", "values")
    with tf.Graph().as_default():
        built = build(tf, lambda i: "/cpu:0")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(
                {k: built[k] for k in ("sums", "prods", "mins", "maxs", "reduced", "sent", "grads")}
            )
    for name, key in (("sums", "sum"), ("prods", "prod"), ("mins", "min"), ("maxs", "max")):
        for value in got[name]:
            reference.assert_close(value, want[key], rtol=1e-5)
    reference.assert_close(got["reduced"], want["sum"])
    reference.assert_close(got["sent"], want["sent"])
    for g, w in zip(got["grads"], want["grads"]):
        reference.assert_close(g, w, rtol=1e-5)


def test_refusals_are_tfs() -> None:
    assert gradient_errors(tf) == reference.case("nccl", "errors")


def test_an_all_reduce_member_left_alone_times_out() -> None:
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            lone = nccl_ops.nccl_all_reduce(tf.constant([1.0]), "sum", 2, "lonely")
        config = tf.ConfigProto(operation_timeout_in_ms=300)
        with tf.Session(config=config) as sess, pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(lone)


def test_all_reduce_pairs_runs_step_by_step() -> None:
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            v = tf.Variable(1.0)
            bump = tf.assign_add(v, 1.0)
            outs = nccl_ops.all_sum([bump * 1.0, bump * 10.0])
        with tf.Session() as sess:
            sess.run(v.initializer)
            got = [sess.run(outs) for _ in range(3)]
    assert [float(g[0]) for g in got] == [22.0, 33.0, 44.0]
    assert np.all([g[0] == g[1] for g in got])
