"""Behaviours public TF1 tutorials (autoencoder and RL notebooks, a TF1 tips guide's snippets)
showed apart on tfcluster. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_notebook_sweep2.py and on tfcluster by tests/unit/test_notebook_sweep2_behaviours.py.
Python 3.7 code."""

from __future__ import annotations

import numpy as np

# float32 values whose glibc expf / logf / log1pf round otherwise than their exact values
# rounded once (found on glibc 2.36 by comparing the two over uniform draws).
_EXP_INPUTS = [10.251489639282227, -6.1016130447387695, -0.4637800455093384, 15.106963157653809,
               -18.731517791748047, -7.92134952545166, -16.661943435668945]  # fmt: skip
_LOG_INPUTS = [1.0308456420898438, 6.12124490737915, 4.293757915496826, 37.182613372802734,
               44.80455780029297, 1.0139350891113281, 6.910844326019287]  # fmt: skip
_LOG1P_INPUTS = [0.6271267533302307, 1.5738459825515747, 0.4798457622528076, 4.788661956787109,
                 4.056068420410156, 3.414231061935425, 2.4712624549865723]  # fmt: skip
# A softmax's logits in a notebook's training (bits of float32): exp of the third shifted value
# is one of glibc's differently rounded ones.
_SOFTMAX_BITS = [-1105474519, -1102901098, -1097366588, -1088186773, 1052978016]


def _f32(values):
    return np.asarray(values, np.float64).astype(np.float32)


def _tail_rows():
    """[3, 13] logits: each row's largest value 0 among its first eight, its last five (the
    scalar path of the softmax's row sums) values whose glibc expf rounds otherwise."""
    rng = np.random.RandomState(3)
    rows = rng.uniform(-3, -0.5, (3, 13)).astype(np.float32)
    rows[:, 2] = 0.0
    tail = _f32([-6.1016130447387695, -0.4637800455093384, -18.731517791748047,
                 -7.92134952545166, -16.661943435668945])  # fmt: skip
    rows[:, 8:] = np.stack([tail, tail[::-1], np.roll(tail, 2)])
    return rows


def eigen_scalar_path_glibc(tf):
    """exp, log and log1p of a tensor's last size % 8 values (Eigen's scalar path: glibc's
    expf / logf / log1pf, which are not correctly rounded), over tensors of 7 values (all on
    the scalar path) and of 15 (eight by packets, seven by glibc); softmax of a 1-D vector and
    of rows of 13 (the last five exps of each row sum by glibc's expf); the softmax cross
    entropies of those rows."""
    tf.reset_default_graph()
    ins = {"exp": _f32(_EXP_INPUTS), "log": _f32(_LOG_INPUTS), "log1p": _f32(_LOG1P_INPUTS)}
    fns = {"exp": tf.exp, "log": tf.log, "log1p": tf.log1p}
    fetch = {}
    for name, values in ins.items():
        fetch[name + "_7"] = fns[name](tf.constant(values))
        fetch[name + "_15"] = fns[name](
            tf.constant(_f32(np.concatenate([values + 0.5, [1.0], values])))
        )
    vec = np.asarray(_SOFTMAX_BITS, np.int32).view(np.float32)
    rows = _tail_rows()
    labels = np.full((3, 13), 1.0 / 13, np.float32)
    fetch["softmax_vector"] = tf.nn.softmax(tf.constant(vec))
    fetch["softmax_rows"] = tf.nn.softmax(tf.constant(rows))
    fetch["log_softmax_rows"] = tf.nn.log_softmax(tf.constant(rows))
    logits = tf.constant(rows)
    xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 9, 12], logits=logits)
    fetch["xent"] = xent
    fetch["xent_grad"] = tf.gradients(xent, logits)[0]
    fetch["sparse_xent"] = sparse
    fetch["sparse_xent_grad"] = tf.gradients(sparse, logits)[0]
    with tf.Session() as sess:
        out = sess.run(fetch)
    return {k: np.asarray(v) for k, v in out.items()}


def entropy_adam_training(tf):
    """A tips guide's snippet: Adam maximising a softmax's entropy through
    softmax_cross_entropy_with_logits(labels=softmax(w)), whose gradient is only the
    rounding of softmax against the fused kernel: each step moves w by the sign of that
    rounding, so one ulp of a softmax changes the printed result."""
    tf.reset_default_graph()
    tf.set_random_seed(7)
    w = tf.get_variable("w", shape=[5])
    probs = tf.nn.softmax(w)
    y = -tf.nn.softmax_cross_entropy_with_logits(labels=probs, logits=w)
    train_op = tf.train.AdamOptimizer().minimize(y)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(300):
            sess.run(train_op)
        return {"softmax": sess.run(tf.nn.softmax(w)), "w": sess.run(w)}


