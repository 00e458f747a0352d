"""Math ops: values against numpy, dtypes, static shapes, node names and attrs, operator
overloads, and the errors bad input gets (at construction and at run time)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.framework import op_def_registry
from tfcluster.kernels import registry as kernel_registry
from tfcluster.ops import math_ops

RNG = np.random.default_rng(7)


def run(fetches: Any, feed: dict[Any, Any] | None = None) -> Any:
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def check(t: tf.Tensor, expected: Any, dtype: Any, feed: Any = None, **tol: Any) -> None:
    """The tensor's static dtype and shape, then its value, against numpy."""
    expected = np.asarray(expected)
    assert t.dtype == dtype, f"{t.dtype} != {dtype}"
    assert t.shape.as_list() == list(expected.shape), f"{t.shape} vs {expected.shape}"
    value = np.asarray(run(t, feed))
    assert value.dtype == np.dtype(tf.as_dtype(dtype).as_numpy_dtype)
    assert value.shape == expected.shape
    if value.dtype.kind in "biuO":
        np.testing.assert_array_equal(value, expected)
    else:
        np.testing.assert_allclose(value, expected, **({"rtol": 1e-6} | tol))


def values(shape: tuple[int, ...], dtype: Any, low: float = -4, high: float = 4) -> np.ndarray:
    np_dtype = np.dtype(tf.as_dtype(dtype).as_numpy_dtype)
    if np_dtype.kind in "iu":
        return RNG.integers(int(low), int(high), size=shape).astype(np_dtype)
    return RNG.uniform(low, high, size=shape).astype(np_dtype)


FLOATS = [tf.float16, tf.float32, tf.float64]
INTS = [tf.int32, tf.int64]
SHAPE_PAIRS = [
    ((2, 3), (2, 3)),
    ((2, 3), (3,)),
    ((2, 1), (1, 3)),
    ((), (2, 2)),
    ((3, 1, 2), (4, 1)),
]


def tol_for(dtype: Any) -> dict[str, float]:
    if dtype == tf.float16:
        return {"rtol": 2e-3, "atol": 2e-3}
    return {"rtol": 1e-5, "atol": 1e-6} if dtype == tf.float32 else {"rtol": 1e-9, "atol": 1e-12}


# ---- binary element-wise ------------------------------------------------------------------
def np_truncdiv(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return (np.trunc(x.astype(np.float64) / y)).astype(np.result_type(x, y))


BINARY: list[tuple[str, Callable[..., Any], Callable[..., Any], list[Any], str]] = [
    ("add", tf.add, np.add, [*FLOATS, *INTS, tf.int8, tf.uint8], "Add"),
    ("subtract", tf.subtract, np.subtract, [*FLOATS, *INTS, tf.int16], "Sub"),
    ("multiply", tf.multiply, np.multiply, [*FLOATS, *INTS], "Mul"),
    ("maximum", tf.maximum, np.maximum, [*FLOATS, *INTS], "Maximum"),
    ("minimum", tf.minimum, np.minimum, [*FLOATS, *INTS], "Minimum"),
    (
        "squared_difference",
        tf.squared_difference,
        lambda a, b: (a - b) ** 2,
        [*FLOATS, *INTS],
        "SquaredDifference",
    ),
    ("realdiv", tf.realdiv, np.true_divide, FLOATS, "RealDiv"),
    ("floordiv", tf.floordiv, np.floor_divide, [*FLOATS, *INTS], "FloorDiv"),
    ("floormod", tf.floormod, np.mod, [tf.float32, tf.float64, *INTS], "FloorMod"),
    ("truncatediv", tf.truncatediv, np_truncdiv, INTS, "TruncateDiv"),
    ("truncatemod", tf.truncatemod, np.fmod, [tf.float32, *INTS], "TruncateMod"),
]


@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
@pytest.mark.parametrize(
    ("label", "fn", "ref", "dtypes", "op_type"), BINARY, ids=[b[0] for b in BINARY]
)
def test_binary_ops_broadcast_against_numpy(
    label: str, fn: Any, ref: Any, dtypes: list[Any], op_type: str, shapes: Any
) -> None:
    for dtype in dtypes:
        x = values(shapes[0], dtype, 1 if "div" in label or "mod" in label else -4)
        y = values(shapes[1], dtype, 1, 5)
        if "div" in label or "mod" in label:
            x = np.where(RNG.uniform(size=x.shape) < 0.5, -x, x) if dtype != tf.uint8 else x
            y = np.where(RNG.uniform(size=y.shape) < 0.5, -y, y).astype(y.dtype)
        t = fn(tf.constant(x), tf.constant(y))
        assert t.op.type == op_type
        assert t.op.get_attr("T") == dtype
        with np.errstate(all="ignore"):
            expected = ref(x, y).astype(x.dtype)
        check(t, expected, dtype, **tol_for(dtype))


def test_pow_values_and_integer_negative_exponent() -> None:
    x = values((2, 3), tf.float64, 0.5, 3)
    y = values((3,), tf.float64, -2, 2)
    check(tf.pow(x, y), np.power(x, y), tf.float64)
    check(tf.pow(tf.constant([2, 3, -2]), 3), np.array([8, 27, -8], np.int32), tf.int32)
    check(tf.pow(tf.constant([2.0], tf.float16), 2.0), np.array([4.0], np.float16), tf.float16)
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative integer powers"):
        run(tf.pow(tf.constant([2, 3]), tf.constant([1, -1])))


def test_truediv_casts_integers_like_tf() -> None:
    check(tf.truediv(tf.constant([7, -7]), 2), np.array([3.5, -3.5]), tf.float64)
    check(tf.divide(tf.constant([7], tf.int64), 2), np.array([3.5]), tf.float64)
    two16, two8 = tf.constant([2], tf.int16), tf.constant([2], tf.uint8)
    check(tf.truediv(tf.constant([7], tf.int16), two16), np.array([3.5], np.float32), tf.float32)
    check(tf.truediv(tf.constant([7], tf.uint8), two8), np.array([3.5], np.float32), tf.float32)
    check(tf.constant([1.0], tf.float16) / 4.0, np.array([0.25], np.float16), tf.float16)
    t = tf.divide(tf.constant([1.0, 2.0]), 4.0)
    assert t.op.type == "RealDiv" and t.op.name == "truediv_5"  # five truedivs above
    with pytest.raises(TypeError, match="Invalid dtype"):
        tf.truediv(tf.constant([True]), tf.constant([False]))
    # TF 1.15's truediv converts y on its own: a Python 2 beside int16 is an int32.
    with pytest.raises(TypeError, match=r"^x and y must have the same dtype, got tf.int16"):
        tf.truediv(tf.constant([7], tf.int16), 2)


def test_div_is_python2_division() -> None:
    t = tf.div(tf.constant([-7, 7]), 2)
    assert t.op.type == "FloorDiv"
    check(t, np.array([-4, 3], np.int32), tf.int32)
    f = tf.div(tf.constant([-7.0, 7.0]), 2.0)
    assert f.op.type == "RealDiv"
    check(f, np.array([-3.5, 3.5], np.float32), tf.float32)


def test_div_op_type_truncates_integers() -> None:
    # The "Div" op (as in imported graphs) rounds integers toward zero, as C++ does.
    from tfcluster.ops.op_util import make_op

    x, y = tf.constant([-7, 7, -6]), tf.constant([2, -2, 3])
    t = make_op("Div", [x, y], {"T": tf.int32}).outputs[0]
    check(t, np.array([-3, -3, -2], np.int32), tf.int32)
    f = make_op("Div", [tf.constant([1.0]), tf.constant([4.0])], {"T": tf.float32}).outputs[0]
    check(f, np.array([0.25], np.float32), tf.float32)


def test_div_no_nan() -> None:
    x = np.array([1.0, 2.0, 0.0, -3.0])
    y = np.array([2.0, 0.0, 0.0, 4.0])
    check(tf.div_no_nan(x, y), np.array([0.5, 0.0, 0.0, -0.75]), tf.float64)


def test_div_no_nan_without_zero_divisors_is_the_quotient_broadcast_and_typed() -> None:
    # No zero divisor takes the quotient alone: still broadcast, float32, and a scalar's
    # 0-d result (a Keras metric's total / count).
    x = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)
    y = np.array([3.0, -7.0], np.float32)
    check(tf.div_no_nan(x, y), x / y, tf.float32, rtol=0)
    check(
        tf.div_no_nan(np.float32(5.0), np.float32(3.0)),
        np.float32(5.0) / np.float32(3.0),
        tf.float32,
        rtol=0,
    )
    check(tf.div_no_nan(np.float32(5.0), np.float32(0.0)), np.float32(0.0), tf.float32)


