"""Session.run's errors for fetches that name no element of the graph, or are not fetchable:
a tensor or operation name the graph lacks, an output index past an op's outputs, a name
that is not a valid one, a tensor of another graph, an int, None. TF 1.15 builds these from
the graph's KeyError / ValueError / TypeError, a KeyError's text quoted as str() of it
quotes. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_fetch_errors.py
and on tfcluster by tests/unit/test_fetch_errors.py. Python 3.7 code."""

from __future__ import annotations

import re

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference import deprecated_name_cases
    from tf_reference.case_tools import error
except ImportError:
    import deprecated_name_cases
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

# Programs that stop at a fetch error: what their traceback shows of the exceptions (TF raises
# the ValueError / TypeError while handling the graph's error, so both are printed).
PROGRAMS = {
    "missing_tensor_uncaught": """
import tensorflow as tf
x = tf.placeholder(tf.float32, [2], name="x")
with tf.Session() as sess:
    sess.run("state_in:0", {x: [1.0, 2.0]})
""",
    "int_fetch_uncaught": """
import tensorflow as tf
c = tf.constant(1.0)
with tf.Session() as sess:
    sess.run(3)
""",
    "bad_name_uncaught": """
import tensorflow as tf
c = tf.constant(1.0)
with tf.Session() as sess:
    sess.run("a:b:c")
""",
    "empty_graph_run": """
import tensorflow as tf
with tf.Session() as sess:
    sess.run("a:0")
""",
}

_EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*(Error|Exception)\b|During handling|The above)")


def exception_lines(stderr, where):
    """The lines of a printed traceback that name an exception or join two of them."""
    return [line for line in stderr.splitlines() if _EXCEPTION_LINE.match(line)]


def run_program(python, module, name, env=None):
    body = PROGRAMS[name].replace("tensorflow", module)
    try:
        deprecated_name_cases.run_program(python, body, exception_lines, env)
    except RuntimeError as e:  # the program stopped, as intended: its stderr's tail
        return exception_lines(str(e), None)
    return None
