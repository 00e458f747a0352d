"""Session.run's errors for fetches that name no element of the graph, or are not fetchable:
a tensor or operation name the graph lacks, an output index past an op's outputs, a name
that is not a valid one, a tensor of another graph, an int, None. TF 1.15 builds these from
the graph's KeyError / ValueError / TypeError, a KeyError's text quoted as str() of it
quotes. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_fetch_errors.py
and on tfcluster by tests/unit/test_fetch_errors.py. Python 3.7 code."""

from __future__ import annotations

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import error
except ImportError:
    from case_tools import error


def _full_error(fn):
    """{"error": class name, "message": the whole message} of what fn raises."""
    try:
        fn()
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e)}
    return None


def fetches_that_name_nothing(tf):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.identity(x * 2.0, name="y")
    other = tf.Graph()
    with other.as_default():
        z = tf.constant(1.0, name="z")
    feed = {x: [1.0, 2.0]}
    out = {}
    with tf.Session() as sess:
        fetches = {
            "missing_tensor": "state_in:0",
            "missing_op": "train_step",
            "output_past_end": "y:3",
            "bad_name": "a:b:c",
            "other_graph": z,
            "int": 3,
            "none": None,
            "list_with_missing": [y, "nope:0"],
        }
        for key, fetch in sorted(fetches.items(), key=lambda kv: kv[0]):
            out[key] = _full_error(lambda fetch=fetch: sess.run(fetch, feed))
        out["first_line"] = error(lambda: sess.run("state_in:0", feed))
    return out


CASES = {f.__name__: f for f in (fetches_that_name_nothing,)}