@pytest.mark.parametrize("fn", [tf.floordiv, tf.floormod, tf.div])
@pytest.mark.parametrize("dtype", INTS)
def test_integer_division_by_zero_is_invalid_argument(fn: Any, dtype: Any) -> None:
    x = tf.placeholder(dtype, [None], name="numerator")
    t = fn(x, tf.constant([1, 0], dtype))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero") as e:
        run(t, {x: [4, 5]})
    assert t.op.name in str(e.value)


@pytest.mark.parametrize("fn", [tf.truncatediv, tf.truncatemod])
@pytest.mark.parametrize("dtype", INTS)
def test_truncating_integer_division_by_zero_is_internal_as_tf_1_15s(fn: Any, dtype: Any) -> None:
    # TF 1.15's TruncateDiv/TruncateMod have no zero check: its binary functor reports the
    # failure as InternalError (checked on TF 1.15.0 for int32 and int64).
    x = tf.placeholder(dtype, [None], name="numerator")
    t = fn(x, tf.constant([1, 0], dtype))
    with pytest.raises(tf.errors.InternalError, match="Unexpected error in binary operator"):
        run(t, {x: [4, 5]})


def test_float_division_by_zero_gives_inf_like_tf() -> None:
    out = run(tf.realdiv(tf.constant([1.0, -1.0, 0.0]), 0.0))
    assert np.isposinf(out[0]) and np.isneginf(out[1]) and np.isnan(out[2])


def test_string_add_and_equal() -> None:
    t = tf.add(tf.constant(["a", "bc"]), tf.constant("x"))
    assert t.dtype == tf.string and t.shape.as_list() == [2]
    assert list(run(t)) == [b"ax", b"bcx"]
    eq = tf.equal(tf.constant(["a", "b"]), tf.constant(["a", "c"]))
    check(eq, np.array([True, False]), tf.bool)


def test_scalar_mul() -> None:
    check(tf.scalar_mul(3, tf.constant([1.0, 2.0])), np.array([3.0, 6.0], np.float32), tf.float32)
    with pytest.raises(ValueError, match="Only scalar"):
        tf.scalar_mul(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0]))


# ---- dtype and shape errors at construction -------------------------------------------------
def test_mismatched_dtypes_raise_type_error_at_construction() -> None:
    a = tf.constant([1.0, 2.0])
    b = tf.constant([1, 2])
    for fn in (tf.add, tf.subtract, tf.multiply, tf.maximum, tf.pow, tf.less, tf.equal):
        with pytest.raises(TypeError, match="int32 that does not match type float32"):
            fn(a, b)
    with pytest.raises(TypeError):
        tf.matmul(tf.constant([[1.0]]), tf.constant([[1]]))
    with pytest.raises(TypeError):
        tf.add_n([a, b])
    with pytest.raises(TypeError):
        tf.where(tf.constant([True, False]), a, b)
    with pytest.raises(TypeError):
        tf.constant([1, 2]) + 2.5
    with pytest.raises(TypeError):
        a + b


def test_op_dtype_restrictions_raise_type_error() -> None:
    i = tf.constant([1, 4])
    for fn in (tf.sqrt, tf.exp, tf.log, tf.sin, tf.tanh, tf.sigmoid, tf.floor, tf.rsqrt):
        with pytest.raises(TypeError, match="DataType int32 not in list of allowed values"):
            fn(i)
    b = tf.constant([True])
    for fn2 in (tf.add, tf.multiply, tf.maximum, tf.less):
        with pytest.raises(TypeError, match="DataType bool"):
            fn2(b, b)
    with pytest.raises(TypeError):
        tf.logical_and(tf.constant([1.0]), tf.constant([True]))
    with pytest.raises(TypeError):
        tf.reduce_all(tf.constant([1, 0]))
    with pytest.raises(TypeError):
        tf.reduce_max(b)
    with pytest.raises(TypeError):
        tf.cast(tf.constant(["a"]), tf.float32)


def test_incompatible_static_shapes_raise_value_error() -> None:
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.add(tf.constant(np.ones((2, 3))), tf.constant(np.ones((4,))))
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.less(tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [2]))
    with pytest.raises(ValueError):
        tf.add_n([tf.constant([1.0, 1.0]), tf.constant([1.0, 2.0, 3.0])])
    with pytest.raises(ValueError):
        tf.where(tf.constant([True, False, True]), tf.constant([1, 2]), tf.constant([3, 4]))
    with pytest.raises(ValueError):
        tf.where(tf.constant([True]), tf.constant([1, 2]), tf.constant([3, 4, 5]))


