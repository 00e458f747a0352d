"""Array ops against numpy: values, dtypes, static shapes, node names and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf

RNG = np.random.default_rng(7)


def run(*fetches: Any, feed: dict[Any, Any] | None = None) -> Any:
    with tf.Session() as sess:
        out = sess.run(list(fetches), feed)
    return out[0] if len(out) == 1 else out


def check(t: tf.Tensor, expected: np.ndarray, feed: dict[Any, Any] | None = None) -> np.ndarray:
    """Runs `t`, compares with numpy (value and dtype) and with its static shape."""
    value = np.asarray(run(t, feed=feed))
    expected = np.asarray(expected)
    assert value.dtype == expected.dtype, (value.dtype, expected.dtype)
    np.testing.assert_array_equal(value, expected)
    assert t.shape.is_compatible_with(value.shape), (t.shape, value.shape)
    return value


# ---- constants ---------------------------------------------------------------------------
def test_constant_default_dtypes() -> None:
    assert tf.constant(1).dtype == tf.int32
    assert tf.constant(2**40).dtype == tf.int64
    assert tf.constant(1.5).dtype == tf.float32
    assert tf.constant(True).dtype == tf.bool
    assert tf.constant(np.float64(1.0)).dtype == tf.float64
    assert tf.constant(np.arange(3, dtype=np.int64)).dtype == tf.int64
    assert tf.constant([]).dtype == tf.float32
    c = tf.constant([[1, 2], [3, 4]], dtype=tf.float64)
    assert c.shape == tf.TensorShape([2, 2])
    check(c, np.array([[1, 2], [3, 4]], dtype=np.float64))


def test_constant_strings_come_back_as_bytes() -> None:
    assert run(tf.constant("abc")) == b"abc"
    value = run(tf.constant(["a", b"bc"]))
    assert value.tolist() == [b"a", b"bc"]
    assert tf.constant(["a", "b"]).dtype == tf.string


def test_constant_shape_fills_and_pads() -> None:
    check(tf.constant(7, shape=[2, 3]), np.full((2, 3), 7, dtype=np.int32))
    check(tf.constant([1.0, 2.0], shape=[2, 2]), np.array([[1, 2], [2, 2]], dtype=np.float32))
    check(tf.constant([1, 2, 3, 4], shape=(2, 2)), np.array([[1, 2], [3, 4]], dtype=np.int32))
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        tf.constant([1, 2], shape=[2, 2], verify_shape=True)
    with pytest.raises(ValueError, match="Too many elements"):
        tf.constant([1, 2, 3], shape=[2])


@pytest.mark.parametrize(
    "value,dtype",
    [(1.5, tf.int32), ("a", tf.float32), (5, tf.string), (1, tf.bool), ([1, 2.5], tf.int64)],
)
def test_constant_dtype_conversion_errors(value: Any, dtype: tf.DType) -> None:
    with pytest.raises(TypeError, match=f"Expected {dtype.name}"):
        tf.constant(value, dtype=dtype)


def test_constant_other_bad_values() -> None:
    with pytest.raises(ValueError, match="dense"):
        tf.constant([[1, 2], [3]])
    with pytest.raises(ValueError, match="out of range"):
        tf.constant(300, dtype=tf.uint8)
    with pytest.raises(TypeError):
        tf.constant(tf.constant(1.0))
    # numpy arrays convert to the requested dtype, as in TF.
    check(tf.constant(np.array([1.7, 2.2]), dtype=tf.int32), np.array([1, 2], dtype=np.int32))


# ---- placeholders, identity ----------------------------------------------------------------
def test_placeholder_must_be_fed() -> None:
    x = tf.placeholder(tf.float32, shape=[None, 3], name="inp")
    assert x.shape.as_list() == [None, 3]
    assert tf.placeholder(tf.int32).shape.ndims is None
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"placeholder tensor 'inp'.*float"):
        run(x * 2.0)
    check(x * 2.0, np.ones((2, 3), np.float32) * 2, feed={x: np.ones((2, 3))})


def test_placeholder_with_default() -> None:
    p = tf.placeholder_with_default([1.0, 2.0], shape=[None])
    assert p.op.type == "PlaceholderWithDefault"
    assert p.shape.as_list() == [None]
    check(p, np.array([1, 2], np.float32))
    check(p, np.array([5, 6, 7], np.float32), feed={p: [5, 6, 7]})
    with pytest.raises(ValueError, match="incompatible"):
        tf.placeholder_with_default([1.0, 2.0], shape=[3])


def test_identity_and_stop_gradient() -> None:
    x = tf.constant([1.0, 2.0])
    i = tf.identity(x, name="same")
    assert i.op.name == "same" and i.op.type == "Identity"
    check(i, np.array([1, 2], np.float32))
    s = tf.stop_gradient(x * 3.0)
    assert s.op.type == "StopGradient"
    check(s, np.array([3, 6], np.float32))
    (g,) = tf.gradients(tf.reduce_sum(s * x), x)
    check(g, np.array([3, 6], np.float32))  # only through the second factor


# ---- shapes ------------------------------------------------------------------------------
def test_shape_size_rank_static_and_dynamic() -> None:
    x = tf.constant(np.zeros((2, 3), np.float32))
    s = tf.shape(x)
    assert s.op.type == "Const" and s.op.name == "Shape"
    check(s, np.array([2, 3], np.int32))
    check(tf.size(x, out_type=tf.int64), np.int64(6))
    check(tf.rank(x), np.int32(2))
    p = tf.placeholder(tf.float32, [None, 4])
    feed = {p: np.zeros((5, 4))}
    ds = tf.shape(p, out_type=tf.int64)
    assert ds.op.type == "Shape" and ds.dtype == tf.int64 and ds.shape.as_list() == [2]
    check(ds, np.array([5, 4], np.int64), feed)
    assert tf.size(p).op.type == "Size"
    check(tf.size(p), np.int32(20), feed)
    u = tf.placeholder(tf.float32)
    assert tf.rank(u).op.type == "Rank"
    check(tf.rank(u), np.int32(3), {u: np.zeros((1, 2, 3))})
    with pytest.raises(TypeError):
        tf.shape(x, out_type=tf.float32)


def test_reshape() -> None:
    a = np.arange(24, dtype=np.float32)
    x = tf.constant(a)
    r = tf.reshape(x, [2, -1, 4])
    assert r.shape.as_list() == [2, 3, 4]
    assert r.op.inputs[1].op.name == "Reshape/shape"
    check(r, a.reshape(2, 3, 4))
    check(tf.reshape(r, [-1]), a)
    check(tf.reshape(tf.constant([5]), []), np.int32(5))
    with pytest.raises(ValueError, match="Cannot reshape a tensor with 24 elements"):
        tf.reshape(x, [5, 5])
    # Two wildcards build (TF's shape function leaves both unknown); the run says why not.
    both = tf.reshape(x, [-1, -1])
    assert both.shape.as_list() == [None, None]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Only one input size may be -1"):
        run(both)


def test_reshape_dynamic_and_autopacked_shape() -> None:
    p = tf.placeholder(tf.float32, [None, 2, 3])
    r = tf.reshape(p, [tf.shape(p)[0], -1])
    assert r.shape.as_list() == [None, None]
    assert r.op.inputs[1].op.type == "Pack"
    a = RNG.normal(size=(4, 2, 3)).astype(np.float32)
    check(r, a.reshape(4, 6), {p: a})
    bad = tf.reshape(p, [7, -1], name="bad")
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"(?s)requires a multiple of 7.*node bad"
    ):
        run(bad, feed={p: a})


def test_fill_zeros_ones() -> None:
    check(tf.fill([2, 3], 9), np.full((2, 3), 9, np.int32))
    f = tf.fill(tf.placeholder_with_default([2, 2], [2]), 1.5)
    assert f.shape.as_list() == [None, None]
    check(f, np.full((2, 2), 1.5, np.float32))
    with pytest.raises(ValueError, match="rank 0"):
        tf.fill([2], [1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        run(tf.fill(tf.placeholder_with_default([2, -1], [2]), 0.0))
    z = tf.zeros([2, 3])
    assert z.op.type == "Const" and z.op.name == "zeros"
    check(z, np.zeros((2, 3), np.float32))
    check(tf.ones([3], dtype=tf.int64), np.ones(3, np.int64))
    check(tf.zeros([2], dtype=tf.bool), np.zeros(2, bool))
    assert run(tf.zeros([2], dtype=tf.string)).tolist() == [b"", b""]
    big = tf.ones([100, 100], name="big")
    assert big.op.type == "Fill" and big.op.name == "big"
    check(big, np.ones((100, 100), np.float32))
    n = tf.placeholder(tf.int32, [])
    dyn = tf.zeros([n, 2], dtype=tf.float64)
    assert dyn.op.type == "Fill" and dyn.shape.as_list() == [None, 2]
    check(dyn, np.zeros((3, 2)), {n: 3})


def test_zeros_like_ones_like() -> None:
    x = tf.constant([[1.0, 2.0]])
    check(tf.zeros_like(x), np.zeros((1, 2), np.float32))
    check(tf.ones_like(x, dtype=tf.int32), np.ones((1, 2), np.int32))
    p = tf.placeholder(tf.float64, [None, 2])
    feed = {p: np.zeros((3, 2))}
    zl = tf.zeros_like(p)
    assert zl.op.type == "ZerosLike" and zl.shape.as_list() == [None, 2]
    check(zl, np.zeros((3, 2)), feed)
    ol = tf.ones_like(p, dtype=tf.bool)
    assert ol.shape.as_list() == [None, 2]
    check(ol, np.ones((3, 2), bool), feed)


# ---- transpose, concat, stack, split -----------------------------------------------------
def test_transpose() -> None:
    a = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    x = tf.constant(a)
    t = tf.transpose(x)
    assert t.shape.as_list() == [4, 3, 2] and t.op.name == "transpose"
    assert t.op.inputs[1].op.name == "transpose/perm"
    check(t, a.T)
    check(tf.transpose(x, [1, 0, 2]), a.transpose(1, 0, 2))
    u = tf.placeholder(tf.float32)
    check(tf.transpose(u), a.T, {u: a})
    with pytest.raises(ValueError, match=r"Dimension must be 3 but is 2.*'transpose_"):
        tf.transpose(x, [1, 0])
    with pytest.raises(ValueError, match="out of range"):
        tf.transpose(x, [0, 1, 3])
    with pytest.raises(ValueError, match="duplicate"):
        tf.transpose(x, [0, 1, 1])
    perm = tf.placeholder(tf.int32, [3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicated"):
        run(tf.transpose(x, perm), feed={perm: [0, 0, 1]})
    check(tf.invert_permutation([2, 0, 1]), np.array([1, 2, 0], np.int32))


def test_concat() -> None:
    a = RNG.normal(size=(2, 3)).astype(np.float32)
    b = RNG.normal(size=(2, 1)).astype(np.float32)
    c = tf.concat([a, b], 1)
    assert c.op.type == "ConcatV2" and c.op.name == "concat" and c.shape.as_list() == [2, 4]
    assert c.op.inputs[2].op.name == "concat/axis"
    check(c, np.concatenate([a, b], 1))
    check(tf.concat([a, a], -2), np.concatenate([a, a], 0))
    one = tf.concat([a], 0)
    assert one.op.type == "Identity"
    check(one, a)
    p = tf.placeholder(tf.float32, [None, 3])
    cp = tf.concat([p, a], 0)
    assert cp.shape.as_list() == [None, 3]
    check(cp, np.concatenate([a, a]), {p: a})
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
        tf.concat([a, np.zeros((3, 1), np.float32)], 1)
    with pytest.raises(ValueError, match="Expected concatenating dimensions in the range"):
        tf.concat([a, a], 2)
    with pytest.raises(ValueError, match="rank"):
        tf.concat([a, np.zeros(3, np.float32)], 0)
    with pytest.raises(TypeError):
        tf.concat([tf.constant([1]), tf.constant([1.0])], 0)


def test_stack_unstack() -> None:
    a, b = np.array([1, 2]), np.array([3, 4])
    s = tf.stack([tf.constant(a), b], axis=1)
    assert s.op.type == "Pack" and s.shape.as_list() == [2, 2]
    check(s, np.stack([a, b], 1).astype(np.int64))
    const = tf.stack([[1, 2], [3, 4]])
    assert const.op.type == "Const" and const.op.name == "stack_1"
    with pytest.raises(ValueError, match="axis = 3 not in"):
        tf.stack([tf.constant(a), b], axis=3)
    m = RNG.normal(size=(3, 2)).astype(np.float32)
    parts = tf.unstack(m, axis=1)
    assert len(parts) == 2 and all(p.shape.as_list() == [3] for p in parts)
    v0, v1 = run(*parts)
    np.testing.assert_array_equal(v0, m[:, 0])
    np.testing.assert_array_equal(v1, m[:, 1])
    with pytest.raises(ValueError, match="Cannot infer num"):
        tf.unstack(tf.placeholder(tf.float32, [None, 2]))
    p = tf.placeholder(tf.float32, [None, 2])
    rows = tf.unstack(p, num=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must equal 2"):
        run(rows[0], feed={p: m})


def test_split() -> None:
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    parts = tf.split(a, 3, axis=1)
    assert [p.shape.as_list() for p in parts] == [[4, 2]] * 3
    assert parts[0].op.type == "Split"
    for got, want in zip(run(*parts), np.split(a, 3, axis=1)):
        np.testing.assert_array_equal(got, want)
    sized = tf.split(a, [1, -1, 2], axis=0)
    assert sized[0].op.type == "SplitV"
    assert [p.shape.as_list() for p in sized] == [[1, 6], [1, 6], [2, 6]]
    for got, want in zip(run(*sized), np.split(a, [1, 2], axis=0)):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="evenly divisible by 4"):
        tf.split(a, 4, axis=1)
    with pytest.raises(ValueError, match="Determined shape"):
        tf.split(a, [1, 1], axis=0)
    p = tf.placeholder(tf.float64, [None, 6])
    with pytest.raises(tf.errors.InvalidArgumentError, match="evenly divide"):
        run(tf.split(p, 4)[0], feed={p: a[:3]})


# ---- slicing -----------------------------------------------------------------------------
def test_slice() -> None:
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    s = tf.slice(a, [1, 0, 1], [1, -1, 2])
    assert s.op.type == "Slice" and s.shape.as_list() == [1, 3, 2]
    check(s, a[1:2, :, 1:3])
    with pytest.raises(ValueError, match="size"):
        tf.slice(a, [1, 0, 0], [2, 1, 1])
    b = tf.placeholder(tf.int32, [3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected size\[0\] in \[0, 1\]"):
        run(tf.slice(a, b, [2, 1, 1]), feed={b: [1, 0, 0]})


KEYS = [
    0,
    -1,
    (1, 2),
    (slice(None), 1),
    (slice(1, None), slice(None, None, -1)),
    (slice(None, None, 2), slice(3, 0, -2), slice(None)),
    (Ellipsis, 1),
    (0, Ellipsis),
    (None, 1),
    (Ellipsis, None),
    (slice(None), None, slice(1, 3), 2),
    (slice(-2, None), Ellipsis, slice(None, -1)),
    (slice(10, -10, -1),),
    (slice(5, 1),),
    (),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_getitem_matches_numpy(key: Any) -> None:
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    x = tf.constant(a)
    y = x[key]
    assert y.op.type == "StridedSlice"
    want = a[key]
    assert y.shape.as_list() == list(want.shape)
    check(y, np.asarray(want))
    # The same slice with unknown dims: static shape compatible, value the same.
    p = tf.placeholder(tf.float32, [None, None, 5])
    check(p[key], np.asarray(want), {p: a})


def test_getitem_with_tensor_indices_and_variables() -> None:
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    x = tf.constant(a)
    i = tf.placeholder(tf.int32, [])
    check(x[i, 1:i], a[2, 1:2], {i: 2})
    check(x[:, tf.constant(-1)], a[:, -1])
    v = tf.Variable(a.astype(np.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(v[1]), a[1].astype(np.float32))


def test_getitem_names_and_errors() -> None:
    x = tf.constant(np.zeros((3, 4), np.float32))
    y = x[1:, ::2]
    assert y.op.name == "strided_slice"
    names = sorted(t.op.name for t in y.op.inputs[1:])
    assert names == ["strided_slice/stack", "strided_slice/stack_1", "strided_slice/stack_2"]
    assert y.op.get_attr("begin_mask") == 2 and y.op.get_attr("end_mask") == 3
    assert x[0].op.get_attr("shrink_axis_mask") == 1
    with pytest.raises(TypeError, match="Only integers, slices"):
        x[1.5]
    with pytest.raises(TypeError, match="Only integers, slices"):
        x[tf.constant([1, 2])]
    with pytest.raises(ValueError, match="out of bounds"):
        x[3]
    with pytest.raises(ValueError, match="Index out of range"):
        x[0, 0, 0]
    with pytest.raises(ValueError, match="non-zero"):
        x[::0]
    p = tf.placeholder(tf.float32, [None])
    with pytest.raises(tf.errors.InvalidArgumentError, match="slice index 5 of dimension 0"):
        run(p[5], feed={p: np.zeros(3)})


def test_strided_slice_function_and_bool_mask_key() -> None:
    a = np.arange(10, dtype=np.int32)
    s = tf.strided_slice(a, [8], [2], [-2])
    check(s, a[8:2:-2])
    check(tf.strided_slice(a, [0], [0], begin_mask=1, end_mask=1), a)
    check(tf.strided_slice(a, [3], [4]), a[3:4])
    x = tf.constant(a)
    check(x[a % 3 == 0], a[a % 3 == 0])


# ---- gathers -----------------------------------------------------------------------------
def test_gather() -> None:
    a = RNG.normal(size=(4, 3, 2)).astype(np.float32)
    g = tf.gather(a, [3, 0, 0])
    assert g.op.type == "GatherV2" and g.shape.as_list() == [3, 3, 2]
    check(g, a[[3, 0, 0]])
    idx = np.array([[0, 2], [1, 1]])
    check(tf.gather(a, idx, axis=1), np.take(a, idx, axis=1))
    check(tf.gather(a, tf.constant([1], dtype=tf.int64), axis=-1), a[..., [1]])
    with pytest.raises(TypeError, match="indices"):
        tf.gather(a, [0.5])
    with pytest.raises(ValueError, match="at least rank 4"):
        tf.gather(a, [0], axis=3)
    i = tf.placeholder(tf.int32, [None])
    bad = tf.gather(a, i, name="lookup")
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"(?s)indices\[1\] = 5 is not in \[0, 4\).*node lookup",
    ):
        run(bad, feed={i: [0, 5]})


def test_gather_nd_and_scatter_nd() -> None:
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    idx = np.array([[1, 2], [0, 0]])
    g = tf.gather_nd(a, idx)
    assert g.shape.as_list() == [2, 4]
    check(g, a[idx[:, 0], idx[:, 1]])
    check(tf.gather_nd(a, [[1, 2, 3]]), np.array([23], np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index into param shape"):
        run(tf.gather_nd(a, tf.placeholder_with_default([[2, 0]], [None, 2])))
    s = tf.scatter_nd([[1], [3], [1]], np.array([1.0, 2.0, 3.0], np.float32), [5])
    assert s.shape.as_list() == [5]
    check(s, np.array([0, 4, 0, 2, 0], np.float32))
    s2 = tf.scatter_nd([[0, 1]], np.ones((1, 2), np.int32), [2, 2, 2])
    expected = np.zeros((2, 2, 2), np.int32)
    expected[0, 1] = 1
    check(s2, expected)


# ---- tile, expand_dims, squeeze, reverse, pad --------------------------------------------
def test_tile_expand_squeeze_reverse() -> None:
    a = RNG.normal(size=(2, 1, 3)).astype(np.float32)
    t = tf.tile(a, [2, 3, 1])
    assert t.shape.as_list() == [4, 3, 3]
    check(t, np.tile(a, [2, 3, 1]))
    e = tf.expand_dims(a, -1)
    assert e.shape.as_list() == [2, 1, 3, 1]
    check(e, a[..., None])
    check(tf.expand_dims(a, 0), a[None])
    with pytest.raises(ValueError, match="Tried to expand dim index 5"):
        tf.expand_dims(a, 5)
    with pytest.raises(ValueError, match="Must specify an axis"):
        tf.expand_dims(a)
    sq = tf.squeeze(a)
    assert sq.shape.as_list() == [2, 3]
    check(sq, a[:, 0])
    check(tf.squeeze(a[None], axis=[0, 2]), a[:, 0])
    with pytest.raises(ValueError, match="Can not squeeze dim"):
        tf.squeeze(a, axis=0)
    p = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Can not squeeze dim"):
        run(tf.squeeze(p, [0]), feed={p: np.zeros((2, 3))})
    check(tf.reverse(a, [0, -1]), a[::-1, :, ::-1])
    with pytest.raises(ValueError, match="out of valid range"):
        tf.reverse(a, [3])


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC", "reflect"])
def test_pad_modes(mode: str) -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    pads = [[1, 2], [2, 1]]
    p = tf.pad(a, pads, mode=mode)
    assert p.shape.as_list() == [6, 7]
    assert p.op.type == ("Pad" if mode == "CONSTANT" else "MirrorPad")
    np_mode = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}
    check(p, np.pad(a, pads, mode=np_mode[mode.upper()]))


@pytest.mark.parametrize(
    ("value", "pads"),
    [
        (np.arange(12, dtype=np.float32).reshape(3, 4), [[1, 2], [0, 3]]),
        (np.arange(6, dtype=np.int64).reshape(1, 2, 3), [[0, 0], [2, 0], [1, 1]]),
        (np.array([True, False]), [[3, 1]]),
        (np.array([1 + 2j, 3 - 1j], np.complex64), [[1, 0]]),
        (np.zeros((0, 2), np.float64), [[1, 1], [0, 2]]),
        (np.float32(5.0), []),
    ],
)
def test_zero_padding_of_fed_values_of_every_rank_and_dtype(value: Any, pads: Any) -> None:
    x = tf.placeholder(tf.as_dtype(np.asarray(value).dtype), np.shape(value))
    expected = np.pad(value, pads, mode="constant") if pads else np.asarray(value)
    check(tf.pad(x, np.asarray(pads, np.int32).reshape(-1, 2)), expected, feed={x: value})


def test_pad_constant_values_and_errors() -> None:
    a = np.ones((2, 2), np.int32)
    p = tf.pad(a, [[0, 1], [1, 0]], constant_values=7)
    assert p.op.type == "PadV2"
    check(p, np.pad(a, [[0, 1], [1, 0]], constant_values=7))
    with pytest.raises(ValueError, match="Unknown padding mode"):
        tf.pad(a, [[0, 1], [1, 0]], mode="WRAP")
    with pytest.raises(ValueError, match="rank of inputs"):
        tf.pad(a, [[0, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="less than the dimension size"):
        run(tf.pad(a, [[2, 0], [0, 0]], mode="REFLECT"))


# ---- where, masks, one_hot, unique, sequence_mask ----------------------------------------
def test_where() -> None:
    c = np.array([[True, False], [False, True]])
    w = tf.where(c)
    assert w.dtype == tf.int64 and w.shape.as_list() == [None, 2]
    check(w, np.argwhere(c).astype(np.int64))
    x = np.array([[1, 2], [3, 4]], np.float32)
    s = tf.where(c, x, -x)
    assert s.op.type == "Select"
    check(s, np.where(c, x, -x))
    with pytest.raises(ValueError, match="both"):
        tf.where(c, x)


def test_boolean_mask() -> None:
    a = RNG.normal(size=(3, 4, 2)).astype(np.float32)
    m1 = np.array([True, False, True])
    check(tf.boolean_mask(a, m1), a[m1])
    m2 = RNG.uniform(size=(3, 4)) > 0.5
    b = tf.boolean_mask(a, m2)
    assert b.shape.as_list() == [None, 2]
    check(b, a[m2])
    m3 = np.array([False, True, True, False])
    check(tf.boolean_mask(a, m3, axis=1), a[:, m3])
    with pytest.raises(ValueError, match="scalar"):
        tf.boolean_mask(a, True)
    with pytest.raises(ValueError):
        tf.boolean_mask(a, np.array([True, False]))


def test_one_hot() -> None:
    idx = np.array([0, 2, -1, 5])
    o = tf.one_hot(idx, 3)
    assert o.dtype == tf.float32 and o.shape.as_list() == [4, 3]
    check(o, np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]], np.float32))
    o2 = tf.one_hot([[1, 0]], 2, on_value=5, off_value=-1, axis=0)
    assert o2.dtype == tf.int32 and o2.shape.as_list() == [2, 1, 2]
    check(o2, np.array([[[-1, 5]], [[5, -1]]], np.int32))
    check(tf.one_hot([1], 2, dtype=tf.float64), np.array([[0, 1]], np.float64))
    with pytest.raises(TypeError, match="does not match"):
        tf.one_hot([1], 2, on_value=tf.constant(1.0), dtype=tf.int32)
    with pytest.raises(ValueError, match="Expected axis to be -1 or between"):
        tf.one_hot([1], 2, axis=3)


def test_unique_and_sequence_mask() -> None:
    y, idx = tf.unique([4, 1, 4, 2, 1])
    assert y.shape.as_list() == [None] and idx.shape.as_list() == [5]
    yv, iv = run(y, idx)
    np.testing.assert_array_equal(yv, [4, 1, 2])
    np.testing.assert_array_equal(iv, [0, 1, 0, 2, 1])
    assert iv.dtype == np.int32
    m = tf.sequence_mask([1, 3, 0], 4)
    check(m, np.arange(4)[None, :] < np.array([1, 3, 0])[:, None])
    check(tf.sequence_mask([2, 1], dtype=tf.float32), np.array([[1, 1], [1, 0]], np.float32))


# ---- conversion and graph round trip -----------------------------------------------------
def test_autopacking_lists_of_tensors() -> None:
    a = tf.constant(3)
    t = tf.convert_to_tensor([a, 4, [5, a][0]])
    assert t.op.type == "Pack" and t.op.name == "packed"
    check(t, np.array([3, 4, 5], np.int32))
    nested = tf.convert_to_tensor([[a, 1], [2, 3]])
    check(nested, np.array([[3, 1], [2, 3]], np.int32))
    assert tf.convert_to_tensor([1, 2]).op.type == "Const"
    assert tf.convert_to_tensor([1, 2], preferred_dtype=tf.int64).dtype == tf.int64
    # TF 1.15 casts a tensor of another dtype to the one asked for (tests/unit/
    # test_autopacking.py has the recorded cases).
    cast = tf.convert_to_tensor([a, 1], dtype=tf.int64)
    assert [i.op.type for i in cast.op.inputs] == ["Cast", "Const"]
    check(cast, np.array([3, 1], np.int64))


def test_graph_def_round_trip_runs_the_same() -> None:
    a = RNG.normal(size=(3, 4)).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    parts = tf.split(x, [1, 3], axis=1)
    y = tf.concat([tf.transpose(parts[1])[::-1], tf.tile(tf.transpose(parts[0]), [1, 1])], 0)
    z = tf.one_hot(tf.argmax(tf.pad(y, [[0, 0], [1, 1]], mode="SYMMETRIC"), axis=1), 5)
    out = tf.gather(tf.reshape(z, [-1]), [0, 3], name="out")
    want = run(out, feed={x: a})
    graph_def = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        g = tf.get_default_graph()
        got = run(g.get_tensor_by_name("out:0"), feed={g.get_tensor_by_name("x:0"): a})
    np.testing.assert_array_equal(got, want)
