"""Programs from public TF1 tutorials (Hvass-Labs, hwalsuklee, ageron's handson-ml, Stanford's
CS20), reduced to the behaviour that differed on tfcluster. Each case is `fn(tf) -> dict of
plain values`, run on TF 1.15 by record_tutorial_programs.py and on tfcluster by
tests/unit/test_tutorial_programs.py. Python 3.7 code."""

from __future__ import annotations

import warnings

import numpy as np


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


CASES = {
    "fetched_scalar_comparisons": fetched_scalar_comparisons,
}