def test_runtime_shape_mismatch_names_the_node() -> None:
    x = tf.placeholder(tf.float32, [None])
    y = tf.placeholder(tf.float32, [None])
    t = tf.multiply(x, y, name="my_mul")
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs\. \[3\]"
    ) as e:
        run(t, {x: [1, 2], y: [1, 2, 3]})
    assert "my_mul" in str(e.value)
    c = tf.less(x, y, name="cmp")
    with pytest.raises(tf.errors.InvalidArgumentError, match="cmp"):
        run(c, {x: [1, 2], y: [1, 2, 3]})


def test_unknown_shapes_stay_unknown_and_partial_shapes_broadcast() -> None:
    x = tf.placeholder(tf.float32, None)
    assert (x + 1.0).shape.ndims is None
    p = tf.placeholder(tf.float32, [None, 3])
    assert (p * tf.constant([1.0, 2.0, 3.0])).shape.as_list() == [None, 3]
    assert tf.maximum(p, tf.placeholder(tf.float32, [5, 1])).shape.as_list() == [5, 3]


# ---- comparisons and logic ----------------------------------------------------------------
COMPARE = [
    (tf.less, np.less, "Less"),
    (tf.less_equal, np.less_equal, "LessEqual"),
    (tf.greater, np.greater, "Greater"),
    (tf.greater_equal, np.greater_equal, "GreaterEqual"),
    (tf.equal, np.equal, "Equal"),
    (tf.not_equal, np.not_equal, "NotEqual"),
]


@pytest.mark.parametrize(("fn", "ref", "op_type"), COMPARE)
@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.int32, tf.int64, tf.uint8])
def test_comparisons(fn: Any, ref: Any, op_type: str, dtype: Any) -> None:
    x = values((2, 3), dtype, 0, 4)
    y = values((3,), dtype, 0, 4)
    t = fn(x, tf.constant(y))
    assert t.op.type == op_type
    check(t, ref(x, y), tf.bool)


def test_equal_on_bool() -> None:
    a = np.array([True, False, True])
    check(tf.equal(a, tf.constant([True, True, True])), a, tf.bool)
    check(tf.not_equal(a, tf.constant(True)), ~a, tf.bool)


def test_logical_ops() -> None:
    a = np.array([[True, False], [True, True]])
    b = np.array([False, True])
    check(tf.logical_and(a, b), a & b, tf.bool)
    check(tf.logical_or(a, b), a | b, tf.bool)
    check(tf.logical_not(a), ~a, tf.bool)
    x = tf.logical_xor(a, b)
    assert x.op.name == "LogicalXor" and x.op.type == "LogicalAnd"
    check(x, a ^ b, tf.bool)


def test_is_finite_nan_inf() -> None:
    v = np.array([1.0, np.inf, -np.inf, np.nan], np.float32)
    check(tf.is_finite(v), np.isfinite(v), tf.bool)
    check(tf.is_nan(v), np.isnan(v), tf.bool)
    check(tf.is_inf(v), np.isinf(v), tf.bool)


# ---- unary math ---------------------------------------------------------------------------
UNARY: list[tuple[str, Callable[..., Any], Callable[..., Any], float, float, str]] = [
    ("negative", tf.negative, np.negative, -3, 3, "Neg"),
    ("abs", tf.abs, np.abs, -3, 3, "Abs"),
    ("square", tf.square, np.square, -3, 3, "Square"),
    ("sqrt", tf.sqrt, np.sqrt, 0.1, 4, "Sqrt"),
    ("rsqrt", tf.rsqrt, lambda x: 1 / np.sqrt(x), 0.1, 4, "Rsqrt"),
    ("exp", tf.exp, np.exp, -3, 3, "Exp"),
    ("log", tf.log, np.log, 0.1, 4, "Log"),
    ("log1p", tf.log1p, np.log1p, -0.9, 3, "Log1p"),
    ("expm1", tf.expm1, np.expm1, -3, 3, "Expm1"),
    ("sign", tf.sign, np.sign, -3, 3, "Sign"),
    ("reciprocal", tf.reciprocal, lambda x: 1 / x, 0.5, 3, "Reciprocal"),
    ("floor", tf.floor, np.floor, -3, 3, "Floor"),
    ("ceil", tf.ceil, np.ceil, -3, 3, "Ceil"),
    ("round", tf.round, np.round, -3, 3, "Round"),
    ("sin", tf.sin, np.sin, -3, 3, "Sin"),
    ("cos", tf.cos, np.cos, -3, 3, "Cos"),
    ("tan", tf.tan, np.tan, -1, 1, "Tan"),
    ("asin", tf.asin, np.arcsin, -0.9, 0.9, "Asin"),
    ("acos", tf.acos, np.arccos, -0.9, 0.9, "Acos"),
    ("atan", tf.atan, np.arctan, -3, 3, "Atan"),
    ("tanh", tf.tanh, np.tanh, -3, 3, "Tanh"),
    ("sigmoid", tf.sigmoid, lambda x: 1 / (1 + np.exp(-x)), -5, 5, "Sigmoid"),
]


@pytest.mark.parametrize(
    ("label", "fn", "ref", "low", "high", "op_type"), UNARY, ids=[u[0] for u in UNARY]
)
@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_ops_against_numpy(
    label: str, fn: Any, ref: Any, low: float, high: float, op_type: str, dtype: Any
) -> None:
    x = values((2, 3), dtype, low, high)
    t = fn(tf.constant(x))
    assert t.op.type == op_type and t.op.name == op_type
    expected = ref(x.astype(np.float64)).astype(x.dtype)
    check(t, expected, dtype, **tol_for(dtype))


@pytest.mark.parametrize(
    ("fn", "ref"),
    [(tf.negative, np.negative), (tf.abs, np.abs), (tf.square, np.square), (tf.sign, np.sign)],
)
@pytest.mark.parametrize("dtype", INTS)
def test_unary_ops_on_integers(fn: Any, ref: Any, dtype: Any) -> None:
    x = values((5,), dtype, -5, 5)
    check(fn(x), ref(x), dtype)


def test_reciprocal_of_integers_is_integer_division() -> None:
    check(tf.reciprocal(tf.constant([1, 2, -1])), np.array([1, 0, -1], np.int32), tf.int32)


def test_round_is_half_to_even_and_identity_on_integers() -> None:
    check(
        tf.round(np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4])),
        np.array([0.0, 2.0, 2.0, -0.0, -2.0, 2.0]),
        tf.float64,
    )
    i = tf.constant([1, 2])
    assert tf.round(i) is i


