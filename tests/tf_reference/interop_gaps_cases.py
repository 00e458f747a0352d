"""Programs for the interop gaps of graphs exchanged with TF 1.15 (record_interop_gaps.py runs
them under TF 1.15, tests/unit/test_interop_gaps.py on tfcluster):

- partial runs whose step fails: which later calls of the handle fail, with which error;
- the gradient of a Case op (tf.switch_case) in a MetaGraph TF wrote;
- library functions no node calls (a Defun never called, a function only a pruned node
  named): a MetaGraph round trip keeps them;
- a while_loop whose body updates a ref variable, exported and run by TF.

Python 3.7 code: the recorder runs it under TF 1.15.
"""

import time

import numpy as np


def _error(fn):
    try:
        return {"value": fn()}
    except Exception as e:  # the class is what is compared
        return {"error": type(e).__name__, "message": str(e).splitlines()[0]}


def _feed_bad(sess, h, a):
    """Feeds the NaN that fails CheckNumerics in a call fetching nothing. TF 1.15's call
    returns at once and its executor fails a moment later: the wait lets it fail before the
    next call, as it does in any program that does some work between the calls."""
    result = _error(lambda: sess.partial_run(h, [], {a: [np.nan, 1.0]}))
    time.sleep(0.5)
    return result


def _values(results):
    out = {}
    for key, result in results.items():
        if "value" in result:
            value = result["value"]
            out[key] = np.asarray(value, np.float32)
        else:
            out[key] = result["error"]
            if "Must run 'setup'" in result["message"]:
                out[key] = "not set up"
    return out


# ---- Session.partial_run after a failing step -------------------------------------------------
def _partial_run_graph(tf):
    a = tf.placeholder(tf.float32, [2], name="a")
    b = tf.placeholder(tf.float32, [2], name="b")
    c = tf.check_numerics(a, "bad a")
    d = c + b
    e = tf.placeholder(tf.float32, [], name="e")
    f = e * 2.0
    x = tf.placeholder(tf.float32, [], name="x")
    return a, b, c, d, e, f, x


def partial_run_failure_in_a_call_fetching_nothing(tf):
    """The call that feeds the bad value fetches nothing: it returns; the next call of the
    handle fails with the error; the handle is gone afterwards."""
    a, b, c, d, e, f, _ = _partial_run_graph(tf)
    with tf.Session() as sess:
        h = sess.partial_run_setup([c, d, f], [a, b, e])
        return _values(
            {
                "1_feed_bad": _feed_bad(sess, h, a),
                "2_fetch_other": _error(lambda: sess.partial_run(h, f, {e: 3.0})),
                "3_again": _error(lambda: sess.partial_run(h, c)),
            }
        )


def partial_run_failure_then_a_refused_call(tf):
    """A call refused by the argument checks (an undeclared feed) after the failure keeps
    the handle: the call after it reports the failure."""
    a, b, c, d, e, f, x = _partial_run_graph(tf)
    with tf.Session() as sess:
        h = sess.partial_run_setup([c, d, f], [a, b, e])
        return _values(
            {
                "1_feed_bad": _feed_bad(sess, h, a),
                "2_undeclared_feed": _error(lambda: sess.partial_run(h, f, {x: 3.0})),
                "3_fetch": _error(lambda: sess.partial_run(h, f, {e: 3.0})),
                "4_again": _error(lambda: sess.partial_run(h, f, {e: 3.0})),
            }
        )


def partial_run_failure_then_a_computed_fetch(tf):
    """A value computed before the failure cannot be fetched after it."""
    a, b, c, d, e, f, _ = _partial_run_graph(tf)
    with tf.Session() as sess:
        h = sess.partial_run_setup([c, d, f], [a, b, e])
        return _values(
            {
                "1_feed_e": _error(lambda: sess.partial_run(h, [], {e: 2.0})),
                "2_feed_bad": _feed_bad(sess, h, a),
                "3_fetch_f": _error(lambda: sess.partial_run(h, f)),
                "4_again": _error(lambda: sess.partial_run(h, f)),
            }
        )


def partial_run_failure_in_a_fetching_call(tf):
    """The call fetching the failing value fails; the handle is gone; another handle of the
    same graph is not affected."""
    a, _, c, _, e, f, _ = _partial_run_graph(tf)
    with tf.Session() as sess:
        h1 = sess.partial_run_setup([c, f], [a, e])
        h2 = sess.partial_run_setup([c, f], [a, e])
        return _values(
            {
                "1_fetch_bad": _error(lambda: sess.partial_run(h1, c, {a: [np.nan, 1.0]})),
                "2_same_handle": _error(lambda: sess.partial_run(h1, f, {e: 1.0})),
                "3_other_handle": _error(lambda: sess.partial_run(h2, c, {a: [1.0, 1.0]})),
                "4_other_handle": _error(lambda: sess.partial_run(h2, f, {e: 1.0})),
            }
        )


PARTIAL_RUN_CASES = {
    f.__name__: f
    for f in (
        partial_run_failure_in_a_call_fetching_nothing,
        partial_run_failure_then_a_refused_call,
        partial_run_failure_then_a_computed_fetch,
        partial_run_failure_in_a_fetching_call,
    )
}


# ---- Case (tf.switch_case) gradients in a graph TF wrote --------------------------------------
CASE_X = np.array([0.5, -1.5, 2.0], np.float32)
CASE_Y = np.array([1.0, 3.0, -0.5], np.float32)
CASE_INDICES = (0, 1, 2, 7, -1)


