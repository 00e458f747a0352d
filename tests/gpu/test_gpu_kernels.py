"""Every op's cupy kernel against its numpy kernel: one graph, the same case built on /cpu:0
and on /device:GPU:0 (no soft placement, so the GPU build really runs there), compared."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.gpu_op_cases import CASES, Build, gpu_ops

GPU = "/job:localhost/replica:0/task:0/device:GPU:0"
# (rtol, atol) by dtype kind and size: device math libraries differ from numpy's in the last
# bits (transcendentals, summation order in reductions and cuBLAS products).
_TOLERANCE = {np.dtype(np.float16): (2e-3, 2e-3), np.dtype(np.float64): (1e-12, 1e-12)}
_DEFAULT = (2e-5, 2e-5)


def _traced_run(sess: Any, build: Build) -> tuple[list[Any], set[str]]:
    """The build's values, and the names of the nodes that ran on the GPU meanwhile."""
    on_gpu: set[str] = set()

    def run(fetches: Any) -> Any:
        meta = tf.RunMetadata()
        out = sess.run(
            fetches,
            build.feeds,
            options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
            run_metadata=meta,
        )
        for dev in meta.step_stats.dev_stats:
            if dev.device == GPU:
                on_gpu.update(n.node_name for n in dev.node_stats)
        return out

    for ops in build.before:
        run(ops)
    return list(run(build.fetches)), on_gpu


@pytest.mark.parametrize("op", gpu_ops())
def test_gpu_kernel_matches_numpy_kernel(op: str) -> None:
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/cpu:0"):
            on_cpu = CASES[op]()
        existing = {o.name for o in graph.get_operations()}
        with tf.device("/device:GPU:0"):
            on_gpu = CASES[op]()
        targets = {o.name for o in graph.get_operations() if o.type == op} - existing
    with tf.Session(graph=graph) as sess:
        want = on_cpu.run(sess)
        got, ran_on_gpu = _traced_run(sess, on_gpu)
    if op != "Placeholder":  # a fed placeholder never runs
        assert targets & ran_on_gpu, f"no {op} node ran on {GPU}: {sorted(targets)}"
    assert len(got) == len(want)
    for i, (w, g) in enumerate(zip(want, got)):
        assert isinstance(g, np.ndarray | np.generic), f"fetch {i} is a {type(g)}, not host memory"
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape, (i, g.dtype, g.shape, w.dtype, w.shape)
        if w.dtype.kind in "fc":
            rtol, atol = _TOLERANCE.get(w.dtype, _DEFAULT)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=op)
        else:
            np.testing.assert_array_equal(g, w, err_msg=op)


def test_gpu_errors_are_tf_errors() -> None:
    with tf.device("/device:GPU:0"):
        params = tf.constant(np.ones((3, 2), np.float32))
        bad = tf.gather(params, tf.constant(np.array([0, 5], np.int32)))
        labels = tf.placeholder(tf.int64, [2])
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=tf.constant(np.zeros((2, 3), np.float32))
        )
        div = tf.truncatediv(tf.constant(np.array([1, 2], np.int32)), tf.constant([1, 0]))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in"):
            sess.run(bad)
        with pytest.raises(tf.errors.InvalidArgumentError, match="label value of 7"):
            sess.run(xent, {labels: np.array([0, 7])})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
            sess.run(div)