def test_sigmoid_is_stable_for_large_inputs() -> None:
    x = np.array([-1000.0, -40.0, 0.0, 40.0, 1000.0])
    out = run(tf.sigmoid(x))
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, [0.0, np.exp(-40.0), 0.5, 1.0, 1.0], rtol=1e-12, atol=0)


def test_float64_sigmoid_below_the_exp_range_is_zero_beside_nan() -> None:
    # TF 1.15 computes 1 / (1 + exp(-x)) with Eigen's double exp: exp(-x) is infinite below
    # -709.4 and the result 0 (TF prints [nan 0. 0. 0.5] here; float64_functions has its
    # bits), a NaN in the tensor changing nothing for the others.
    x = np.array([np.nan, -720.0, -740.0, 0.0], np.float64)
    out = run(tf.sigmoid(x))
    assert np.isnan(out[0])
    assert out[1:].tolist() == [0.0, 0.0, 0.5]


def test_unary_name_and_python_input() -> None:
    t = tf.exp([0.0, 1.0], name="e")
    assert t.op.name == "e" and t.op.inputs[0].op.name == "e/x"
    check(t, np.exp([0.0, 1.0]).astype(np.float32), tf.float32)


def test_conj_is_identity_for_real_and_conjugates_complex() -> None:
    r = tf.constant([1.0])
    assert tf.conj(r) is r
    c = tf.conj(tf.constant(np.array([1 + 2j], np.complex64)))
    check(c, np.array([1 - 2j], np.complex64), tf.complex64)


# ---- casts --------------------------------------------------------------------------------
def test_cast_values_and_attrs() -> None:
    x = np.array([-1.7, -0.2, 0.0, 1.5, 2.9])
    t = tf.cast(x, tf.int32)
    assert t.op.type == "Cast" and t.op.get_attr("SrcT") == tf.float64
    assert t.op.get_attr("DstT") == tf.int32
    check(t, np.array([-1, 0, 0, 1, 2], np.int32), tf.int32)  # truncation toward zero
    check(tf.cast(x, tf.bool), x != 0, tf.bool)
    check(
        tf.cast(tf.constant([True, False]), tf.float32),
        np.array([1.0, 0.0], np.float32),
        tf.float32,
    )
    check(
        tf.cast(tf.constant([1, 2], tf.int64), tf.float16), np.array([1, 2], np.float16), tf.float16
    )
    same = tf.constant([1.0])
    assert tf.cast(same, tf.float32) is same


def test_cast_shortcuts_and_names() -> None:
    i = tf.constant([1, 2])
    assert tf.to_float(i).op.name == "ToFloat" and tf.to_float(i).dtype == tf.float32
    assert tf.to_double(i).dtype == tf.float64
    assert tf.to_int64(i).op.name == "ToInt64" and tf.to_int64(i).dtype == tf.int64
    assert tf.to_int32(tf.constant([1.9])).dtype == tf.int32
    check(tf.to_int32(tf.constant([1.9, -1.9])), np.array([1, -1], np.int32), tf.int32)


def test_saturate_cast_clamps() -> None:
    check(
        tf.saturate_cast(tf.constant([-5.0, 100.0, 300.0]), tf.uint8),
        np.array([0, 100, 255], np.uint8),
        tf.uint8,
    )
    check(
        tf.saturate_cast(tf.constant([2**40, -(2**40)], tf.int64), tf.int32),
        np.array([2**31 - 1, -(2**31)], np.int32),
        tf.int32,
    )


def test_cast_keeps_unknown_shape() -> None:
    p = tf.placeholder(tf.float32, [None, 2])
    c = tf.cast(p, tf.int64)
    assert c.shape.as_list() == [None, 2]
    np.testing.assert_array_equal(run(c, {p: [[1.5, 2.5]]}), [[1, 2]])


# ---- select -------------------------------------------------------------------------------
def test_select_same_shape_vector_and_scalar_condition() -> None:
    x = values((3, 2), tf.float32)
    y = values((3, 2), tf.float32)
    c = np.array([[True, False], [False, True], [True, True]])
    t = tf.where(c, x, y)
    assert t.op.type == "Select"
    check(t, np.where(c, x, y), tf.float32)
    v = np.array([True, False, True])
    check(tf.where(v, x, y), np.where(v[:, None], x, y), tf.float32)
    check(math_ops.select(tf.constant(False), x, y), y, tf.float32)
    check(
        tf.where(
            np.array([True, False]), tf.constant([1, 2], tf.int64), tf.constant([3, 4], tf.int64)
        ),
        np.array([1, 4], np.int64),
        tf.int64,
    )


def test_select_runtime_shape_errors() -> None:
    c = tf.placeholder(tf.bool, None)
    x = tf.placeholder(tf.float32, None)
    y = tf.placeholder(tf.float32, None)
    t = tf.where(c, x, y, name="sel")
    with pytest.raises(tf.errors.InvalidArgumentError, match="same size") as e:
        run(t, {c: [True], x: [1.0], y: [1.0, 2.0]})
    assert "sel" in str(e.value)
    with pytest.raises(tf.errors.InvalidArgumentError, match="condition"):
        run(t, {c: [True, False, True], x: [[1.0], [2.0]], y: [[1.0], [2.0]]})


# ---- matmul -------------------------------------------------------------------------------
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32, tf.float16])
def test_matmul_transposes(ta: bool, tb: bool, dtype: Any) -> None:
    a = values((3, 2) if ta else (2, 3), dtype, -3, 3)
    b = values((4, 3) if tb else (3, 4), dtype, -3, 3)
    t = tf.matmul(a, b, transpose_a=ta, transpose_b=tb)
    assert t.op.type == "MatMul" and t.op.name == "MatMul"
    assert t.op.get_attr("transpose_a") == ta and t.op.get_attr("transpose_b") == tb
    expected = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    check(t, expected.astype(a.dtype), dtype, **tol_for(dtype))


def test_matmul_adjoint_aliases_and_operator() -> None:
    a = values((3, 2), tf.float64)
    b = values((4, 3), tf.float64)
    t = tf.matmul(a, b, adjoint_a=True, adjoint_b=True)
    assert t.op.get_attr("transpose_a") and t.op.get_attr("transpose_b")
    check(t, a.T @ b.T, tf.float64)
    with pytest.raises(ValueError, match="Only one of transpose_a and adjoint_a"):
        tf.matmul(a, b, transpose_a=True, adjoint_a=True)
    m = tf.constant(a.T) @ tf.constant(b.T)
    assert m.op.name == "matmul_1"  # names are unique case-insensitively, after "MatMul"
    check(m, a.T @ b.T, tf.float64)
    check(a.T @ tf.constant(a), a.T @ a, tf.float64)


