"""Lists holding tensors converted to a tensor of another dtype: TF 1.15's autopacking casts
each tensor of another dtype to the dtype asked for (raw Cast ops, made before the Pack's
scope), so `tf.convert_to_tensor([a, b], dtype=tf.int32)` of float32 tensors packs as int32,
and a TF 0.x `tf.concat(0, [a, b])` (its old argument order) reaches the rank check of a
one-value concat's axis. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_autopacking.py and on tfcluster by tests/unit/test_autopacking.py. Python 3.7 code."""

from __future__ import annotations

try:  # run by the tests (tests/ on the path) or by the recorder (in its folder)
    from tf_reference.case_tools import error
except ImportError:
    from case_tools import error


def _graph_view(t):
    """The converted tensor's op, dtype, shape and the ops it reads, by name and type."""
    return {
        "op": t.op.type,
        "name": t.op.name,
        "dtype": t.dtype.name,
        "shape": t.shape.as_list(),
        "inputs": [[i.op.name, i.op.type] for i in t.op.inputs],
    }


def tensors_cast_to_the_dtype_asked_for(tf):
    with tf.Graph().as_default():
        a = tf.constant([[1.7, -1.7]], name="a")
        b = tf.constant([[2.5, 0.25]], name="b")
        c = tf.constant([[3]], dtype=tf.int64, name="c")
        cases = {
            "int32": lambda: tf.convert_to_tensor([a, b], dtype=tf.int32),
            "float64_named": lambda: tf.convert_to_tensor([a, b], dtype=tf.float64, name="xy"),
            "preferred_int32": lambda: tf.convert_to_tensor([a, b], preferred_dtype=tf.int32),
            "nested_with_numbers": lambda: tf.convert_to_tensor(
                [[a[0], [5.0, 6.0]], (b[0], b[0])], dtype=tf.float64
            ),
            "mixed_dtypes": lambda: tf.convert_to_tensor([c, [[7]]], dtype=tf.int32),
        }
        out = {}
        tensors = {}
        for name, fn in cases.items():
            t = fn()
            out[name] = _graph_view(t)
            tensors[name] = t
        with tf.Session() as sess:
            values = sess.run(tensors)
        for name, v in values.items():
            out[name]["value"] = v.tolist()
        return out


def what_cannot_be_converted(tf):
    with tf.Graph().as_default():
        a = tf.ones([1, 4], name="a")
        b = tf.zeros([1, 4], name="b")
        return {
            "python_float_among_int32": error(
                lambda: tf.convert_to_tensor([a, 1.0], dtype=tf.int32)
            ),
            "concat_in_the_old_argument_order": error(lambda: tf.concat(0, [a, b])),
            "int_vector_plus_a_list_of_float_tensors": error(
                lambda: tf.add(tf.constant([1, 2]), [a, b], name="add")
            ),
        }


CASES = {
    "tensors_cast_to_the_dtype_asked_for": tensors_cast_to_the_dtype_asked_for,
    "what_cannot_be_converted": what_cannot_be_converted,
}
