"""Programs from public TF1 tutorials (Hvass-Labs, hwalsuklee, ageron's handson-ml, Stanford's
CS20), reduced to the behaviour that differed on tfcluster. Each case is `fn(tf) -> dict of
plain values`, run on TF 1.15 by record_tutorial_programs.py and on tfcluster by
tests/unit/test_tutorial_programs.py. Python 3.7 code."""

from __future__ import annotations

import warnings

import numpy as np

try:
    from tf_reference.case_tools import error
except ImportError:  # run by the recorder from tests/tf_reference
    from case_tools import error


def fetched_scalar_comparisons(tf):
    """hwalsuklee's VAE keeps `min_tot_loss = 1e99` and tests `min_tot_loss > tot_loss` on a
    fetched float32 loss: under TF 1.15 (numpy 1.x) the comparison is made in float64, without
    numpy 2's overflow warning; `c == 0.1` is False there."""
    tf.reset_default_graph()
    loss = tf.constant(0.1, tf.float32)
    half = tf.constant(0.1, tf.float16)
    with tf.Session() as sess:
        c, h = sess.run([loss, half])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exprs = {
            "big_gt": 1e99 > c,  # noqa: SIM300 - the reflected form is the case
            "big_lt": c < 1e99,
            "eq_float": c == 0.1,
            "ne_float": c != 0.1,
            "req_float": 0.1 == c,  # noqa: SIM300
            "le_float": c <= 0.1,
            "ge_float": c >= 0.1,
            "gt_float": c > 0.1,
            "eq_int": c == 0,
            "lt_int": c < 1,
            "half_eq": h == 0.1,
            "half_gt_big": h > 1e10,
            "eq_float32": c == tf.float32.as_numpy_dtype(0.1),
            "eq_bool": c == True,  # noqa: E712 - the comparison itself is the case
        }
    return {
        "values": {k: [isinstance(v, np.bool_), bool(v)] for k, v in sorted(exprs.items())},
        "warnings": sorted(str(w.category.__name__) for w in caught),
        "hash_equal": hash(c) == hash(float(c)),
        "in_set": c in {float(c)},
    }


def unfed_placeholder_messages(tf):
    """hwalsuklee's GANs fail with `You must feed a value for placeholder tensor 'real_images'
    with dtype float and shape [64,28,28,1]`: TF names the dtype as its C++ runtime does."""
    tf.reset_default_graph()
    ph = {
        "float_known": tf.placeholder(tf.float32, [64, 28, 28, 1], name="real_images"),
        "float_partial": tf.placeholder(tf.float32, [None, 784], name="x"),
        "float_unknown": tf.placeholder(tf.float32, name="u"),
        "double": tf.placeholder(tf.float64, [2], name="d"),
        "half": tf.placeholder(tf.float16, [], name="h"),
        "int32": tf.placeholder(tf.int32, [None], name="i"),
        "int64": tf.placeholder(tf.int64, [3], name="l"),
        "string": tf.placeholder(tf.string, [1], name="s"),
        "bool": tf.placeholder(tf.bool, name="b"),
        "uint8": tf.placeholder(tf.uint8, [2, 2], name="u8"),
    }
    out = {}
    with tf.Session() as sess:
        for key, p in sorted(ph.items()):
            out[key] = error(lambda p=p: sess.run(tf.identity(p)))
    return out


def string_concatenation(tf):
    """Learning TensorFlow's hello_world adds two string constants (`h + w`): TF's Add
    concatenates strings, broadcasting a scalar over a vector."""
    tf.reset_default_graph()
    h = tf.constant("Hello")
    w = tf.constant(" World!")
    names = tf.constant(["a", "bc"])
    with tf.Session() as sess:
        scalar, vector, added, both = sess.run([h + w, names + w, tf.add(h, names), names + names])
    return {
        "scalar": [type(scalar).__name__, scalar.decode()],
        "vector": [v.decode() for v in vector],
        "added": [v.decode() for v in added],
        "both": [v.decode() for v in both],
        "dtype": str(vector.dtype),
    }


CASES = {
    "fetched_scalar_comparisons": fetched_scalar_comparisons,
    "unfed_placeholder_messages": unfed_placeholder_messages,
    "string_concatenation": string_concatenation,
}