def test_matmul_static_shape_errors() -> None:
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.matmul(tf.constant(np.ones((2, 3))), tf.constant(np.ones((2, 3))))
    with pytest.raises(ValueError, match="rank 2"):
        tf.matmul(tf.constant(np.ones(3)), tf.constant(np.ones((3, 2))))
    p = tf.placeholder(tf.float32, [None, 3])
    assert tf.matmul(p, tf.placeholder(tf.float32, [3, None])).shape.as_list() == [None, None]


def test_matmul_runtime_size_mismatch() -> None:
    a = tf.placeholder(tf.float32, [None, None])
    t = tf.matmul(a, tf.constant(np.ones((3, 2), np.float32)), name="mm")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible") as e:
        run(t, {a: np.ones((2, 4))})
    assert "mm" in str(e.value)


@pytest.mark.parametrize("adj", [(False, False), (True, False), (False, True), (True, True)])
def test_batch_matmul(adj: tuple[bool, bool]) -> None:
    a = values((2, 3, 4) if adj[0] else (2, 4, 3), tf.float64)
    b = values((2, 5, 3) if adj[1] else (2, 3, 5), tf.float64)
    t = tf.matmul(a, b, adjoint_a=adj[0], adjoint_b=adj[1])
    assert t.op.type == "BatchMatMulV2"
    ea = np.swapaxes(a, -1, -2) if adj[0] else a
    eb = np.swapaxes(b, -1, -2) if adj[1] else b
    check(t, ea @ eb, tf.float64)


def test_batch_matmul_for_unknown_rank_and_errors() -> None:
    p = tf.placeholder(tf.float32, None)
    t = tf.matmul(p, tf.constant(np.ones((3, 2), np.float32)))
    assert t.op.type == "BatchMatMulV2" and t.shape.ndims is None
    np.testing.assert_allclose(run(t, {p: np.ones((2, 3))}), np.full((2, 2), 3.0))
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.matmul(np.ones((2, 3, 4)), np.ones((2, 3, 4)))
    q = tf.placeholder(tf.float32, None)
    bad = tf.matmul(q, q)
    with pytest.raises(tf.errors.InvalidArgumentError):
        run(bad, {q: np.ones((2, 3, 4))})


# ---- reductions ---------------------------------------------------------------------------
REDUCTIONS = [
    (tf.reduce_sum, np.sum, "Sum"),
    (tf.reduce_mean, np.mean, "Mean"),
    (tf.reduce_max, np.max, "Max"),
    (tf.reduce_min, np.min, "Min"),
    (tf.reduce_prod, np.prod, "Prod"),
]
AXES: list[Any] = [None, 0, 1, -1, [0, 2], [-1, 0, 1], []]


@pytest.mark.parametrize(("fn", "ref", "op_type"), REDUCTIONS)
@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64, tf.int32, tf.int64])
def test_reductions_against_numpy(fn: Any, ref: Any, op_type: str, dtype: Any) -> None:
    x = values((2, 3, 2), dtype, -3, 4) if op_type != "Prod" else values((2, 3, 2), dtype, 1, 3)
    for axis in AXES:
        for keep in (False, True):
            t = fn(tf.constant(x), axis=axis, keepdims=keep)
            assert t.op.type == op_type and t.op.get_attr("keep_dims") == keep
            np_axis = tuple(axis) if isinstance(axis, list) else axis
            if op_type == "Mean" and x.dtype.kind == "i":
                s = np.sum(x, axis=np_axis, keepdims=keep)
                n = (
                    x.size // max(s.size, 1)
                    if axis is None
                    else int(
                        np.prod([x.shape[a] for a in np.atleast_1d(np.asarray(axis, dtype=int))])
                    )
                )
                expected = (np.sign(s) * (np.abs(s) // max(n, 1))).astype(x.dtype)
            else:
                expected = np.asarray(
                    ref(
                        x.astype(np.float64) if x.dtype == np.float16 else x,
                        axis=np_axis,
                        keepdims=keep,
                    )
                ).astype(x.dtype)
            check(t, expected, dtype, **tol_for(dtype))


def test_reduce_mean_of_integers_truncates_toward_zero() -> None:
    check(tf.reduce_mean(tf.constant([[-3, -4], [3, 4]])), np.int32(0), tf.int32)
    check(tf.reduce_mean(tf.constant([-3, -4]), axis=0), np.int32(-3), tf.int32)
    check(tf.reduce_mean(tf.constant([3, 4])), np.int32(3), tf.int32)


def test_reduction_aliases_and_attrs() -> None:
    x = np.arange(6.0).reshape(2, 3)
    t = tf.reduce_sum(x, reduction_indices=[1], keep_dims=True)
    assert t.op.get_attr("Tidx") == tf.int32 and t.op.get_attr("T") == tf.float64
    check(t, x.sum(axis=1, keepdims=True), tf.float64)
    check(tf.reduce_max(x, reduction_indices=0), x.max(axis=0), tf.float64)
    with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'reduction_indices'"):
        tf.reduce_sum(x, axis=0, reduction_indices=0)
    with pytest.raises(ValueError, match="Cannot specify both 'keepdims' and 'keep_dims'"):
        tf.reduce_mean(x, keepdims=True, keep_dims=True)
    i64 = tf.reduce_sum(x, axis=tf.constant([0], tf.int64))
    assert i64.op.get_attr("Tidx") == tf.int64
    check(i64, x.sum(axis=0), tf.float64)
    assert tf.reduce_sum(x, name="total").op.name == "total"


def test_reduce_all_any() -> None:
    b = np.array([[True, False, True], [True, True, True]])
    for axis in (None, 0, 1, [0, 1]):
        np_axis = tuple(axis) if isinstance(axis, list) else axis
        t = tf.reduce_all(b, axis=axis)
        assert t.op.type == "All" and "T" not in t.op.attrs
        check(t, np.all(b, axis=np_axis), tf.bool)
        check(
            tf.reduce_any(b, axis=axis, keepdims=True),
            np.any(b, axis=np_axis, keepdims=True),
            tf.bool,
        )


def test_reduce_logsumexp() -> None:
    x = np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, -np.inf]])
    expected = np.array([np.log(np.exp(1) + np.exp(2) + np.exp(3)), 1000.0 + np.log(2.0)])
    check(tf.reduce_logsumexp(x, axis=1), expected, tf.float64)
    check(tf.reduce_logsumexp(x[:1], axis=1, keepdims=True), expected[:1, None], tf.float64)
    small = np.array([0.5, -1.0])
    check(tf.reduce_logsumexp(small), np.log(np.exp(small).sum()), tf.float64)
    allinf = run(tf.reduce_logsumexp(np.array([-np.inf, -np.inf])))
    assert np.isneginf(allinf)