def _outcome(fn):
    """[error class, message] of fn(), or ["ok", repr of the result's type]."""
    try:
        result = fn()
    except Exception as e:  # the class and TF's message are what is compared
        return [type(e).__name__, str(e).split("\n")[0]]
    return ["ok", type(result).__name__]


def python_ops_on_graph_tensors(tf):
    """bool() and iteration of graph tensors and variables (a guide's snippet: `if a < b:` on
    tensors), and the ops bool() of a resource variable leaves in the graph."""
    tf.reset_default_graph()
    t = tf.constant([1, 2])
    ref = tf.Variable([1.0, 2.0], name="ref")
    res = tf.get_variable("res", [2], use_resource=True)
    out = {
        "bool_tensor": _outcome(lambda: bool(tf.constant(True))),
        "if_comparison": _outcome(lambda: 1 if tf.constant(5) < tf.constant(7) else 0),
        "iter_tensor": _outcome(lambda: iter(t)),
        "next_iter_tensor": _outcome(lambda: next(iter(t))),
        "list_tensor": _outcome(lambda: list(t)),
        "bool_ref_variable": _outcome(lambda: bool(ref)),
        "if_ref_variable": _outcome(lambda: 1 if ref else 0),
        "iter_ref_variable": _outcome(lambda: iter(ref)),
    }
    before = len(tf.get_default_graph().get_operations())
    out["bool_resource_variable"] = _outcome(lambda: bool(res))
    ops = tf.get_default_graph().get_operations()[before:]
    out["ops_made_by_bool_resource_variable"] = [[op.type, op.name] for op in ops]
    return out


def compute_gradient_error_type(tf):
    """tf.test.compute_gradient_error's result (a guide prints it): TF 1.15 with its numpy
    (< 1.19) returns a float64 scalar for float32 tensors."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [5])
    y = tf.reduce_sum(tf.nn.softmax(x) * tf.nn.log_softmax(x))
    x0 = np.linspace(-1, 1, 5).astype(np.float32)
    with tf.Session():
        error = tf.test.compute_gradient_error(x, [5], y, [], x_init_value=x0)
    return {"type": type(error).__name__, "value": np.asarray(error)}


def _kinds(value):
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [type(v).__name__ for v in value]]
    return [type(value).__name__]


def while_loop_result_structure(tf):
    """The structure tf.while_loop returns (a notebook prints sess.run of it): TF 1.15 packs
    the loop's exits as the body's result, a tuple from `return a, b` for list loop_vars."""
    tf.reset_default_graph()
    a, b = tf.constant(0), tf.constant(1)

    def cond(x, y):
        return y < 5

    loops = {
        "list_vars_tuple_body": tf.while_loop(cond, lambda x, y: (x + y, y + 1), [a, b]),
        "tuple_vars_list_body": tf.while_loop(cond, lambda x, y: [x + y, y + 1], (a, b)),
        "list_vars_list_body": tf.while_loop(cond, lambda x, y: [x + y, y + 1], [a, b]),
        "one_var": tf.while_loop(lambda x: x < 5, lambda x: [x + 1], [a]),
        "one_var_same_structure": tf.while_loop(
            lambda x: x < 5, lambda x: (x + 1,), [a], return_same_structure=True
        ),
        "one_var_tensor_same_structure": tf.while_loop(
            lambda x: x < 5, lambda x: x + 1, (a,), return_same_structure=True
        ),
    }
    out = {name: _kinds(value) for name, value in loops.items()}
    with tf.Session() as sess:
        ran = sess.run(loops["list_vars_tuple_body"])
    out["session_run"] = [type(ran).__name__, [int(v) for v in ran]]
    return out


def keras_version(tf):
    """tf.keras.__version__, which a Keras tutorial prints first."""
    return {"version": tf.keras.__version__}


CASES = {
    "eigen_scalar_path_glibc": eigen_scalar_path_glibc,
    "entropy_adam_training": entropy_adam_training,
    "python_ops_on_graph_tensors": python_ops_on_graph_tensors,
    "compute_gradient_error_type": compute_gradient_error_type,
    "while_loop_result_structure": while_loop_result_structure,
    "keras_version": keras_version,
}
