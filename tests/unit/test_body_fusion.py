"""A function body's gradient chains fused (runtime/body_fusion.py, kernels/fused_gradients.py):
clip_by_value's gradient (two Selects of two comparisons against zeros) and the gradient of
slicing one tensor into parts (an AddN of StridedSliceGrads). The fused kernels give the
chains' values bit for bit (NaN, infinities and signed zeros included) and their errors;
a loop's gradient body runs them, with the unfused body's values."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.framework import dtypes, errors
from tfcluster.kernels import functional
from tfcluster.runtime import body_fusion, float_errors, kernel_table
from tfcluster.runtime.body_fusion import FUSED_SELECT, FUSED_SLICE_GRADS, fuse_body
from tfcluster.runtime.graph_ir import Node

F32 = dtypes.float32
SLICE_ATTRS = {"T": F32, "Index": dtypes.int32, "begin_mask": 1, "end_mask": 1}


def _const(name: str, value: Any) -> Node:
    arr = np.array(value)
    arr.flags.writeable = False
    return Node(name, "Const", [], [], "", {"value": arr, "dtype": dtypes.as_dtype(arr.dtype)})


def _clip_grad_nodes(inner_else: Any = None) -> list[Node]:
    """g's gradient through clip_by_value(a, 0, 1), as TF's _MaximumMinimumGrad builds it."""
    zeros = np.zeros((2, 3), np.float32)
    return [
        _const("lo", np.float32(0)),
        _const("hi", np.float32(1)),
        _const("zeros_outer", zeros),
        _const("zeros_inner", zeros if inner_else is None else inner_else),
        Node("ge", "GreaterEqual", [("m", 0), ("lo", 0)], [], "", {"T": F32}),
        Node("inner", "Select", [("ge", 0), ("g", 0), ("zeros_inner", 0)], [], "", {"T": F32}),
        Node("le", "LessEqual", [("a", 0), ("hi", 0)], [], "", {"T": F32}),
        Node("outer", "Select", [("le", 0), ("inner", 0), ("zeros_outer", 0)], [], "", {"T": F32}),
    ]


def _ops(nodes: list[Node]) -> dict[str, str]:
    return {n.name: n.op for n in nodes}


def test_clip_by_value_gradient_fuses_into_one_select_of_both_masks() -> None:
    fused = _ops(fuse_body(_clip_grad_nodes(), ["outer:0"], []))
    assert fused["outer"] == FUSED_SELECT
    assert not {"ge", "le", "inner"} & set(fused)


def test_clip_gradient_stays_where_its_parts_are_read_elsewhere_or_its_zeros_differ() -> None:
    nodes = _clip_grad_nodes()
    # the inner Select fetched too
    assert _ops(fuse_body(nodes, ["outer:0", "inner:0"], []))["outer"] == "Select"
    # a needed node reads the mask
    reader = Node("other", "LogicalNot", [("le", 0)], [], "", {})
    assert _ops(fuse_body([*nodes, reader], ["outer:0", "other:0"], []))["outer"] == "Select"
    # ... but a node that nothing needed reads does not count (the bounds' own gradients)
    assert _ops(fuse_body([*nodes, reader], ["outer:0"], []))["outer"] == FUSED_SELECT
    # the two elses hold other values
    ones = np.ones((2, 3), np.float32)
    assert _ops(fuse_body(_clip_grad_nodes(ones), ["outer:0"], []))["outer"] == "Select"


def _slice_grad_nodes(spec_op: str = "Const") -> list[Node]:
    nodes = [_const("shape", np.array([2, 8], np.int32)), _const("strides", [1, 1])]
    for k in range(4):
        nodes += [_const(f"b{k}", [0, 2 * k]), _const(f"e{k}", [0, 2 * k + 2])]
        ins = [("shape", 0), (f"b{k}", 0), (f"e{k}", 0), ("strides", 0), (f"dy{k}", 0)]
        nodes.append(Node(f"ssg{k}", "StridedSliceGrad", ins, [], "", SLICE_ATTRS))
    if spec_op != "Const":
        nodes[0] = Node("shape", spec_op, [("x", 0)], [], "", {"T": F32})
    add = Node("sum", "AddN", [(f"ssg{k}", 0) for k in range(4)], [], "", {"T": F32, "N": 4})
    return [*nodes, add]


def test_addn_of_strided_slice_grads_with_constant_specs_fuses() -> None:
    fused = _ops(fuse_body(_slice_grad_nodes(), ["sum:0"], []))
    assert fused["sum"] == FUSED_SLICE_GRADS
    assert not {f"ssg{k}" for k in range(4)} & set(fused)
    # a shape computed each call (an unspecialized body) keeps the parts
    assert _ops(fuse_body(_slice_grad_nodes("Shape"), ["sum:0"], []))["sum"] == "AddN"


def _kernel(node: Node) -> Any:
    return kernel_table.lookup(node.op, "CPU").factory(node)


def _run_nodes(nodes: list[Node], fetch: str, feeds: dict[str, Any]) -> Any:
    """The nodes' kernels run in order, fed `feeds` (names -> values)."""
    values: dict[str, Any] = {}
    for n in nodes:
        if n.op == "Const":
            values[n.name] = n.attrs["value"]
            continue
        ins = [feeds[s] if s in feeds else values[s] for s, _ in n.inputs]
        (values[n.name],) = _kernel(n)(None, ins)
    return values[fetch]


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.uint8)