def test_count_nonzero() -> None:
    x = np.array([[0.0, 1.5, 0.0], [2.0, 3.0, 0.0]])
    t = tf.count_nonzero(x)
    check(t, np.int64(3), tf.int64)
    check(tf.count_nonzero(x, axis=1, dtype=tf.int32), np.array([1, 2], np.int32), tf.int32)
    check(tf.count_nonzero(np.array([True, False])), np.int64(1), tf.int64)


def test_reduction_shapes_when_rank_or_axes_unknown() -> None:
    p = tf.placeholder(tf.float32, None)
    s = tf.reduce_sum(p)
    assert s.shape.as_list() == []  # every axis reduced: a scalar even for unknown rank
    np.testing.assert_allclose(run(s, {p: np.ones((2, 3))}), 6.0)
    q = tf.placeholder(tf.float32, [None, 3])
    ax = tf.placeholder(tf.int32, [None])
    assert tf.reduce_sum(q, axis=ax).shape.ndims is None
    assert tf.reduce_sum(q, axis=ax, keepdims=True).shape.as_list() == [None, None]
    assert tf.reduce_max(q, axis=1).shape.as_list() == [None]
    np.testing.assert_allclose(
        run(tf.reduce_sum(q, axis=ax), {q: np.ones((2, 3)), ax: [1]}), [3.0, 3.0]
    )


def test_reduction_axis_errors() -> None:
    x = tf.constant(np.ones((2, 3)))
    with pytest.raises(ValueError, match="Invalid reduction dimension 2"):
        tf.reduce_sum(x, axis=2)
    with pytest.raises(ValueError, match="Invalid reduction dimension -3"):
        tf.reduce_mean(x, axis=-3)
    with pytest.raises(TypeError):
        tf.reduce_sum(x, axis=tf.constant([0.0]))
    ax = tf.placeholder(tf.int32, [None])
    t = tf.reduce_sum(x, axis=ax, name="bad_sum")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension") as e:
        run(t, {ax: [5]})
    assert "bad_sum" in str(e.value)
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate"):
        run(t, {ax: [0, -2]})


def test_empty_reductions_give_identities() -> None:
    e = np.zeros((0, 2))
    np.testing.assert_array_equal(run(tf.reduce_sum(e, axis=0)), [0.0, 0.0])
    np.testing.assert_array_equal(run(tf.reduce_prod(e, axis=0)), [1.0, 1.0])
    assert np.all(np.isneginf(run(tf.reduce_max(e, axis=0))))
    assert np.all(np.isposinf(run(tf.reduce_min(e, axis=0))))


# ---- argmax / argmin ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fn", "ref", "op_type"), [(tf.argmax, np.argmax, "ArgMax"), (tf.argmin, np.argmin, "ArgMin")]
)
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32, tf.float16])
def test_argmax_argmin(fn: Any, ref: Any, op_type: str, dtype: Any) -> None:
    x = values((3, 4), dtype, -5, 5)
    for axis in (0, 1, -1):
        t = fn(x, axis=axis)
        assert t.op.type == op_type and t.op.get_attr("output_type") == tf.int64
        check(t, ref(x, axis=axis).astype(np.int64), tf.int64)
    check(fn(x), ref(x, axis=0).astype(np.int64), tf.int64)  # axis defaults to 0
    check(fn(x, dimension=1, output_type=tf.int32), ref(x, axis=1).astype(np.int32), tf.int32)


def test_argmax_ties_take_the_first_and_errors() -> None:
    check(tf.argmax([1.0, 3.0, 3.0, 0.0]), np.int64(1), tf.int64)
    check(tf.arg_min([[2, 1, 1]], 1), np.array([1], np.int64), tf.int64)
    with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'dimension'"):
        tf.argmax([1.0], axis=0, dimension=0)
    with pytest.raises(ValueError, match="must be in the range"):
        tf.argmax(np.ones((2, 2)), axis=2)
    with pytest.raises(TypeError):
        tf.argmax([1.0], output_type=tf.float32)
    p = tf.placeholder(tf.float32, [None])
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty"):
        run(tf.argmax(p), {p: np.zeros(0)})


