"""Programs for the order in which TF 1.15's CPU kernels add up segments: each case runs
segment, unsorted-segment and sparse-segment reductions (and the sparse gradients) of one
dtype with `tf` (TensorFlow 1.15 when recorded by record_segment_order.py, tfcluster in
tests/unit/test_segment_order.py) and returns every result's bytes, so that an ulp, a
rounding of half precision or the sign of a zero shows. Python 3.7 code."""

import numpy as np

DTYPES = ("float16", "bfloat16", "float32", "float64")


def _data():
    """Values of many magnitudes, exactly the same on any numpy (ldexp of RandomState draws),
    some rows -0, ids sorted and unsorted, segments of 1 to 30 rows."""
    rng = np.random.RandomState(11)
    mantissas = rng.randn(300, 3)
    data = np.ldexp(mantissas, rng.randint(-12, 12, (300, 1)))
    data[[0, 7, 8]] = -0.0
    lengths = [1, 2, 3, 7, 8, 9, 10, 11, 16, 17, 25, 30, 1, 5, 40, 45, 70]
    sorted_ids = np.repeat(np.arange(len(lengths)), lengths)[:300].astype(np.int32)
    unsorted_ids = rng.randint(-1, 12, 300).astype(np.int32)
    picks = rng.randint(0, 300, sorted_ids.size).astype(np.int32)
    return data, sorted_ids, unsorted_ids, picks


def _hex(value):
    value = np.asarray(value)
    return {"dtype": str(value.dtype), "shape": list(value.shape), "bytes": value.tobytes().hex()}


def _reductions(tf, d, sorted_ids, unsorted_ids, picks):
    m = tf.math
    s = tf.sparse
    n = int(sorted_ids[-1]) + 1
    return {
        "segment_sum": lambda: m.segment_sum(d, sorted_ids),
        "segment_mean": lambda: m.segment_mean(d, sorted_ids),
        "segment_prod": lambda: m.segment_prod(d[:60], sorted_ids[:60]),
        "unsorted_sum": lambda: m.unsorted_segment_sum(d, unsorted_ids, 13),
        "unsorted_prod": lambda: m.unsorted_segment_prod(d[:80], unsorted_ids[:80], 13),
        "unsorted_mean": lambda: m.unsorted_segment_mean(d, unsorted_ids, 13),
        "unsorted_sqrt_n": lambda: m.unsorted_segment_sqrt_n(d, unsorted_ids, 13),
        "sparse_sum": lambda: s.segment_sum(d, picks, sorted_ids),
        "sparse_sum_with_num_segments": lambda: s.segment_sum(
            d, picks, sorted_ids, num_segments=n + 2
        ),
        "sparse_mean": lambda: s.segment_mean(d, picks, sorted_ids),
        "sparse_sqrt_n": lambda: s.segment_sqrt_n(d, picks, sorted_ids, num_segments=n + 1),
    }


def _run(tf, dtype):
    data, sorted_ids, unsorted_ids, picks = _data()
    out = {}
    with tf.Graph().as_default():
        if dtype == "bfloat16":
            d = tf.cast(tf.constant(data.astype(np.float32)), tf.bfloat16)
        else:
            d = tf.constant(data.astype(dtype))
        built = {}
        made = _reductions(tf, d, sorted_ids, unsorted_ids, picks)
        if dtype == "bfloat16":
            # Python compositions of Maximum, RealDiv and Sqrt, whose bfloat16 forms
            # tfcluster's math ops do not take yet: the kernels are compared here.
            del made["unsorted_mean"], made["unsorted_sqrt_n"]
        for name, make in sorted(made.items()):
            try:
                built[name] = make()
            except TypeError as e:
                out[name] = {"error": type(e).__name__}
        if dtype in ("float32", "float64"):
            loss_mean = tf.reduce_sum(built["sparse_mean"] * np.arange(1, 4, dtype=dtype))
            loss_sqrt = tf.reduce_sum(built["sparse_sqrt_n"] * np.arange(3, 0, -1, dtype=dtype))
            built["sparse_mean_gradient"] = tf.gradients(loss_mean, d)[0]
            built["sparse_sqrt_n_gradient"] = tf.gradients(loss_sqrt, d)[0]
        if dtype == "bfloat16":
            built = {k: tf.cast(v, tf.float32) for k, v in built.items()}
        with tf.Session() as sess:
            values = sess.run(built)
    out.update({k: _hex(v) for k, v in values.items()})
    return out


def _case(dtype):
    def program(tf):
        return _run(tf, dtype)

    return program


CASES = {dtype: _case(dtype) for dtype in DTYPES}
