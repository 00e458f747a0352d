"""Loop and cond bodies compute their constant shape arithmetic once: a body keeps its nodes'
static shapes, so a loop gradient's copy of its forward body builds constant shapes (as TF
does), and a bound body folds constant subgraphs and Shape/Rank/Size of arguments whose
shape it declares (runtime/constant_folding.fold_function_body)."""

from __future__ import annotations

from typing import Any

import numpy as np
import tfcluster as tf
from tfcluster.framework import dtypes
from tfcluster.framework.func_graph import parse_function
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.runtime.constant_folding import fold_function_body
from tfcluster.runtime.graph_ir import Node


def _const(name: str, value: Any) -> Node:
    v = np.asarray(value)
    return Node(name, "Const", [], [], "", {"value": v, "dtype": dtypes.as_dtype(v.dtype)})


def _op(name: str, op: str, *inputs: str, **attrs: Any) -> Node:
    return Node(name, op, [(i, 0) for i in inputs], [], "", dict(attrs))


def _arg(name: str) -> Node:
    return _op(name, "_Arg", T=dtypes.float32, index=0)


def test_shapes_of_declared_arguments_and_constant_arithmetic_fold() -> None:
    nodes = [
        _arg("x"),
        _arg("y"),
        _op("shape", "Shape", "x", T=dtypes.float32, out_type=dtypes.int64),
        _op("rank", "Rank", "y", T=dtypes.float32),
        _op("size", "Size", "x", T=dtypes.float32, out_type=dtypes.int32),
        _const("two", 2),
        _op("mod", "FloorMod", "two", "rank", T=dtypes.int32),
        _op("unknown", "Shape", "y", T=dtypes.float32, out_type=dtypes.int32),
        _op("relu", "Relu", "x", T=dtypes.float32),
    ]
    shapes = {"x": TensorShape([4, 3]), "y": TensorShape([None, 5])}
    out = {n.name: n for n in fold_function_body(nodes, shapes)}
    assert [n.name for n in nodes if out[n.name].op == "Const"] == [
        "shape",
        "rank",
        "size",
        "two",
        "mod",
    ]
    value = out["shape"].attrs["value"]
    assert value.tolist() == [4, 3] and value.dtype == np.int64
    assert out["rank"].attrs["value"] == 2 and out["size"].attrs["value"] == 12
    assert out["mod"].attrs["value"] == 0 and out["mod"].attrs["dtype"] == tf.int32
    # Not known until the step runs: a partly known shape, a computation on a value.
    assert out["unknown"].op == "Shape" and out["relu"].op == "Relu"


def test_nodes_with_control_inputs_or_failing_kernels_are_left_to_the_step() -> None:
    ordered = _op("ordered", "Rank", "x", T=dtypes.float32)
    ordered.control_inputs.append("y")
    nodes = [
        _arg("x"),
        _arg("y"),
        ordered,
        _const("a", [1, 2]),
        _const("b", [1, 2, 3]),
        _op("bad", "AddV2", "a", "b", T=dtypes.int32),
    ]
    out = {n.name: n for n in fold_function_body(nodes, {"x": TensorShape([2])})}
    assert out["ordered"].op == "Rank" and out["bad"].op == "AddV2"


def test_a_loop_gradient_through_concat_has_no_shape_arithmetic_per_iteration() -> None:
    g = tf.Graph()
    with g.as_default():
        xs = tf.constant(np.random.default_rng(0).standard_normal((5, 2, 3)), tf.float32)
        w = tf.constant(np.random.default_rng(1).standard_normal((7, 4)), tf.float32)
        ta = tf.TensorArray(tf.float32, size=5).unstack(xs)

        def body(i: tf.Tensor, h: tf.Tensor) -> list[tf.Tensor]:
            return [i + 1, tf.tanh(tf.matmul(tf.concat([ta.read(i), h], 1), w))]

        _, h = tf.while_loop(lambda i, h: i < 5, body, [tf.constant(0), tf.zeros([2, 4])])
        (dw,) = tf.gradients(tf.reduce_sum(h), [w])
    grad_loops = [
        op for op in g.get_operations() if op.type.endswith("While") and "grad" in op.name
    ]
    assert grad_loops
    nodes = parse_function(grad_loops[0].get_attr("body")).graph_def.node
    assert not {nd.op for nd in nodes} & {"Shape", "Rank", "GatherV2", "Pack"}
    # TF 1.15's concat gradient takes the axis modulo the rank: both constants here, so the
    # bound body folds it (test_shapes_of_declared_arguments_and_constant_arithmetic_fold).
    ops_of = {nd.name: nd.op for nd in nodes}
    for nd in nodes:
        if nd.op == "FloorMod":
            assert all(ops_of[i.split(":")[0]] == "Const" for i in nd.input)
    with tf.Session(graph=g) as sess:
        got = sess.run(dw)
    xv, wv = _const_values(xs, w)
    np.testing.assert_allclose(got, _numpy_dw(xv, wv), rtol=1e-5, atol=1e-5)


def _const_values(*ts: tf.Tensor) -> list[np.ndarray]:
    """The values of Const tensors, from their ops."""
    return [tf.make_ndarray(t.op.get_attr("value")) for t in ts]


def _numpy_dw(xs: np.ndarray, w: np.ndarray) -> np.ndarray:
    h = np.zeros((2, 4))
    ins, outs = [], []
    for t in range(5):
        z = np.concatenate([xs[t], h], 1)
        h = np.tanh(z @ w)
        ins.append(z)
        outs.append(h)
    dw = np.zeros_like(w, dtype=np.float64)
    dh = np.ones((2, 4))
    for t in reversed(range(5)):
        dz = dh * (1 - outs[t] ** 2)
        dw += ins[t].T @ dz
        dh = (dz @ w.T)[:, 3:]
    return dw
