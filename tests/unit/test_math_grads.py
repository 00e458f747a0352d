"""Gradients of math ops against central finite differences (support/gradient_check.py), with
static, partially known and unknown shapes so both the static and the run-time broadcasting
paths run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.gradient_check import assert_gradients_match
from tfcluster.gradients import registry as grad_registry

RNG = np.random.default_rng(11)


def normal(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape)


def positive(*shape: int, low: float = 0.5, high: float = 2.0) -> np.ndarray:
    return RNG.uniform(low, high, size=shape)


def unknown(t: tf.Tensor) -> tf.Tensor:
    """The same value with no static shape: gradients must take their run-time paths."""
    return tf.placeholder_with_default(t, shape=None)


def partial(t: tf.Tensor) -> tf.Tensor:
    """The same value with an unknown leading dimension."""
    return tf.placeholder_with_default(t, shape=[None, *t.shape.as_list()[1:]])


# ---- binary ops with broadcasting ---------------------------------------------------------
BROADCAST_SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((3,), ()), ((1,), (2, 2))]
WRAPS: list[Callable[[tf.Tensor], tf.Tensor]] = [lambda t: t, unknown]

BINARY: list[tuple[str, Callable[..., Any], bool]] = [
    ("add", tf.add, False),
    ("subtract", tf.subtract, False),
    ("multiply", tf.multiply, False),
    ("realdiv", tf.realdiv, True),
    ("truediv", tf.truediv, True),
    ("squared_difference", tf.squared_difference, False),
    ("pow", tf.pow, True),
    ("div_no_nan", tf.div_no_nan, True),
]


@pytest.mark.parametrize(("label", "fn", "positive_inputs"), BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("shapes", BROADCAST_SHAPES)
@pytest.mark.parametrize("wrap", WRAPS, ids=["static", "unknown"])
def test_binary_gradients_with_broadcasting(
    label: str, fn: Any, positive_inputs: bool, shapes: Any, wrap: Any
) -> None:
    make = positive if positive_inputs else normal
    assert_gradients_match(lambda x, y: fn(wrap(x), wrap(y)), [make(*shapes[0]), make(*shapes[1])])


def test_gradients_with_partially_known_shapes() -> None:
    # [None, 3] against [3] and against [None, 1]: the leading dim is unknown statically.
    assert_gradients_match(lambda x, y: tf.multiply(partial(x), y), [normal(2, 3), normal(3)])
    assert_gradients_match(lambda x, y: partial(x) - partial(y), [normal(2, 3), normal(2, 1)])
    assert_gradients_match(lambda x, y: tf.maximum(partial(x), y), [normal(4, 3), normal(1, 3)])


def test_operator_gradients() -> None:
    assert_gradients_match(
        lambda x, y: (x * y + 2.0 - y / (x * x + 1.0)) ** 2 - (-x) + 3.0 * abs(y),
        [normal(2, 3), normal(3)],
    )


@pytest.mark.parametrize("fn", [tf.maximum, tf.minimum])
@pytest.mark.parametrize("shapes", BROADCAST_SHAPES)
@pytest.mark.parametrize("wrap", WRAPS, ids=["static", "unknown"])
def test_maximum_minimum_gradients(fn: Any, shapes: Any, wrap: Any) -> None:
    # Distinct values (no ties) keep the function differentiable at the test point.
    n = int(np.prod(shapes[0])) + int(np.prod(shapes[1]))
    vals = RNG.permutation(n) * 0.37 - n * 0.15
    x = vals[: int(np.prod(shapes[0]))].reshape(shapes[0])
    y = vals[int(np.prod(shapes[0])) :].reshape(shapes[1])
    assert_gradients_match(lambda a, b: fn(wrap(a), wrap(b)), [x, y])


def test_maximum_ties_send_the_gradient_to_x() -> None:
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.constant([1.0, 0.0, 5.0])
    gmax = tf.gradients(tf.maximum(x, y), [x, y])
    gmin = tf.gradients(tf.minimum(x, y), [x, y])
    with tf.Session() as sess:
        (gx, gy), (hx, hy) = sess.run([gmax, gmin])
    np.testing.assert_array_equal(gx, [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(gy, [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(hx, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(hy, [0.0, 1.0, 0.0])


def test_pow_gradient_at_non_positive_base() -> None:
    # d/dy x^y uses 0 where x <= 0 (no NaN from log); d/dx stays exact.
    assert_gradients_match(lambda x: tf.pow(x, 3.0), [np.array([-1.5, -0.5, 0.7])])
    x = tf.constant([0.0, -2.0, 2.0], tf.float64)
    y = tf.constant([2.0, 2.0, 2.0], tf.float64)
    gx, gy = tf.gradients(tf.pow(x, y), [x, y])
    with tf.Session() as sess:
        gxv, gyv = sess.run([gx, gy])
    np.testing.assert_allclose(gxv, [0.0, -4.0, 4.0])
    np.testing.assert_allclose(gyv, [0.0, 0.0, 4.0 * np.log(2.0)])


def test_floormod_gradient() -> None:
    x = np.array([[5.3, -2.2, 7.9], [1.1, 3.5, -6.6]])  # x / y away from integers
    y = np.array([2.1, 1.7, -2.9])
    assert_gradients_match(tf.floormod, [x, y])


def test_div_op_gradient() -> None:
    from tfcluster.ops.op_util import make_op

    def build(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        return make_op("Div", [x, y], {"T": tf.float64}).outputs[0]

    assert_gradients_match(build, [normal(2, 3), positive(3)])


def test_div_no_nan_gradient_is_zero_where_y_is_zero() -> None:
    x = tf.constant([1.0, 2.0], tf.float64)
    y = tf.constant([0.0, 4.0], tf.float64)
    gx, gy = tf.gradients(tf.div_no_nan(x, y), [x, y])
    with tf.Session() as sess:
        gxv, gyv = sess.run([gx, gy])
    np.testing.assert_allclose(gxv, [0.0, 0.25])
    np.testing.assert_allclose(gyv, [0.0, -2.0 / 16.0])


# ---- unary ops ----------------------------------------------------------------------------
UNARY: list[tuple[str, Callable[..., Any], float, float]] = [
    ("negative", tf.negative, -2, 2),
    ("abs", tf.abs, 0.2, 2),
    ("abs_negative", tf.abs, -2, -0.2),
    ("square", tf.square, -2, 2),
    ("sqrt", tf.sqrt, 0.3, 3),
    ("rsqrt", tf.rsqrt, 0.3, 3),
    ("exp", tf.exp, -2, 2),
    ("log", tf.log, 0.3, 3),
    ("log1p", tf.log1p, -0.5, 3),
    ("expm1", tf.expm1, -2, 2),
    ("reciprocal", tf.reciprocal, 0.3, 3),
    ("tanh", tf.tanh, -2, 2),
    ("sigmoid", tf.sigmoid, -4, 4),
    ("sin", tf.sin, -3, 3),
    ("cos", tf.cos, -3, 3),
    ("tan", tf.tan, -1, 1),
    ("asin", tf.asin, -0.8, 0.8),
    ("acos", tf.acos, -0.8, 0.8),
    ("atan", tf.atan, -3, 3),
    ("conj", tf.conj, -2, 2),
]


@pytest.mark.parametrize(("label", "fn", "low", "high"), UNARY, ids=[u[0] for u in UNARY])
def test_unary_gradients(label: str, fn: Any, low: float, high: float) -> None:
    assert_gradients_match(fn, [RNG.uniform(low, high, size=(2, 3))])


@pytest.mark.parametrize("fn", [tf.sign, tf.floor, tf.ceil, tf.round])
def test_piecewise_constant_ops_pass_no_gradient(fn: Any) -> None:
    x = tf.constant([0.3, -1.7])
    (g,) = tf.gradients(tf.reduce_sum(fn(x) * x), [x])
    with tf.Session() as sess:
        gv = sess.run(g)
    # Only the direct factor x contributes: d(f(x) * x)/dx = f(x) where f' = 0.
    np.testing.assert_allclose(gv, sess_value(fn(tf.constant([0.3, -1.7]))))


def sess_value(t: tf.Tensor) -> Any:
    with tf.Session() as sess:
        return sess.run(t)


def test_sign_gradient_is_zeros_not_none() -> None:
    x = tf.constant([0.3, -1.7])
    (g,) = tf.gradients(tf.sign(x), [x])
    assert g is not None
    np.testing.assert_array_equal(sess_value(g), [0.0, 0.0])
    (f,) = tf.gradients(tf.floor(x), [x])
    assert f is None


# ---- second derivatives through TF's fused gradient ops -----------------------------------
@pytest.mark.parametrize(
    ("fn", "low", "high", "op_type"),
    [
        (tf.tanh, -2, 2, "TanhGrad"),
        (tf.sigmoid, -3, 3, "SigmoidGrad"),
        (tf.sqrt, 0.5, 3, "SqrtGrad"),
        (tf.rsqrt, 0.5, 3, "RsqrtGrad"),
        (tf.reciprocal, 0.5, 3, "ReciprocalGrad"),
    ],
)
def test_second_order_gradients(fn: Any, low: float, high: float, op_type: str) -> None:
    def first_grad(x: tf.Tensor, dy: tf.Tensor) -> tf.Tensor:
        (g,) = tf.gradients(fn(x), [x], grad_ys=dy)
        assert g.op.type == op_type
        return g

    x = RNG.uniform(low, high, size=(2, 3))
    assert_gradients_match(first_grad, [x, normal(2, 3)], rtol=1e-4, atol=1e-5)


def test_hessian_diagonal_of_sum_of_tanh() -> None:
    def build(x: tf.Tensor) -> tf.Tensor:
        (g,) = tf.gradients(tf.reduce_sum(tf.tanh(x) * x), [x])
        return g

    assert_gradients_match(build, [normal(4)])


# ---- matmul -------------------------------------------------------------------------------
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_gradients(ta: bool, tb: bool) -> None:
    a = normal(3, 2) if ta else normal(2, 3)
    b = normal(4, 3) if tb else normal(3, 4)
    assert_gradients_match(lambda x, y: tf.matmul(x, y, transpose_a=ta, transpose_b=tb), [a, b])


@pytest.mark.parametrize("adj", [(False, False), (True, False), (False, True), (True, True)])
def test_batch_matmul_gradients(adj: tuple[bool, bool]) -> None:
    a = normal(2, 3, 2) if adj[0] else normal(2, 2, 3)
    b = normal(2, 4, 3) if adj[1] else normal(2, 3, 4)
    assert_gradients_match(lambda x, y: tf.matmul(x, y, adjoint_a=adj[0], adjoint_b=adj[1]), [a, b])


def test_matmul_gradient_with_unknown_batch() -> None:
    assert_gradients_match(
        lambda x, w: tf.matmul(partial(x), w) + tf.constant([1.0, 2.0], tf.float64),
        [normal(3, 4), normal(4, 2)],
    )


# ---- cast, select, add_n ------------------------------------------------------------------
def test_cast_gradient_between_floats() -> None:
    assert_gradients_match(
        lambda x: tf.cast(tf.square(tf.cast(x, tf.float32)), tf.float64),
        [normal(2, 3)],
        rtol=2e-3,
        atol=1e-3,
    )
    x = tf.constant([1.0, 2.0], tf.float64)
    y = tf.cast(x, tf.float32)
    (g,) = tf.gradients(y, [x])
    assert g.dtype == tf.float64 and g.op.type == "Cast"


def test_cast_gradient_through_integers_is_none() -> None:
    x = tf.constant([1.5, 2.5])
    (g,) = tf.gradients(tf.cast(tf.cast(x, tf.int32), tf.float32), [x])
    assert g is None


def test_select_gradient() -> None:
    cond = np.array([[True, False, True], [False, False, True]])
    assert_gradients_match(
        lambda x, y: tf.where(cond, x * x, y * 3.0), [normal(2, 3), normal(2, 3)]
    )
    vec = np.array([True, False])
    assert_gradients_match(lambda x, y: tf.where(vec, x, y), [normal(2, 3), normal(2, 3)])


def test_add_n_and_accumulate_n_gradients() -> None:
    assert_gradients_match(
        lambda a, b, c: tf.add_n([a, b * b, c]), [normal(3), normal(3), normal(3)]
    )
    assert_gradients_match(lambda a, b: tf.accumulate_n([a, 2.0 * b]), [normal(2, 2), normal(2, 2)])


# ---- reductions ---------------------------------------------------------------------------
REDUCTIONS = [tf.reduce_sum, tf.reduce_mean, tf.reduce_max, tf.reduce_min, tf.reduce_prod]
AXES: list[Any] = [None, 0, 1, -1, [0, 2], [2, -3, 1], []]


def distinct(*shape: int) -> np.ndarray:
    """Values with no ties, away from zero (max/min and prod stay smooth)."""
    n = int(np.prod(shape))
    v = (RNG.permutation(n) + 1.0) / n + 0.3
    return (v * RNG.choice([-1.0, 1.0], size=n)).reshape(shape)


@pytest.mark.parametrize("fn", REDUCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("keep", [False, True])
def test_reduction_gradients(fn: Any, keep: bool) -> None:
    for axis in AXES:
        assert_gradients_match(lambda x, a=axis: fn(x, axis=a, keepdims=keep), [distinct(2, 3, 2)])


@pytest.mark.parametrize("fn", REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction_gradients_with_unknown_shapes_and_axes(fn: Any) -> None:
    def dynamic_axes(x: tf.Tensor) -> tf.Tensor:
        axes = tf.placeholder_with_default(np.array([0, -1], np.int32), shape=[None])
        return fn(x, axis=axes)

    assert_gradients_match(dynamic_axes, [distinct(2, 3, 2)])
    assert_gradients_match(lambda x: fn(unknown(x), axis=1), [distinct(2, 3)])
    assert_gradients_match(lambda x: fn(partial(x), axis=0, keepdims=True), [distinct(3, 2)])
    assert_gradients_match(lambda x: fn(unknown(x)), [distinct(2, 2)])


def test_reduction_gradient_of_a_scalar() -> None:
    assert_gradients_match(lambda x: tf.reduce_sum(x * 2.0), [np.array(1.5)])
    assert_gradients_match(lambda x: tf.reduce_mean(x * 2.0, axis=[]), [np.array(1.5)])


def test_max_gradient_splits_ties() -> None:
    x = tf.constant([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]])
    (g,) = tf.gradients(tf.reduce_max(x, axis=1), [x])
    np.testing.assert_allclose(sess_value(g), [[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])


@pytest.mark.parametrize(
    "x",
    [
        np.array([[2.0, 0.0, 3.0], [1.5, -2.0, 0.5]]),  # one zero in a row
        np.array([[0.0, 0.0, 3.0], [1.5, -2.0, 0.5]]),  # two zeros in a row
        np.array([[0.0, 1.0, 3.0], [0.0, -2.0, 0.5]]),  # zeros down a column
    ],
)
def test_prod_gradient_with_zeros(x: np.ndarray) -> None:
    for axis in (None, 0, 1):
        assert_gradients_match(lambda t, a=axis: tf.reduce_prod(t, axis=a), [x])


def test_reduce_logsumexp_gradient() -> None:
    assert_gradients_match(lambda x: tf.reduce_logsumexp(x, axis=1), [normal(2, 3)])
    assert_gradients_match(lambda x: tf.reduce_logsumexp(x * 100.0), [normal(3)], rtol=1e-3)
    assert_gradients_match(lambda x: tf.reduce_logsumexp(x, axis=0, keepdims=True), [normal(3, 2)])


# ---- scans --------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [tf.cumsum, tf.cumprod], ids=["cumsum", "cumprod"])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_gradients(fn: Any, exclusive: bool, reverse: bool) -> None:
    for axis in (0, 1):
        assert_gradients_match(
            lambda x, a=axis: fn(x, axis=a, exclusive=exclusive, reverse=reverse),
            [positive(3, 2)],
        )


# ---- composite expressions ----------------------------------------------------------------
def test_softmax_cross_entropy_composed_from_math_ops() -> None:
    labels = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])

    def loss(logits: tf.Tensor, w: tf.Tensor) -> tf.Tensor:
        z = tf.matmul(logits, w)
        lse = tf.reduce_logsumexp(z, axis=1, keepdims=True)
        return -tf.reduce_mean(tf.reduce_sum(labels * (z - lse), axis=1))

    assert_gradients_match(loss, [normal(2, 4), normal(4, 3)])


def test_gradient_dtypes_follow_the_inputs() -> None:
    for dtype in (tf.float16, tf.float32, tf.float64):
        x = tf.constant([0.5, 1.5], dtype)
        y = tf.reduce_sum(tf.sqrt(x) * tf.sigmoid(x) + tf.square(x) / 2.0)
        (g,) = tf.gradients(y, [x])
        assert g.dtype == dtype
        xv = np.array([0.5, 1.5])
        s = 1 / (1 + np.exp(-xv))
        expected = 0.5 / np.sqrt(xv) * s + np.sqrt(xv) * s * (1 - s) + xv
        tol = 5e-3 if dtype == tf.float16 else 1e-6
        np.testing.assert_allclose(sess_value(g).astype(np.float64), expected, rtol=tol)


# ---- the table ----------------------------------------------------------------------------
DIFFERENTIABLE = [
    "Add",
    "AddV2",
    "Sub",
    "Mul",
    "RealDiv",
    "Div",
    "DivNoNan",
    "FloorMod",
    "Pow",
    "Maximum",
    "Minimum",
    "SquaredDifference",
    "Neg",
    "Abs",
    "Square",
    "Sqrt",
    "Rsqrt",
    "Exp",
    "Log",
    "Log1p",
    "Expm1",
    "Reciprocal",
    "Tanh",
    "Sigmoid",
    "Sin",
    "Cos",
    "Tan",
    "Asin",
    "Acos",
    "Atan",
    "Conj",
    "Sign",
    "TanhGrad",
    "SigmoidGrad",
    "SqrtGrad",
    "RsqrtGrad",
    "ReciprocalGrad",
    "MatMul",
    "BatchMatMul",
    "Cast",
    "Select",
    "AddN",
    "AccumulateNV2",
    "Sum",
    "Mean",
    "Max",
    "Min",
    "Prod",
    "Cumsum",
    "Cumprod",
]
NOT_DIFFERENTIABLE = [
    "Less",
    "LessEqual",
    "Greater",
    "GreaterEqual",
    "Equal",
    "NotEqual",
    "LogicalAnd",
    "LogicalOr",
    "LogicalNot",
    "Range",
    "BroadcastGradientArgs",
]
# TF 1.15 registers gradient functions that give None for these (a table entry, no value).
NONE_GRADIENT = ["Floor", "Ceil", "Round", "FloorDiv", "TruncateDiv", "ArgMax", "ArgMin"]
# And no entry at all for these: a gradient reaching one raises LookupError, as in TF.
NO_ENTRY = ["IsFinite", "IsNan", "IsInf", "TruncateMod", "All", "Any"]


def test_gradient_table_covers_every_math_op() -> None:
    for op in DIFFERENTIABLE + NONE_GRADIENT:
        assert grad_registry.lookup(op) is not None, op
    for op in NOT_DIFFERENTIABLE:
        assert grad_registry.lookup(op) is None, op
    for op in NO_ENTRY:
        with pytest.raises(LookupError, match=op):
            grad_registry.lookup(op)


def test_non_differentiable_ops_give_no_gradient() -> None:
    x = tf.constant([[1.0, 3.0], [2.0, 0.5]])
    outputs = [
        tf.cast(tf.argmax(x, 1), tf.float32),
        tf.cast(tf.less(x, 2.0), tf.float32),
        tf.floordiv(x, 2.0),
        tf.cast(tf.reduce_any(tf.greater(x, 1.0)), tf.float32),
    ]
    for y in outputs:
        assert tf.gradients(y, [x]) == [None]


def test_reduce_to_helper_matches_numpy_sums() -> None:
    g = tf.constant(np.arange(6.0).reshape(2, 3))
    gx, gy = math_ops_unbroadcast(g, tf.constant(np.ones((2, 1))), tf.constant(np.ones(3)))
    a, b = sess_value([gx, gy])
    np.testing.assert_allclose(a, [[3.0], [12.0]])
    np.testing.assert_allclose(b, [3.0, 5.0, 7.0])


def math_ops_unbroadcast(g: tf.Tensor, x: tf.Tensor, y: tf.Tensor) -> Any:
    from tfcluster.gradients.math_grad import reduce_to

    return reduce_to(g, x, y), reduce_to(g, y, x)