def build_switch_case(tf):
    """TF 1.15's side: the forward graph (its Case op), names of what the test looks up."""
    x = tf.placeholder(tf.float32, [3], name="x")
    y = tf.placeholder(tf.float32, [3], name="y")
    index = tf.placeholder(tf.int32, [], name="index")
    out = tf.switch_case(
        index,
        [lambda: x * x * y, lambda: tf.sin(x) * tf.exp(y), lambda: tf.tanh(x + 2.0 * y)],
        name="pick",
    )
    out = tf.identity(out, name="out")
    return x, y, index, out


def case_gradients(tf, x, y, index, out, sess):
    """d(sum(out * w))/dx and /dy for every index of CASE_INDICES."""
    w = tf.constant([1.0, -2.0, 0.5])
    gx, gy = tf.gradients(tf.reduce_sum(out * w), [x, y])
    results = {}
    for k in CASE_INDICES:
        feed = {x: CASE_X, y: CASE_Y, index: k}
        value, dx, dy = sess.run([out, gx, gy], feed)
        results[f"index_{k}".replace("-", "minus_")] = {"out": value, "dx": dx, "dy": dy}
    return results


# ---- library functions no node calls ----------------------------------------------------------
def build_unused_library(tf, function):
    """A graph whose library has a Defun never called and a dataset function whose node is
    left out of the export (export_scope 'keep'); 'out' (keep/out) is what the test runs."""

    @function.Defun(tf.float32, tf.float32, func_name="never_called")
    def never_called(p, q):
        return p * q + 1.0

    @function.Defun(tf.float32, func_name="called_once")
    def called_once(p):
        return p * 3.0

    # Defined in the graph's library without a call (a Defun joins the graph when called or
    # added).
    never_called.add_to_graph(tf.get_default_graph())
    ds = tf.data.Dataset.range(4).map(lambda v: v * 5)
    ds.make_one_shot_iterator()
    with tf.name_scope("keep"):
        v = tf.constant([1.0, 2.0], name="v")
        tf.identity(called_once(v), name="out")
    return never_called


# ---- a while_loop whose body updates a ref variable --------------------------------------------
def build_ref_variable_loop(tf, maximum_iterations=None):
    """v += i for i = 0..4 inside a while_loop (a ref variable, TF1's default), and the loop's
    own result; TF 1.15 writes it as TF1 control flow (Enter/Merge/Switch/.../Exit)."""
    v = tf.Variable(10.0, name="v", use_resource=False)
    w = tf.Variable([1.0, 2.0], name="w", use_resource=False)

    def body(i, acc):
        # After the previous iteration's update was read: the iterations run one by one.
        with tf.control_dependencies([acc]):
            add = tf.assign_add(v, tf.cast(i, tf.float32))
            upd = tf.assign(w, w.read_value() * 2.0)
        with tf.control_dependencies([add]):
            return i + 1, acc + tf.reduce_sum(upd)

    i, acc = tf.while_loop(
        lambda i, acc: i < 5,
        body,
        (tf.constant(0), tf.constant(0.0)),
        maximum_iterations=maximum_iterations,
    )
    tf.identity(acc, name="acc")
    tf.identity(i, name="count")
    return v, w


# ---- CudnnRNN options TF 1.15 has no CPU kernel for --------------------------------------------
CUDNN_OPTIONS = {
    "skip_input": ("cudnn_rnn", {"input_mode": "skip_input"}),
    "dropout": ("cudnn_rnn", {"dropout": 0.5}),
    "num_proj": ("cudnn_rnnv3", {"num_proj": 2}),
}


def cudnn_option_on_cpu(tf, cudnn, option):
    """An LSTM step with the option, run on CPU: the error class (TF 1.15 has no CPU kernel
    for any CudnnRNN op; tfcluster's CPU kernel lacks these options)."""
    fn, kwargs = CUDNN_OPTIONS[option]
    with tf.device("/cpu:0"):
        x = tf.zeros([2, 1, 4])
        h = tf.zeros([1, 1, 4])
        c = tf.zeros([1, 1, 4])
        params = tf.zeros([288])
        extra = [tf.constant([2])] if fn == "cudnn_rnnv3" else []
        out = getattr(cudnn, fn)(x, h, c, params, *extra, **kwargs)
    with tf.Session() as sess:
        result = _error(lambda: sess.run(out[0]))
    return {"error": result.get("error", "none")}


# ---- a tf.function whose body updates a ref variable -------------------------------------------
def function_updates_ref_variable(tf):
    """TF 1.15 refuses it while tracing (a function takes a captured ref variable as its
    value); reading the variable inside the function works."""
    v = tf.Variable(1.0, name="v", use_resource=False)

    @tf.function
    def update(x):
        tf.assign_add(v, x)
        return x

    @tf.function
    def read(x):
        return v.read_value() * x

    try:
        update(tf.constant(3.0))
        refused = {"error": "none", "message": ""}
    except Exception as e:  # the class and TF's own line are compared
        # TF 1.15's autograph wraps the message: its last line is the op's.
        line = str(e).strip().splitlines()[-1].strip()
        prefix = type(e).__name__ + ": "
        line = line[len(prefix) :] if line.startswith(prefix) else line
        refused = {"error": type(e).__name__, "message": line}
    out = read(tf.constant(3.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        value = sess.run(out)
    return dict(refused, read=value)
