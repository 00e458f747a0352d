"""tf.IndexedSlicesSpec / tf.TensorArraySpec programs, run on TF 1.15 by
record_composite_specs.py and on tfcluster by tests/unit/test_composite_specs.py; each
returns reprs, comparisons and error class names. Python 3.7 too."""

from __future__ import annotations


def _error(fn):
    try:
        return repr(fn())
    except Exception as e:
        return type(e).__name__ + ": " + str(e)


def indexed_slices_specs(tf):
    a = tf.IndexedSlicesSpec([None, 3], tf.float32, tf.int64, None, [None])
    b = tf.IndexedSlicesSpec([4, 3], tf.float32, tf.int64, None, [2])
    c = tf.IndexedSlicesSpec([4, 3], tf.float32, tf.int32)
    d = tf.IndexedSlicesSpec([4, 3], tf.float64, tf.int64, tf.int32, [2])
    same = tf.IndexedSlicesSpec([None, 3], tf.float32, tf.int64, None, [None])
    return {
        "reprs": [repr(s) for s in (a, b, c, d, tf.IndexedSlicesSpec())],
        "equal": [a == b, a == same, a != b, hash(a) == hash(same)],
        "compatible": [
            a.is_compatible_with(b),
            b.is_compatible_with(a),
            a.is_compatible_with(c),
            b.is_compatible_with(d),
        ],
        "merged": [
            _error(lambda: a.most_specific_compatible_type(b)),
            _error(lambda: b.most_specific_compatible_type(a)),
            _error(lambda: a.most_specific_compatible_type(c)),
        ],
        "value_type": a.value_type.__name__,
    }


def tensor_array_specs(tf):
    t = tf.TensorArraySpec([2], tf.int32, dynamic_size=True, infer_shape=False)
    u = tf.TensorArraySpec([None], tf.int32, dynamic_size=True)
    v = tf.TensorArraySpec([2], tf.int32)
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[2, 2])
        from_value = repr(tf.TensorArraySpec.from_value(ta))
        compatible_value = tf.TensorArraySpec([None, 2], tf.float32).is_compatible_with(ta)
    return {
        "reprs": [repr(s) for s in (t, u, v, tf.TensorArraySpec())],
        "equal": [
            t == u,
            t == tf.TensorArraySpec([2], tf.int32, True, False),
            hash(v) == hash(tf.TensorArraySpec([2], tf.int32)),
        ],
        "compatible": [
            t.is_compatible_with(u),
            u.is_compatible_with(t),
            t.is_compatible_with(v),
            compatible_value,
        ],
        "merged": [
            _error(lambda: u.most_specific_compatible_type(t)),
            _error(lambda: t.most_specific_compatible_type(v)),
        ],
        "from_value": from_value,
        "value_type": t.value_type.__name__,
    }