SPECIAL = np.array([[np.nan, -0.0, 0.0], [np.inf, -np.inf, 1.0]], np.float32)


@pytest.mark.parametrize("inner_else", [None, np.full((2, 3), -0.0, np.float32)])
def test_fused_select_gives_the_two_selects_bits(inner_else: Any) -> None:
    nodes = _clip_grad_nodes(inner_else)
    if inner_else is not None:  # both elses -0.0: the where() path (not all bits zero)
        nodes[2] = _const("zeros_outer", inner_else)
    fused = fuse_body(nodes, ["outer:0"], [])
    assert _ops(fused)["outer"] == FUSED_SELECT
    rng = np.random.default_rng(3)
    for a, m, g in [
        (SPECIAL, SPECIAL.T.reshape(2, 3), -SPECIAL),
        *[rng.standard_normal((3, 2, 3)).astype(np.float32) * 2 for _ in range(5)],
    ]:
        feeds = {"a": a, "m": m, "g": g}
        with float_errors.silence():
            want = _run_nodes(nodes, "outer", feeds)
            got = _run_nodes(fused, "outer", feeds)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(_bits(got), _bits(want))


def test_fused_select_of_other_shapes_raises_as_select() -> None:
    fused = fuse_body(_clip_grad_nodes(), ["outer:0"], [])
    feeds = {"a": np.ones((2, 3), np.float32), "m": np.ones((2, 3), np.float32)}
    feeds["g"] = np.ones((3, 2), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="'then' and 'else' must have"):
        _run_nodes(fused, "outer", feeds)


def _slice_feeds(rng: np.random.Generator) -> dict[str, Any]:
    feeds = {f"dy{k}": rng.standard_normal((2, 2)).astype(np.float32) for k in range(4)}
    feeds["dy1"] = np.array([[-0.0, np.nan], [np.inf, -np.inf]], np.float32)
    return feeds


def test_fused_slice_grads_give_the_sums_bits() -> None:
    nodes = _slice_grad_nodes()
    fused = fuse_body(nodes, ["sum:0"], [])
    feeds = _slice_feeds(np.random.default_rng(5))
    want = _run_nodes(nodes, "sum", feeds)
    for _ in range(2):  # the second call reads the layout the first worked out
        got = _run_nodes(fused, "sum", feeds)
        np.testing.assert_array_equal(_bits(got), _bits(want))
    assert np.signbit(got[0, 2]) == np.signbit(want[0, 2]) == False  # noqa: E712 (-0 + 0)


