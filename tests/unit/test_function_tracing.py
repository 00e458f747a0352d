"""tf.function in graph mode: tracing once per signature, methods, nested structures,
gradients through the call, tf.GradientTape and tf.function together, and a function
graph that runs on a remote task server like any other op."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf


def test_a_function_traces_once_per_signature_and_adds_a_call_per_use() -> None:
    traces = []

    @tf.function
    def double(x, scale=2.0):
        traces.append(x.shape.as_list())
        return x * scale

    with tf.Graph().as_default() as g:
        a = double(tf.constant([1.0, 2.0]))
        b = double(tf.constant([3.0, 4.0]))
        c = double(tf.constant([1.0, 2.0, 3.0]))
        d = double(tf.constant([1.0, 2.0]), scale=3.0)
        calls = [op.type for op in g.get_operations() if "PartitionedCall" in op.type]
        with tf.Session() as s:
            got = s.run([a, b, c, d])
    assert traces == [[2], [3], [2]]
    assert calls == ["PartitionedCall"] * 4
    np.testing.assert_allclose(got[0], [2.0, 4.0])
    np.testing.assert_allclose(got[3], [3.0, 6.0])


def test_methods_nested_structures_and_python_outputs() -> None:
    class Model:
        def __init__(self) -> None:
            self.w = None

        @tf.function
        def __call__(self, inputs):
            if self.w is None:
                self.w = tf.Variable([[1.0], [2.0]], name="w")
            return {"y": tf.matmul(inputs["x"], self.w), "tag": "dense"}

    with tf.Graph().as_default():
        m = Model()
        out = m({"x": tf.constant([[1.0, 1.0]])})
        # A Python value returned comes back as a tensor, as TF 1.15's func_graph makes it.
        assert isinstance(out["tag"], tf.Tensor) and out["tag"].dtype == tf.string
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            np.testing.assert_allclose(s.run(out["y"]), [[3.0]])
            assert s.run(out["tag"]) == b"dense"


def test_python_values_returned_are_tensors_and_none_stays_none() -> None:
    @tf.function
    def f(x):
        return {"a": x * 2, "b": 3, "c": None, "d": [1.5, x]}

    with tf.Graph().as_default():
        out = f(tf.constant(1.0))
        assert out["c"] is None
        assert out["b"].dtype == tf.int32 and out["d"][0].dtype == tf.float32
        # TF's call outputs in flattened order, None skipped: a, b, d[0], d[1].
        assert [t.name for t in (out["a"], out["b"], *out["d"])] == [
            f"{out['a'].op.name}:{i}" for i in range(4)
        ]
        with tf.Session() as s:
            assert s.run([out["b"], out["d"]]) == [3, [1.5, 1.0]]


def test_a_returned_value_that_is_no_tensor_is_a_type_error() -> None:
    @tf.function
    def f(x):
        return x, object()

    with (
        tf.Graph().as_default(),
        pytest.raises(TypeError, match="must return zero or more Tensors"),
    ):
        f(tf.constant(1.0))


def test_training_a_variable_through_a_function_with_a_tape() -> None:
    with tf.Graph().as_default():
        w = tf.Variable(0.0, name="w")

        @tf.function
        def loss_fn(x):
            return tf.square(x * w - 6.0)

        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            loss = loss_fn(x)
        (g,) = tape.gradient(loss, [w])
        train = w.assign_sub(0.05 * g)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(60):
                s.run(train)
            assert s.run(w) == pytest.approx(3.0, abs=1e-3)


def test_a_function_graph_survives_graph_def_round_trip() -> None:
    with tf.Graph().as_default() as g:

        @tf.function
        def poly(x):
            y = x
            for _ in tf.range(3):
                y = y * x
            return y

        out = poly(tf.constant(2.0))
        gd = g.as_graph_def()
    with tf.Graph().as_default():
        (imported,) = tf.import_graph_def(gd, return_elements=[out.name])
        with tf.Session() as s:
            assert s.run(imported) == 16.0


def test_bad_signatures_are_refused() -> None:
    with pytest.raises(TypeError):
        tf.function(lambda x: x, input_signature=[1])
    with tf.Graph().as_default():
        f = tf.function(lambda x: x, input_signature=[tf.TensorSpec([2], tf.float32)])
        with pytest.raises(ValueError):
            f(tf.constant([1.0, 2.0, 3.0]))
        with pytest.raises(TypeError):
            f(tf.constant([1.0, 2.0]), tf.constant(1.0))


def test_relaxed_shapes_trace_once_more_with_unknown_dimensions() -> None:
    shapes = []

    @tf.function(experimental_relax_shapes=True)
    def total(x):
        shapes.append(x.shape.as_list())
        return tf.reduce_sum(x)

    with tf.Graph().as_default():
        outs = [total(tf.ones([n, 3])) for n in (2, 4, 5, 7)]
        with tf.Session() as s:
            assert s.run(outs) == [6.0, 12.0, 15.0, 21.0]
    assert shapes == [[2, 3], [4, 3], [None, 3]]  # as TF 1.15 traces them
