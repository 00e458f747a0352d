"""A while loop's gradient body, whose shapes the graph leaves open (an unknown batch size),
runs specialized to its arguments' shapes once it has run with them
(runtime/shape_specialization.py): its Shape / BroadcastGradientArgs arithmetic becomes
constants and its Sums over no axes and Reshapes to the same shape hand their input on. The
values are the unspecialized body's, bit for bit, whatever shapes later calls bring."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.runtime import shape_specialization
from tfcluster.runtime.graph_ir import Node

SHAPE_ARITHMETIC = {"Shape", "BroadcastGradientArgs", "Sum"}


@pytest.fixture
def specialized(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """The op types each body specialized in the test runs."""
    made: list[list[str]] = []
    real = shape_specialization.ShapeSpecializer.__init__

    def recording(self: Any, *args: Any) -> None:
        *rest, build = args

        def build_and_record(nodes: list[Node]) -> Any:
            executor = build(nodes)
            by_name = {n.name: n.op for n in nodes}
            made.append([by_name[name] for name in executor.node_names])
            return executor

        real(self, *rest, build_and_record)

    monkeypatch.setattr(shape_specialization.ShapeSpecializer, "__init__", recording)
    yield made


def _unspecialized(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shape_specialization, "MAX_SPECIALIZATIONS", 0)


def _loop_gradients() -> tuple[tf.Graph, tf.Tensor, list[tf.Tensor]]:
    """tanh(h @ w * 0.5 + x) three times over a batch of unknown size, and its gradients."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        w = tf.constant((np.arange(16, dtype=np.float32).reshape(4, 4) - 8) / 10)

        def body(i: tf.Tensor, h: tf.Tensor) -> list[tf.Tensor]:
            return [i + 1, tf.tanh(tf.matmul(h, w) * 0.5 + x)]

        _, h = tf.while_loop(lambda i, h: i < 3, body, [tf.constant(0), x])
        loss = tf.reduce_sum(h * h)
        grads = tf.gradients(loss, [x])
    return g, x, grads


def _batches(*sizes: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal((n, 4)).astype(np.float32) for n in sizes]


def _run(batches: list[np.ndarray]) -> list[np.ndarray]:
    g, x, grads = _loop_gradients()
    with tf.Session(graph=g) as sess:
        return [sess.run(grads, {x: b})[0] for b in batches]


def test_the_gradient_body_runs_without_its_shape_arithmetic(
    specialized: list[list[str]],
) -> None:
    _run(_batches(5, 5))
    assert specialized, "no body was specialized"
    ops = {op for ops_run in specialized for op in ops_run}
    assert not ops & SHAPE_ARITHMETIC, ops & SHAPE_ARITHMETIC


def test_specialized_gradients_equal_the_unspecialized_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch, specialized: list[list[str]]
) -> None:
    # Batch sizes change between steps: each set of shapes gets its own specialization.
    batches = _batches(5, 5, 2, 7, 2, 5)
    got = _run(batches)
    assert len(specialized) == 3  # one per batch size
    _unspecialized(monkeypatch)
    want = _run(batches)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_shapes_beyond_the_specializations_kept_run_the_body_as_it_is(
    monkeypatch: pytest.MonkeyPatch, specialized: list[list[str]]
) -> None:
    monkeypatch.setattr(shape_specialization, "MAX_SPECIALIZATIONS", 1)
    batches = _batches(3, 4, 3, 4)
    got = _run(batches)
    assert len(specialized) == 1
    _unspecialized(monkeypatch)
    for a, b in zip(got, _run(batches)):
        np.testing.assert_array_equal(a, b)


def test_a_shape_error_still_raises_once_the_body_is_specialized() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.float32, [None, 4], name="y")

        def body(i: tf.Tensor, h: tf.Tensor) -> list[tf.Tensor]:
            return [i + 1, tf.add_n([h * 2.0, y])]  # AddN: h and y must have one shape

        _, h = tf.while_loop(lambda i, h: i < 3, body, [tf.constant(0), x])
        (grad,) = tf.gradients(tf.reduce_sum(h), [x])
    a, b = _batches(3, 2)
    with tf.Session(graph=g) as sess:
        for _ in range(2):
            np.testing.assert_array_equal(sess.run(grad, {x: a, y: a}), np.full((3, 4), 8.0))
        with pytest.raises(tf.errors.InvalidArgumentError, match="same size and shape"):
            sess.run(grad, {x: a, y: b})


def test_a_reshape_to_its_own_shape_that_the_body_returns_becomes_an_identity(
    monkeypatch: pytest.MonkeyPatch, specialized: list[list[str]]
) -> None:
    # The gradient of `h * 2.0` for h is Reshape(Sum(g * 2.0, []), shape of h): the body's
    # result for h's gradient, so its node stays, an Identity rather than a Reshape.
    def gradients(batches: list[np.ndarray]) -> list[np.ndarray]:
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            y = tf.placeholder(tf.float32, [None, 4], name="y")

            def body(i: tf.Tensor, h: tf.Tensor) -> list[tf.Tensor]:
                return [i + 1, tf.tanh(h + y) * 2.0]

            _, h = tf.while_loop(lambda i, h: i < 3, body, [tf.constant(0), x])
            (grad,) = tf.gradients(tf.reduce_sum(h * h), [x])
        with tf.Session(graph=g) as sess:
            return [sess.run(grad, {x: b, y: b[::-1] * 0.5}) for b in batches]

    batches = _batches(5, 5, 5)
    got = gradients(batches)
    ops = {op for ops_run in specialized for op in ops_run}
    assert specialized and "Reshape" not in ops and "Identity" in ops, ops
    _unspecialized(monkeypatch)
    for a, b in zip(got, gradients(batches)):
        np.testing.assert_array_equal(a, b)