def _respec(nodes: list[Node], k: int, begin: list[int], end: list[int]) -> list[Node]:
    out = [n for n in nodes if n.name not in (f"b{k}", f"e{k}")]
    return [_const(f"b{k}", begin), _const(f"e{k}", end), *out]


@pytest.mark.parametrize(
    "begin, end",
    [([0, 1], [0, 3]), ([0, 6], [0, 8])],  # overlapping part 0 and 1; twice part 3's slice
    ids=["overlapping", "uncovered"],
)
def test_fused_slice_grads_with_overlapping_or_gapped_slices_give_the_sums_bits(
    begin: list[int], end: list[int]
) -> None:
    nodes = _respec(_slice_grad_nodes(), 1, begin, end)
    fused = fuse_body(nodes, ["sum:0"], [])
    assert _ops(fused)["sum"] == FUSED_SLICE_GRADS
    feeds = _slice_feeds(np.random.default_rng(6))
    want = _run_nodes(nodes, "sum", feeds)
    np.testing.assert_array_equal(_bits(_run_nodes(fused, "sum", feeds)), _bits(want))


def test_fused_slice_grads_with_a_wrong_dy_raise_as_strided_slice_grad() -> None:
    fused = fuse_body(_slice_grad_nodes(), ["sum:0"], [])
    feeds = _slice_feeds(np.random.default_rng(7))
    feeds["dy2"] = np.ones((3, 3), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="shape of dy was"):
        _run_nodes(fused, "sum", feeds)


@pytest.fixture
def fused_ops(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[set[str]]]:
    """The op types of each body fuse_body rewrote in the test."""
    made: list[set[str]] = []

    def recording(nodes: Any, fetches: Any, targets: Any) -> list[Node]:
        out = body_fusion.fuse_body(nodes, fetches, targets)
        made.append({n.op for n in out} & {FUSED_SELECT, FUSED_SLICE_GRADS})
        return out

    monkeypatch.setattr(functional, "fuse_body", recording)
    yield made


def _gate_loop_gradients() -> tuple[tf.Graph, tf.Tensor, list[tf.Tensor]]:
    """An LSTM-like loop: one product sliced into gates, each through hard-sigmoid's
    clip_by_value; the gradients of the loop's result. (The shapes are known, so that the
    gradient body's zeros are constants from the start.)"""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [5, 4], name="x")
        w = tf.constant((np.arange(32, dtype=np.float32).reshape(4, 8) - 16) / 10)

        def body(i: tf.Tensor, h: tf.Tensor) -> list[tf.Tensor]:
            z = tf.matmul(h, w)
            gates = [
                tf.clip_by_value(0.2 * z[:, 2 * k : 2 * k + 2] + 0.5, 0.0, 1.0) for k in (0, 1)
            ]
            return [i + 1, tf.concat([gates[0] * tf.tanh(z[:, 4:6]), gates[1] * z[:, 6:8]], 1)]

        _, h = tf.while_loop(lambda i, h: i < 3, body, [tf.constant(0), x])
        grads = tf.gradients(tf.reduce_sum(h * h), [x])
    return g, x, grads


def _gradients(batches: list[np.ndarray]) -> list[np.ndarray]:
    g, x, grads = _gate_loop_gradients()
    with tf.Session(graph=g) as sess:
        return [sess.run(grads, {x: b})[0] for b in batches]


def test_a_loops_gradient_body_runs_fused_with_the_unfused_values(
    fused_ops: list[set[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(11)
    batches = [rng.uniform(-2, 2, (5, 4)).astype(np.float32) for _ in range(3)]
    got = _gradients(batches)
    assert {FUSED_SELECT, FUSED_SLICE_GRADS} in fused_ops
    monkeypatch.setattr(functional, "fuse_body", lambda nodes, fetches, targets: list(nodes))
    want = _gradients(batches)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(_bits(a), _bits(b))