# ---- scans --------------------------------------------------------------------------------
def np_scan(fn: Any, x: np.ndarray, axis: int, exclusive: bool, reverse: bool, ident: float) -> Any:
    if reverse:
        x = np.flip(x, axis)
    out = fn(x, axis=axis)
    if exclusive:
        pad = np.full_like(np.take(out, [0], axis=axis), ident)
        out = np.concatenate([pad, np.delete(out, -1, axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize(
    ("fn", "ref", "ident", "op_type"),
    [(tf.cumsum, np.cumsum, 0, "Cumsum"), (tf.cumprod, np.cumprod, 1, "Cumprod")],
)
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_cumprod(
    fn: Any, ref: Any, ident: float, op_type: str, exclusive: bool, reverse: bool
) -> None:
    for dtype in (tf.float64, tf.int32):
        x = values((3, 4), dtype, 1, 4)
        for axis in (0, 1, -1):
            t = fn(x, axis=axis, exclusive=exclusive, reverse=reverse)
            assert t.op.type == op_type and t.op.get_attr("exclusive") == exclusive
            check(t, np_scan(ref, x, axis, exclusive, reverse, ident).astype(x.dtype), dtype)


def test_scan_axis_errors() -> None:
    with pytest.raises(ValueError, match="out of range"):
        tf.cumsum(np.ones((2, 2)), axis=2)
    ax = tf.placeholder(tf.int32, [])
    with pytest.raises(tf.errors.InvalidArgumentError, match="axis"):
        run(tf.cumsum(np.ones((2, 2)), axis=ax), {ax: 3})


# ---- add_n / accumulate_n -----------------------------------------------------------------
def test_add_n() -> None:
    xs = [values((2, 3), tf.float32) for _ in range(4)]
    t = tf.add_n(xs)
    assert t.op.type == "AddN" and t.op.get_attr("N") == 4
    check(t, xs[0] + xs[1] + xs[2] + xs[3], tf.float32, rtol=1e-5)
    check(tf.add_n([tf.constant([1, 2]), [3, 4]]), np.array([4, 6], np.int32), tf.int32)
    one = tf.constant([1.0])
    assert tf.add_n([one]) is one
    assert tf.add_n([one], name="single").op.name == "single"
    with pytest.raises(ValueError, match="at least one"):
        tf.add_n([])
    with pytest.raises(ValueError):
        tf.add_n(one)  # type: ignore[arg-type]


def test_add_n_runtime_shape_mismatch() -> None:
    a = tf.placeholder(tf.float32, None)
    b = tf.placeholder(tf.float32, None)
    t = tf.add_n([a, b], name="sum_all")
    with pytest.raises(tf.errors.InvalidArgumentError, match="same size and shape") as e:
        run(t, {a: [1.0, 2.0], b: [1.0]})
    assert "sum_all" in str(e.value)


def test_accumulate_n() -> None:
    xs = [values((2,), tf.float64) for _ in range(3)]
    t = tf.accumulate_n(xs, shape=[2], tensor_dtype=tf.float64)
    assert t.op.type == "AccumulateNV2"
    check(t, xs[0] + xs[1] + xs[2], tf.float64)
    with pytest.raises(ValueError):
        tf.accumulate_n(xs, shape=[3])
    with pytest.raises(TypeError):
        tf.accumulate_n(xs, tensor_dtype=tf.float32)


# ---- range, broadcast_gradient_args -------------------------------------------------------
def test_range() -> None:
    assert tf.range(3).op.name == "range"
    check(tf.range(5), np.arange(5, dtype=np.int32), tf.int32)
    check(tf.range(2, 11, 3), np.arange(2, 11, 3, dtype=np.int32), tf.int32)
    check(tf.range(5, 0, -2), np.array([5, 3, 1], np.int32), tf.int32)
    check(tf.range(0.0, 1.0, 0.25), np.arange(0, 1, 0.25, dtype=np.float32), tf.float32)
    check(tf.range(3, dtype=tf.float64), np.arange(3, dtype=np.float64), tf.float64)
    check(tf.range(tf.constant(3, tf.int64)), np.arange(3, dtype=np.int64), tf.int64)
    check(tf.range(4, 4), np.zeros(0, np.int32), tf.int32)
    with pytest.raises(ValueError, match="delta != 0"):
        tf.range(0, 5, 0)
    with pytest.raises(ValueError, match="start <= limit"):
        tf.range(5, 0)
    lim = tf.placeholder(tf.int32, [])
    t = tf.range(lim)
    assert t.shape.as_list() == [None]
    np.testing.assert_array_equal(run(t, {lim: 4}), np.arange(4))
    with pytest.raises(tf.errors.InvalidArgumentError, match="start <= limit"):
        run(t, {lim: -1})


def test_broadcast_gradient_args() -> None:
    r0, r1 = math_ops.broadcast_gradient_args(tf.constant([2, 3, 1]), tf.constant([3, 4]))
    a, b = run([r0, r1])
    np.testing.assert_array_equal(a, [2])
    np.testing.assert_array_equal(b, [0])
    r0, r1 = math_ops.broadcast_gradient_args(tf.constant([1, 3]), tf.constant([5, 1]))
    a, b = run([r0, r1])
    assert list(a) == [0] and list(b) == [1]
    bad = math_ops.broadcast_gradient_args(tf.constant([2]), tf.constant([3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        run(bad)


# ---- operator overloads -------------------------------------------------------------------
def test_operator_overloads_values_and_names() -> None:
    xv = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
    yv = np.array([2.0, 3.0], np.float32)
    x, y = tf.constant(xv), tf.constant(yv)
    cases = [
        (x + y, xv + yv, "add", "AddV2"),  # TF 1.15's `+`; tf.add stays Add
        (x - y, xv - yv, "sub", "Sub"),
        (x * y, xv * yv, "mul", "Mul"),
        (x / y, xv / yv, "truediv", "RealDiv"),
        (x // y, xv // yv, "floordiv", "FloorDiv"),
        (x % y, np.mod(xv, yv), "mod", "FloorMod"),
        (x**2, xv**2, "pow", "Pow"),
        (-x, -xv, "Neg", "Neg"),
        (abs(x), np.abs(xv), "Abs", "Abs"),
        (x @ x, xv @ xv, "matmul", "MatMul"),
    ]
    for t, expected, name, op_type in cases:
        assert t.op.type == op_type and t.op.name == name, (t.op.name, t.op.type)
        check(t, expected.astype(np.float32), tf.float32, rtol=1e-6)
    assert tf.add(x, y).op.type == "Add"
    assert (tf.constant("a") + "b").op.type == "Add"  # AddV2 has no string kernel
    for t, expected, op_type in [
        (x < y, xv < yv, "Less"),
        (x <= y, xv <= yv, "LessEqual"),
        (x > y, xv > yv, "Greater"),
        (x >= y, xv >= yv, "GreaterEqual"),
    ]:
        assert t.op.type == op_type
        check(t, expected, tf.bool)


def test_reverse_operators_with_python_and_numpy_values() -> None:
    xv = np.array([1.0, 2.0, 4.0], np.float32)
    x = tf.constant(xv)
    r = 1 - x
    assert r.op.name == "sub" and r.op.inputs[0].op.name == "sub/x"
    assert (x + 1).op.inputs[1].op.name == "add/y"
    for t, expected in [
        (1 + x, 1 + xv),
        (1 - x, 1 - xv),
        (2 * x, 2 * xv),
        (1 / x, 1 / xv),
        (7 // x, 7 // xv),
        (7 % x, 7 % xv),
        (2**x, 2**xv),
        (np.float32(3) - x, 3 - xv),
        (np.float64(0.5) * x, 0.5 * xv),
        (np.array([1.0, 1.0, 1.0]) + x, 1 + xv),
        (x - np.float64(1), xv - 1),
        (x > 3, xv > 3),
    ]:
        assert isinstance(t, tf.Tensor)
        check(t, np.asarray(expected).astype(np.float32 if t.dtype != tf.bool else bool), t.dtype)
    i = tf.constant([7, -7])
    check(10 // i, np.array([1, -2], np.int32), tf.int32)
    check(i / 2, np.array([3.5, -3.5]), tf.float64)


def test_bool_operators() -> None:
    av = np.array([True, False, True])
    bv = np.array([True, True, False])
    a, b = tf.constant(av), tf.constant(bv)
    for t, expected, name in [
        (a & b, av & bv, "and"),
        (a | b, av | bv, "or"),
        (a ^ b, av ^ bv, "xor"),
        (~a, ~av, "LogicalNot"),
        (True & a, av, "and_1"),
        (False | a, av, "or_1"),
    ]:
        assert t.op.name == name
        check(t, expected, tf.bool)


def test_variable_operators() -> None:
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable([[3.0], [4.0]], name="w")
    exprs = [
        v + 1,
        1 + v,
        v - w,
        3 - v,
        v * v,
        2.0 * v,
        v / 2,
        8 / v,
        v**2,
        2**v,
        -v,
        abs(-v),
        v // 1.5,
        tf.matmul(tf.reshape(v, [1, 2]), w),
        v < 1.5,
        v > w,
        tf.square(v),
        tf.reduce_sum(v),
        tf.cast(v, tf.int32),
        np.float64(2) * v,
    ]
    vv = np.array([1.0, 2.0], np.float32)
    wv = np.array([[3.0], [4.0]], np.float32)
    expected = [
        vv + 1,
        1 + vv,
        vv - wv,
        3 - vv,
        vv * vv,
        2 * vv,
        vv / 2,
        8 / vv,
        vv**2,
        2**vv,
        -vv,
        vv,
        vv // 1.5,
        np.reshape(vv, [1, 2]) @ wv,
        vv < 1.5,
        vv > wv,
        vv**2,
        np.sum(vv),
        vv.astype(np.int32),
        2 * vv,
    ]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(exprs)
    for e, g, t in zip(expected, got, exprs):
        assert t.shape.as_list() == list(np.shape(e))
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(e, np.float64), rtol=1e-6)


def test_overload_returns_not_implemented_for_unknown_objects() -> None:
    class Other:
        def __radd__(self, other: Any) -> str:
            return "other"

    assert tf.constant([1.0]) + Other() == "other"  # type: ignore[operator, comparison-overlap]


def test_numpy_scalars_on_the_left_defer_to_the_tensor() -> None:
    t = tf.constant([1.0, 5.0])
    for e, op_type, expected in [
        (np.float32(3) < t, "Greater", [False, True]),
        (np.float64(3) >= t, "LessEqual", [True, False]),
        (np.int32(2) % t, "FloorMod", [0.0, 2.0]),
        (np.float32(2) ** t, "Pow", [2.0, 32.0]),
    ]:
        assert isinstance(e, tf.Tensor) and e.op.type == op_type
        np.testing.assert_allclose(run(e), expected)


def test_operators_on_a_graph_that_is_not_the_default() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([1.0, 2.0])
        v = tf.Variable([3.0, 4.0])
    # (a reduction over all axes, no axis given, fails there as in TF 1.15: its axes Const
    # goes to the default graph; test_handson_program_behaviours.py)
    exprs = [x + 1, 2 * v, tf.reduce_sum(x * v, 0), tf.maximum(x, 1.5), tf.cast(x, tf.int32)]
    assert all(e.graph is g for e in exprs)
    with tf.Session(graph=g) as sess:
        sess.run(tf.variables_initializer([v]))
        got = sess.run(exprs)
    np.testing.assert_allclose(got[0], [2.0, 3.0])
    np.testing.assert_allclose(got[1], [6.0, 8.0])
    assert got[2] == 11.0 and list(got[3]) == [1.5, 2.0] and list(got[4]) == [1, 2]


def test_tensor_equality_stays_identity() -> None:
    x = tf.constant([1.0])
    assert x == x and x != tf.constant([1.0])  # TF1: == is identity, not an op
    assert {x: 1}[x] == 1


# ---- registry completeness ----------------------------------------------------------------
def test_every_math_op_has_a_cpu_kernel() -> None:
    ops = [
        "Add",
        "AddV2",
        "Sub",
        "Mul",
        "RealDiv",
        "Div",
        "DivNoNan",
        "FloorDiv",
        "TruncateDiv",
        "FloorMod",
        "TruncateMod",
        "Pow",
        "Maximum",
        "Minimum",
        "SquaredDifference",
        "Less",
        "LessEqual",
        "Greater",
        "GreaterEqual",
        "Equal",
        "NotEqual",
        "LogicalAnd",
        "LogicalOr",
        "LogicalNot",
        "Neg",
        "Abs",
        "Square",
        "Sqrt",
        "Rsqrt",
        "Exp",
        "Log",
        "Log1p",
        "Expm1",
        "Sign",
        "Reciprocal",
        "Floor",
        "Ceil",
        "Round",
        "Sin",
        "Cos",
        "Tan",
        "Asin",
        "Acos",
        "Atan",
        "Tanh",
        "Sigmoid",
        "Conj",
        "IsFinite",
        "IsNan",
        "IsInf",
        "TanhGrad",
        "SigmoidGrad",
        "SqrtGrad",
        "RsqrtGrad",
        "ReciprocalGrad",
        "MatMul",
        "BatchMatMul",
        "Cast",
        "Select",
        "Sum",
        "Prod",
        "Mean",
        "Max",
        "Min",
        "All",
        "Any",
        "ArgMax",
        "ArgMin",
        "Cumsum",
        "Cumprod",
        "AddN",
        "AccumulateNV2",
        "BroadcastGradientArgs",
        "Range",
    ]
    for op in ops:
        assert op_def_registry.lookup(op) is not None, op
        assert kernel_registry.has_kernel(op, "CPU"), op


@pytest.mark.parametrize("fn", [tf.maximum, tf.minimum])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_min_against_a_scalar_give_each_pairs_bits_on_large_tensors(
    fn: Callable[..., Any], dtype: Any
) -> None:
    # Large enough for the kernel to spread the scalar into an array first: each value's
    # result must be numpy's elementwise answer for that pair (NaN payloads, signed zeros).
    special = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, -1.0], dtype)
    x = np.concatenate([np.tile(special, 4200), RNG.standard_normal(1505).astype(dtype)])
    x = x.reshape(-1, 7)
    out = {}
    for k, s in enumerate(special):  # by position: 0.0 and -0.0 are one dict key
        bound = tf.constant(s, dtype=dtype)
        out[k, "right"] = fn(tf.constant(x), bound)
        out[k, "left"] = fn(bound, tf.constant(x))
    got = run(out)
    op = np.maximum if fn is tf.maximum else np.minimum
    bits = np.dtype(f"uint{np.dtype(dtype).itemsize * 8}")
    for (k, side), value in got.items():
        scalar = special[k]
        # numpy's own answer against the scalar operand (its generic loop, pair by pair)
        want = op(x, scalar) if side == "right" else op(scalar, x)
        np.testing.assert_array_equal(value.view(bits), want.view(bits), err_msg=f"{scalar} {side}")
