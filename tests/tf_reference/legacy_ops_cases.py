"""Programs over TF 1.15's older raw op types (BatchMatMulV2, Concat, Gather, Mod, Inv,
MaxPoolV2, UniqueV2, ...): each case builds a graph with `tf` (TensorFlow 1.15 when recorded by
record_legacy_ops.py, tfcluster in tests/unit/test_legacy_ops.py) and returns what it computes:
values, static dtypes and shapes, gradients and the class of each error. Python 3.7 code."""

import numpy as np

RNG = np.random.RandomState(15)
F32 = RNG.randn(2, 3, 4).astype(np.float32)
MAT = RNG.randn(4, 5).astype(np.float32)
BATCH_A = RNG.randn(2, 1, 3, 4).astype(np.float32)
BATCH_B = RNG.randn(5, 4, 2).astype(np.float32)
IMG = RNG.randn(2, 5, 6, 3).astype(np.float32)


def _run(tf, fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def _err(fn):
    try:
        fn()
    except Exception as e:  # the class is what is compared
        return type(e).__name__
    return "none"


def _static(t):
    shape = None if t.shape.ndims is None else t.shape.as_list()
    return {"dtype": t.dtype.name, "shape": shape}


def _weights(tf, y):
    """A gradient seed that is not all ones: 1, 2, 3, ... in y's shape."""
    n = tf.size(y)
    return tf.reshape(tf.cast(tf.range(1, n + 1), y.dtype), tf.shape(y))


def _grads(tf, y, xs):
    gs = tf.gradients(y, xs, grad_ys=_weights(tf, y))
    return [tf.convert_to_tensor(g) for g in gs]


def _case(tf, y, xs=(), extra=None):
    out = {"static": _static(y)}
    fetches = {"out": y}
    if xs:
        fetches["grads"] = _grads(tf, y, list(xs))
    if extra:
        fetches.update(extra)
    out.update(_run(tf, fetches))
    return out


# ---- matmul ----------------------------------------------------------------------------------


def batch_matmul_v2_broadcast(tf):
    a, b = tf.constant(BATCH_A), tf.constant(BATCH_B)
    return _case(tf, tf.raw_ops.BatchMatMulV2(x=a, y=b), [a, b])


def batch_matmul_v2_adjoints(tf):
    rng = np.random.RandomState(65)  # its own: a case runs alone too
    a = tf.constant(rng.randn(3, 4, 2).astype(np.float64))
    b = tf.constant(rng.randn(1, 5, 4).astype(np.float64))
    return _case(tf, tf.raw_ops.BatchMatMulV2(x=a, y=b, adj_x=True, adj_y=True), [a, b])


def batch_matmul_v2_complex_adjoint(tf):
    rng = np.random.RandomState(71)
    re = rng.randn(2, 3, 3).astype(np.float32)
    a = tf.complex(tf.constant(re), tf.constant(re[::-1].copy()))
    b = tf.constant((re + 1j * re.T.transpose(2, 0, 1)).astype(np.complex64))
    return _case(tf, tf.raw_ops.BatchMatMulV2(x=a, y=b, adj_x=True))


def batch_matmul_v2_errors(tf):
    p = tf.placeholder(tf.float32)
    q = tf.placeholder(tf.float32)
    y = tf.raw_ops.BatchMatMulV2(x=p, y=q)
    feeds = {
        "batch": (np.zeros([2, 3, 4], np.float32), np.zeros([3, 4, 2], np.float32)),
        "inner": (np.zeros([2, 3, 4], np.float32), np.zeros([2, 3, 2], np.float32)),
        "rank1": (np.zeros([4], np.float32), np.zeros([4, 2], np.float32)),
    }
    out = {}
    for name, (va, vb) in sorted(feeds.items()):
        out["run_" + name] = _err(lambda va=va, vb=vb: _run(tf, y, {p: va, q: vb}))
    out["static_batch"] = _err(
        lambda: tf.raw_ops.BatchMatMulV2(x=tf.zeros([2, 3, 4]), y=tf.zeros([3, 4, 2]))
    )
    out["static_rank1"] = _err(lambda: tf.raw_ops.BatchMatMulV2(x=tf.zeros([4]), y=tf.zeros([4])))
    return out


def matmul_of_batches(tf):
    """tf.matmul of rank-3 operands (and rank 3 by rank 2) emits BatchMatMulV2."""
    a = tf.constant(F32)
    b = tf.constant(MAT)
    y = tf.matmul(a, b)
    z = tf.matmul(a, tf.constant(F32), transpose_b=True)
    out = _case(tf, y, [a, b])
    out["types"] = [y.op.type, z.op.type]
    out["z"] = _run(tf, z)
    return out


# ---- array ops ---------------------------------------------------------------------------


def concat_axis_first(tf):
    a = tf.constant(F32)
    b = tf.constant(F32[:, :2] * 2)
    return _case(tf, tf.raw_ops.Concat(concat_dim=1, values=[a, b]), [a, b])


def concat_negative_axis(tf):
    a = tf.constant(F32)
    return _case(tf, tf.raw_ops.Concat(concat_dim=-1, values=[a, a, a]), [a])


def concat_errors(tf):
    d = tf.placeholder(tf.int32)
    y = tf.raw_ops.Concat(concat_dim=d, values=[tf.constant(F32), tf.constant(F32)])
    return {
        "axis_out_of_range": _err(lambda: _run(tf, y, {d: 3})),
        "static_scalars": _err(lambda: tf.raw_ops.Concat(concat_dim=0, values=[1.0, 2.0])),
    }


def gather_rows(tf):
    p = tf.constant(MAT)
    y = tf.raw_ops.Gather(params=p, indices=[[3, 0], [3, 1]])
    return _case(tf, y, [p])


def gather_errors(tf):
    p = tf.constant(MAT)
    return {"out_of_range": _err(lambda: _run(tf, tf.raw_ops.Gather(params=p, indices=[4])))}


def reverse_mask(tf):
    a = tf.constant(F32)
    return _case(tf, tf.raw_ops.Reverse(tensor=a, dims=[True, False, True]), [a])


def reverse_errors(tf):
    d = tf.placeholder(tf.bool)
    y = tf.raw_ops.Reverse(tensor=tf.constant(F32), dims=d)
    return {"wrong_length": _err(lambda: _run(tf, y, {d: [True, False]}))}


def unique_v2_axes(tf):
    x = tf.constant([[1, 2, 1], [3, 4, 3], [1, 2, 1]])
    out = {}
    for name, axis in [("rows", [0]), ("cols", [1]), ("last", [-1])]:
        y, idx = tf.raw_ops.UniqueV2(x=x, axis=axis)
        out[name] = _run(tf, [y, idx])
        out[name + "_static"] = [_static(y), _static(idx)]
    v = tf.constant([5, 3, 5, 1, 3], dtype=tf.int64)
    y, idx = tf.raw_ops.UniqueV2(x=v, axis=tf.constant([], tf.int64), out_idx=tf.int64)
    out["vector_no_axis"] = _run(tf, [y, idx])
    out["vector_no_axis_static"] = [_static(y), _static(idx)]
    s = tf.constant([b"b", b"a", b"b"])
    out["strings"] = _run(tf, list(tf.raw_ops.UniqueV2(x=s, axis=[0])))
    return out


def unique_with_counts_v2(tf):
    x = tf.constant([[1, 2], [3, 4], [1, 2], [1, 2]], dtype=tf.float32)
    y, idx, count = tf.raw_ops.UniqueWithCountsV2(x=x, axis=[0])
    out = {"static": [_static(y), _static(idx), _static(count)]}
    out["values"] = _run(tf, [y, idx, count])
    return out


def unique_v2_errors(tf):
    x = tf.constant([[1, 2], [3, 4]])
    return {
        "axis_out_of_range": _err(lambda: _run(tf, tf.raw_ops.UniqueV2(x=x, axis=[2]))),
        "two_axes": _err(lambda: _run(tf, tf.raw_ops.UniqueV2(x=x, axis=[0, 1]))),
        "matrix_no_axis": _err(
            lambda: _run(tf, tf.raw_ops.UniqueV2(x=x, axis=tf.constant([], tf.int32)))
        ),
    }


def conjugate_transpose(tf):
    re = tf.constant(F32)
    x = tf.complex(re, 2 * re)
    y = tf.raw_ops.ConjugateTranspose(x=x, perm=[2, 0, 1])
    real = tf.raw_ops.ConjugateTranspose(x=re, perm=[1, 0, 2])
    out = _case(tf, y)
    out["real"] = _run(tf, real)
    out["grad"] = _run(tf, tf.gradients(tf.abs(y) * tf.abs(y), re))
    return out


def data_format_ops(tf):
    out = {}
    dm = tf.raw_ops.DataFormatDimMap(x=[0, 1, 2, 3, -1, -4])
    dm2 = tf.raw_ops.DataFormatDimMap(x=[0, 1, 2, 3], src_format="NCHW", dst_format="NHWC")
    vp = tf.raw_ops.DataFormatVecPermute(x=[10, 20, 30, 40])
    vp2 = tf.raw_ops.DataFormatVecPermute(
        x=[[1, 2], [3, 4], [5, 6], [7, 8]], src_format="NCHW", dst_format="NHWC"
    )
    out["values"] = _run(tf, [dm, dm2, vp, vp2])
    out["static"] = [_static(t) for t in (dm, vp, vp2)]
    x = tf.placeholder(tf.int32)
    out["bad_vector"] = _err(lambda: _run(tf, tf.raw_ops.DataFormatVecPermute(x=x), {x: [1, 2, 3]}))
    return out


def copies(tf):
    a = tf.constant(F32)
    ys = [
        tf.raw_ops.Snapshot(input=a),
        tf.raw_ops.DeepCopy(x=a),
        tf.raw_ops.DebugGradientIdentity(input=a),
    ]
    out = {"values": _run(tf, ys), "static": [_static(y) for y in ys]}
    out["grads"] = [_err(lambda y=y: tf.gradients(y, a)) for y in ys]
    return out


def empty_init(tf):
    y = tf.raw_ops.Empty(shape=[2, 3], dtype=tf.int32, init=True)
    z = tf.raw_ops.Empty(shape=[0, 4], dtype=tf.float64)
    out = {"static": [_static(y), _static(z)], "values": _run(tf, [y, z])}
    s = tf.placeholder(tf.int32)
    out["negative"] = _err(lambda: _run(tf, tf.raw_ops.Empty(shape=s, dtype=tf.float32), {s: [-1]}))
    return out


def inplace_updates(tf):
    x = tf.constant(MAT)
    v = tf.constant(MAT[:2] * 10)
    ys = [
        tf.raw_ops.InplaceAdd(x=x, i=[1, 1], v=v),
        tf.raw_ops.InplaceSub(x=x, i=[3, 0], v=v),
        tf.raw_ops.InplaceUpdate(x=x, i=[2, 2], v=v),
    ]
    # One op per run: TF's in-place ops alias their input's buffer, so ops of one run that
    # share an input see each other's writes.
    out = {"values": [_run(tf, y) for y in ys], "static": [_static(y) for y in ys]}
    out["bad_index"] = _err(lambda: _run(tf, tf.raw_ops.InplaceAdd(x=x, i=[7, 0], v=v)))
    out["grad"] = _err(lambda: tf.gradients(ys[0], x))
    return out


def scatter_nd_non_aliasing_add(tf):
    x = tf.constant(MAT)
    u = tf.constant(MAT[:3] * 2)
    y = tf.raw_ops.ScatterNdNonAliasingAdd(input=x, indices=[[1], [3], [1]], updates=u)
    return _case(tf, y, [x, u])


# ---- math ----------------------------------------------------------------------------------


def mod_truncates(tf):
    ints = tf.raw_ops.Mod(x=[7, -7, 7, -7], y=[3, 3, -3, -3])
    floats = tf.raw_ops.Mod(x=[7.5, -7.5, 7.5, -7.5], y=[2.0, 2.0, -2.0, -2.0])
    z = tf.placeholder(tf.int32)
    out = {"values": _run(tf, [ints, floats]), "static": [_static(ints), _static(floats)]}
    out["by_zero"] = _err(lambda: _run(tf, tf.raw_ops.Mod(x=[1, 2], y=z), {z: [1, 0]}))
    return out


def mod_gradient(tf):
    x = tf.constant([3.5, -1.0])
    return {"error": _err(lambda: tf.gradients(tf.raw_ops.Mod(x=x, y=2.0), x))}


def inv_and_inv_grad(tf):
    x = tf.constant([[1.5, -2.0, 4.0, 0.25]])
    y = tf.raw_ops.Inv(x=x)
    g = tf.gradients(y, x, grad_ys=_weights(tf, y))[0]
    gg = tf.gradients(g, x)[0]
    out = _case(tf, y, [x])
    out["second"] = _run(tf, gg)
    dy = tf.constant([[1.0, 2.0, 3.0, 4.0]])
    ig = tf.raw_ops.InvGrad(y=x, dy=dy)
    out["inv_grad"] = _run(tf, [ig, *_grads(tf, ig, [x, dy])])
    return out


def clip_by_value(tf):
    x = tf.constant(MAT)
    ys = [
        tf.raw_ops.ClipByValue(t=x, clip_value_min=-0.5, clip_value_max=0.5),
        tf.raw_ops.ClipByValue(t=x, clip_value_min=0.5, clip_value_max=-0.5),
        tf.raw_ops.ClipByValue(t=x, clip_value_min=tf.constant(MAT * 0.5), clip_value_max=1.0),
    ]
    out = {"values": _run(tf, ys), "static": [_static(y) for y in ys]}
    lo = tf.placeholder(tf.float32)
    bad = tf.raw_ops.ClipByValue(t=x, clip_value_min=lo, clip_value_max=1.0)
    out["bad_bound"] = _err(lambda: _run(tf, bad, {lo: [0.0, 1.0]}))
    out["grad"] = _err(lambda: tf.gradients(ys[0], x))
    return out


def approximate_equal(tf):
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    y = tf.raw_ops.ApproximateEqual(x=x, y=[1.0, 2.05, 3.0000001, 5.0], tolerance=0.1)
    z = tf.raw_ops.ApproximateEqual(x=x, y=[1.0, 2.05, 3.0000001, 5.0])
    p = tf.placeholder(tf.float32)
    out = {"values": _run(tf, [y, z]), "static": _static(y)}
    out["shape_mismatch"] = _err(
        lambda: _run(tf, tf.raw_ops.ApproximateEqual(x=x, y=p), {p: [1.0, 2.0]})
    )
    out["grad"] = [g is None for g in tf.gradients(tf.cast(y, tf.float32), x)]
    return out


def compare_and_bitpack(tf):
    f = tf.raw_ops.CompareAndBitpack(input=np.linspace(-1, 1, 24).reshape(3, 8), threshold=0.1)
    i = tf.raw_ops.CompareAndBitpack(input=np.arange(16, dtype=np.int32), threshold=6)
    b = tf.raw_ops.CompareAndBitpack(
        input=np.array([True, False] * 4 + [False, True] * 4), threshold=False
    )
    out = {"values": _run(tf, [f, i, b]), "static": [_static(t) for t in (f, i, b)]}
    out["not_multiple_of_8"] = _err(
        lambda: tf.raw_ops.CompareAndBitpack(input=np.zeros([3, 5], np.float32), threshold=0.0)
    )
    return out


def population_count(tf):
    cases = {
        "int8": np.array([0, 1, -1, 127, -128], np.int8),
        "uint8": np.array([0, 3, 255], np.uint8),
        "int16": np.array([[7, -1], [1024, -32768]], np.int16),
        "int32": np.array([7, -1, 2**31 - 1], np.int32),
        "int64": np.array([-1, 2**40 + 5], np.int64),
    }
    ys = {k: tf.raw_ops.PopulationCount(x=v) for k, v in cases.items()}
    out = {"values": _run(tf, ys), "static": {k: _static(y) for k, y in ys.items()}}
    return out


def nth_element(tf):
    x = tf.constant(F32)
    y = tf.raw_ops.NthElement(input=x, n=1)
    r = tf.raw_ops.NthElement(input=x, n=0, reverse=True)
    out = _case(tf, y, [x])
    out["reverse"] = _run(tf, [r, *_grads(tf, r, [x])])
    ties = tf.constant([[1.0, 3.0, 3.0, 2.0]])
    t = tf.raw_ops.NthElement(input=ties, n=2)
    out["ties"] = _run(tf, [t, *_grads(tf, t, [ties])])
    n = tf.placeholder(tf.int32)
    out["too_large"] = _err(lambda: _run(tf, tf.raw_ops.NthElement(input=x, n=n), {n: 4}))
    out["negative"] = _err(lambda: _run(tf, tf.raw_ops.NthElement(input=x, n=n), {n: -1}))
    return out


def sparse_dense_cwise(tf):
    rng = np.random.RandomState(361)
    idx = np.array([[0, 0, 1], [0, 2, 3], [1, 1, 0]], np.int64)
    vals = tf.constant([2.0, -3.0, 5.0])
    shape = np.array([2, 3, 4], np.int64)
    dense = tf.constant(rng.rand(3, 1).astype(np.float32) + 0.5)
    ys = {}
    for op in ("Add", "Mul", "Div"):
        fn = getattr(tf.raw_ops, "SparseDenseCwise" + op)
        ys[op] = fn(sp_indices=idx, sp_values=vals, sp_shape=shape, dense=dense)
    out = {"values": _run(tf, ys), "static": {k: _static(y) for k, y in ys.items()}}
    out["mul_grads"] = _run(tf, _grads(tf, ys["Mul"], [vals, dense]))
    out["div_grads"] = _run(tf, _grads(tf, ys["Div"], [vals, dense]))
    out["add_grad"] = _err(lambda: tf.gradients(ys["Add"], [vals, dense]))
    bad = tf.raw_ops.SparseDenseCwiseMul(
        sp_indices=idx, sp_values=vals, sp_shape=shape, dense=tf.ones([2, 4])
    )
    out["bad_broadcast"] = _err(lambda: _run(tf, bad))
    return out


def cholesky_grad(tf):
    rng = np.random.RandomState(378)
    a = rng.randn(2, 3, 3)
    spd = a @ a.transpose(0, 2, 1) + 3 * np.eye(3)
    l = tf.linalg.cholesky(tf.constant(spd))
    g = tf.constant(rng.randn(2, 3, 3))
    y = tf.raw_ops.CholeskyGrad(l=l, grad=g)
    return _case(tf, y)


# ---- nn ------------------------------------------------------------------------------------


def bias_add_v1(tf):
    x = tf.constant(F32)
    b = tf.constant([1.0, -2.0, 3.0, 0.5])
    return _case(tf, tf.raw_ops.BiasAddV1(value=x, bias=b), [x, b])


def max_pool_v2(tf):
    x = tf.constant(IMG)
    out = {}
    for padding in ("VALID", "SAME"):
        y = tf.raw_ops.MaxPoolV2(input=x, ksize=[1, 2, 3, 1], strides=[1, 2, 2, 1], padding=padding)
        g = tf.gradients(y, x, grad_ys=_weights(tf, y))[0]
        out[padding] = _run(tf, [y, g])
        out[padding + "_static"] = [_static(y), _static(g)]
        seed = tf.constant(IMG * 0.1)
        gv2 = tf.raw_ops.MaxPoolGradV2(
            orig_input=x,
            orig_output=y,
            grad=_weights(tf, y),
            ksize=[1, 2, 3, 1],
            strides=[1, 2, 2, 1],
            padding=padding,
        )
        out[padding + "_second_order"] = _run(tf, _grads(tf, gv2, [x, y]))
        out[padding + "_grad_grad"] = _run(
            tf,
            tf.raw_ops.MaxPoolGradGradV2(
                orig_input=x,
                orig_output=y,
                grad=seed,
                ksize=[1, 2, 3, 1],
                strides=[1, 2, 2, 1],
                padding=padding,
            ),
        )
        out[padding + "_grad_v2"] = _run(tf, gv2)
    k = tf.placeholder(tf.int32)
    dyn = tf.raw_ops.MaxPoolV2(input=x, ksize=k, strides=[1, 1, 1, 1], padding="VALID")
    out["dynamic_static"] = _static(dyn)
    out["dynamic"] = _run(tf, dyn, {k: [1, 3, 3, 1]})
    out["bad_ksize"] = _err(lambda: _run(tf, dyn, {k: [1, 3, 3]}))
    return out


def fused_pad_conv2d(tf):
    rng = np.random.RandomState(436)
    # One image: TF 1.15's fused convs give every image of a batch the first one's result.
    x = tf.constant(IMG[:1])
    f = tf.constant(rng.randn(3, 2, 3, 4).astype(np.float32))
    y = tf.raw_ops.FusedPadConv2D(
        input=x,
        paddings=[[0, 0], [1, 2], [2, 1], [0, 0]],
        filter=f,
        mode="REFLECT",
        strides=[1, 1, 2, 1],
        padding="VALID",
    )
    x1 = x
    z = tf.raw_ops.FusedResizeAndPadConv2D(
        input=x1,
        size=[7, 4],
        paddings=[[0, 0], [1, 1], [1, 1], [0, 0]],
        filter=f,
        mode="SYMMETRIC",
        strides=[1, 2, 1, 1],
        padding="SAME",
    )
    w = tf.raw_ops.FusedResizeAndPadConv2D(
        input=x1,
        size=[3, 9],
        paddings=[[0, 0], [0, 0], [0, 0], [0, 0]],
        filter=f,
        mode="REFLECT",
        strides=[1, 1, 1, 1],
        padding="VALID",
        resize_align_corners=True,
    )
    return {"values": _run(tf, [y, z, w]), "static": [_static(t) for t in (y, z, w)]}


def scale_and_translate(tf):
    x = tf.constant(IMG[:, :4, :5])
    out = {}
    for kernel_type in (
        "lanczos1",
        "lanczos3",
        "lanczos5",
        "gaussian",
        "box",
        "triangle",
        "keyscubic",
        "mitchellcubic",
    ):
        for antialias, size, scale, shift in [
            (True, [7, 3], [1.75, 0.6], [0.0, 0.0]),
            (False, [3, 9], [0.75, 1.8], [0.5, -1.0]),
        ]:
            y = tf.raw_ops.ScaleAndTranslate(
                images=x,
                size=size,
                scale=scale,
                translation=shift,
                kernel_type=kernel_type,
                antialias=antialias,
            )
            key = f"{kernel_type}_{antialias}"
            out[key] = _run(tf, [y, *_grads(tf, y, [x])])
            out[key + "_static"] = _static(y)
    ints = tf.raw_ops.ScaleAndTranslate(
        images=tf.constant(np.arange(24, dtype=np.int32).reshape(1, 2, 3, 4)),
        size=[4, 2],
        scale=[2.0, 0.7],
        translation=[0.0, 0.0],
    )
    out["ints"] = _run(tf, ints)
    return out


# ---- strings, files, variables ---------------------------------------------------------------


def decode_padded_raw(tf):
    # One string per call: TF 1.15 writes string i at row i * (bytes per element), out of
    # place (and out of bounds) for every row after the first.
    data = tf.constant([b"\x01\x02\x03\x04\x05"])
    le = tf.raw_ops.DecodePaddedRaw(input_bytes=data, fixed_length=4, out_type=tf.int16)
    be = tf.raw_ops.DecodePaddedRaw(
        input_bytes=data, fixed_length=4, out_type=tf.uint16, little_endian=False
    )
    fl = tf.raw_ops.DecodePaddedRaw(
        input_bytes=tf.constant([[b"\x00\x00\x80?\x00\x00"]]), fixed_length=8, out_type=tf.float32
    )
    out = {"values": _run(tf, [le, be, fl]), "static": [_static(t) for t in (le, be, fl)]}
    n = tf.placeholder(tf.int32)
    bad = tf.raw_ops.DecodePaddedRaw(input_bytes=data, fixed_length=n, out_type=tf.int32)
    out["not_multiple"] = _err(lambda: _run(tf, bad, {n: 6}))
    return out


def sharded_filespec(tf):
    y = tf.raw_ops.ShardedFilespec(basename="/tmp/model.ckpt", num_shards=12)
    return {"value": _run(tf, y), "static": _static(y)}


def variable_v1(tf):
    v = tf.raw_ops.Variable(shape=[2, 2], dtype=tf.float32, name="old_var")
    init = tf.assign(v, [[1.0, 2.0], [3.0, 4.0]])
    ident = tf.raw_ops.RefIdentity(input=v)
    dbg = tf.raw_ops.DebugGradientRefIdentity(input=v)
    bump = tf.assign_add(ident, [[1.0, 1.0], [1.0, 1.0]])
    with tf.Session() as sess:
        sess.run(init)
        sess.run(bump)
        values = sess.run([v, ident, dbg])
        uninit = _err(lambda: sess.run(tf.raw_ops.Variable(shape=[1], dtype=tf.int32)))
    return {
        "values": values,
        "types": [v.dtype.name, ident.dtype.name, dbg.dtype.name],
        "names": [v.op.name, ident.op.name],
        "uninitialized": uninit,
        "static": [_static(v), _static(ident)],
    }


def strided_slice_assign(tf):
    v = tf.Variable(MAT, name="sliced")
    a = tf.raw_ops.StridedSliceAssign(
        ref=v, begin=[0, 1], end=[4, 5], strides=[2, 2], value=[[1.0, 2.0], [3.0, 4.0]]
    )
    b = tf.raw_ops.StridedSliceAssign(
        ref=v, begin=[1], end=[0], strides=[1], value=[5.0] * 5, shrink_axis_mask=1
    )
    bad = tf.raw_ops.StridedSliceAssign(ref=v, begin=[0], end=[2], strides=[1], value=[1.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(a)
        first = sess.run(v)
        sess.run(b)
        second = sess.run(v)
        mismatch = _err(lambda: sess.run(bad))
    return {
        "values": [first, second],
        "static": _static(a),
        "mismatch": mismatch,
        "uninitialized": _err(
            lambda: _run(
                tf,
                tf.raw_ops.StridedSliceAssign(
                    ref=tf.Variable([1.0, 2.0]), begin=[0], end=[1], strides=[1], value=[3.0]
                ),
            )
        ),
    }


def ref_select(tf):
    v = tf.Variable([1.0, 2.0], name="first")
    w = tf.Variable([3.0, 4.0], name="second")
    i = tf.placeholder(tf.int32, [])
    y = tf.raw_ops.RefSelect(index=i, inputs=[v, w])
    with tf.Session() as sess:
        sess.run([v.initializer, w.initializer])
        values = [sess.run(y, {i: 0}), sess.run(y, {i: 1})]
        sess.run(tf.assign_add(y, [10.0, 10.0]), {i: 1})
        values.append(sess.run(w))
        bad = _err(lambda: sess.run(y, {i: 2}))
    return {"values": values, "static": _static(y), "bad_index": bad}


def temporary_variable(tf):
    t = tf.raw_ops.TemporaryVariable(shape=[2, 2], dtype=tf.float32, var_name="tmp")
    a = tf.assign(t, [[1.0, 2.0], [3.0, 4.0]])
    b = tf.assign_add(a, [[1.0, 1.0], [1.0, 1.0]])
    d = tf.raw_ops.DestroyTemporaryVariable(ref=b, var_name="tmp")
    return {"value": _run(tf, d), "static": [_static(t), _static(d)]}


def deserialize_sparse(tf):
    def st(indices, values, shape):
        return tf.SparseTensor(
            np.array(indices, np.int64), np.array(values, np.float32), np.array(shape, np.int64)
        )

    parts = [
        st([[0, 1], [2, 0]], [1.0, 2.0], [3, 2]),
        st([[1, 1]], [3.0], [2, 4]),
        st([[0, 0], [0, 3], [1, 2]], [4.0, 5.0, 6.0], [2, 4]),
        st([[2, 1]], [7.0], [3, 3]),
    ]
    serialized = [tf.io.serialize_sparse(p) for p in parts]
    grid = tf.reshape(tf.stack(serialized), [2, 2, 3])
    out = {}
    for name, s in [("one", serialized[0]), ("batch", tf.stack(serialized)), ("grid", grid)]:
        y = tf.raw_ops.DeserializeSparse(serialized_sparse=s, dtype=tf.float32)
        out[name] = _run(tf, list(y))
        out[name + "_static"] = [_static(t) for t in y]
    out["wrong_dtype"] = _err(
        lambda: _run(tf, list(tf.raw_ops.DeserializeSparse(serialized_sparse=grid, dtype=tf.int32)))
    )
    out["bad_last_dim"] = _err(
        lambda: tf.raw_ops.DeserializeSparse(serialized_sparse=["a", "b"], dtype=tf.float32)
    )
    return out


# ---- the V1 checkpoint format ------------------------------------------------------------

V1_TENSORS = [
    ("a", np.arange(6, dtype=np.float32).reshape(2, 3), ""),
    ("b/int64", np.array([1, -2, 3], np.int64), ""),
    ("c", np.array([[b"x", b"yz"]], dtype=object), ""),
    ("d", np.array([0.5, 1.5], np.float64), ""),
    ("e", np.array([[True, False]]), ""),
    ("f", np.array(7, np.int32), ""),
    ("g", np.array([1.0 - 2.0j], np.complex64), ""),
    ("h", np.array([1, 2, 255], np.uint8), ""),
    ("part", np.arange(8, dtype=np.float32).reshape(2, 4), "5 4 1,2:-"),
]


def v1_checkpoint_save_and_restore(tf, directory):
    """SaveSlices / Save write TF's V1 table; Restore, RestoreSlice and RestoreV2 read it."""
    path = directory + "/v1.ckpt"
    names = [n for n, _, _ in V1_TENSORS]
    save = tf.raw_ops.SaveSlices(
        filename=path,
        tensor_names=names,
        shapes_and_slices=[s for _, _, s in V1_TENSORS],
        data=[tf.constant(v) for _, v, _ in V1_TENSORS],
    )
    plain = directory + "/plain.ckpt"
    save_plain = tf.raw_ops.Save(
        filename=plain, tensor_names=["x", "y"], data=[tf.constant([1.0, 2.0]), tf.constant(3)]
    )
    _run(tf, [save, save_plain])
    with open(path, "rb") as f:
        sliced_bytes = f.read()
    with open(plain, "rb") as f:
        plain_bytes = f.read()
    restored = [
        tf.raw_ops.Restore(file_pattern=path, tensor_name=n, dt=tf.as_dtype(v.dtype))
        for n, v, s in V1_TENSORS
        if not s
    ]
    part = tf.raw_ops.RestoreSlice(
        file_pattern=path,
        tensor_name="part",
        shape_and_slice="5 4 1,2:1,2",
        dt=tf.float32,
    )
    v2 = tf.raw_ops.RestoreV2(
        prefix=path,
        tensor_names=["a", "f"],
        shape_and_slices=["", ""],
        dtypes=[tf.float32, tf.int32],
    )
    out = {
        "sliced_bytes": sliced_bytes,
        "plain_bytes": plain_bytes,
        "restored": _run(tf, restored),
        "part": _run(tf, part),
        "part_static": _static(part),
        "v2": _run(tf, list(v2)),
    }
    out["wrong_dtype"] = _err(
        lambda: _run(tf, tf.raw_ops.Restore(file_pattern=path, tensor_name="a", dt=tf.int32))
    )
    out["missing_tensor"] = _err(
        lambda: _run(tf, tf.raw_ops.Restore(file_pattern=path, tensor_name="zz", dt=tf.int32))
    )
    out["missing_part"] = _err(
        lambda: _run(
            tf,
            tf.raw_ops.RestoreSlice(
                file_pattern=path,
                tensor_name="part",
                shape_and_slice="5 4 0,2:-",
                dt=tf.float32,
            ),
        )
    )
    out["no_files"] = _err(
        lambda: _run(
            tf, tf.raw_ops.Restore(file_pattern=path + "-none", tensor_name="a", dt=tf.float32)
        )
    )
    return out


# ---- ops TF 1.15 no longer builds (deprecated at its GraphDef version) -------------------


DEPRECATED_CALLS = {
    "TopK": lambda tf: tf.raw_ops.TopK(input=F32, k=2),
    "TileGrad": lambda tf: tf.raw_ops.TileGrad(input=F32, multiples=[1, 1, 2]),
    "PlaceholderV2": lambda tf: tf.raw_ops.PlaceholderV2(dtype=tf.float32, shape=[2]),
    "SelfAdjointEig": lambda tf: tf.raw_ops.SelfAdjointEig(input=np.eye(2, dtype=np.float32)),
    "Conv3DBackpropInput": lambda tf: tf.raw_ops.Conv3DBackpropInput(
        input=np.zeros([1, 2, 2, 2, 1], np.float32),
        filter=np.zeros([1, 1, 1, 1, 1], np.float32),
        out_backprop=np.zeros([1, 2, 2, 2, 1], np.float32),
        strides=[1] * 5,
        padding="SAME",
    ),
    "BatchMatrixDiag": lambda tf: tf.raw_ops.BatchMatrixDiag(diagonal=[[1.0, 2.0]]),
    "BatchMatrixInverse": lambda tf: tf.raw_ops.BatchMatrixInverse(input=np.eye(2)),
    "BatchCholesky": lambda tf: tf.raw_ops.BatchCholesky(input=np.eye(2)),
    "BatchSvd": lambda tf: tf.raw_ops.BatchSvd(input=np.eye(2)),
    "BatchFFT": lambda tf: tf.raw_ops.BatchFFT(input=np.ones([2], np.complex64)),
    "BatchIFFT3D": lambda tf: tf.raw_ops.BatchIFFT3D(input=np.ones([1, 1, 2], np.complex64)),
    "BatchNormWithGlobalNormalization": lambda tf: tf.raw_ops.BatchNormWithGlobalNormalization(
        t=IMG,
        m=[0.0] * 3,
        v=[1.0] * 3,
        beta=[0.0] * 3,
        gamma=[1.0] * 3,
        variance_epsilon=0.001,
        scale_after_normalization=True,
    ),
}


def deprecated_ops_refuse_to_build(tf):
    return {
        name: _err(lambda call=call: call(tf)) for name, call in sorted(DEPRECATED_CALLS.items())
    }


CASES = {
    name: fn
    for name, fn in list(globals().items())
    if callable(fn)
    and not name.startswith("_")
    and name[0].islower()
    and fn.__module__ == __name__
    and fn.__code__.co_argcount == 1  # (tf) only: the checkpoint case also takes a folder
}
