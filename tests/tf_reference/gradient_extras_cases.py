"""Programs around tf.gradients (custom_gradient, grad_pass_through, recompute_grad, hessians,
aggregation_method, unconnected_gradients, identity_n) and tf.switch_case, run on TensorFlow
1.15 by record_gradient_extras.py and on tfcluster by test_tf_reference_gradient_extras.py.

Each program builds a graph with the `tf` it is given and returns {key: tensor} to fetch
(`feeds(tf, graph)` may give a feed dict); `run` returns the values, the tensor names and any
error's class. Kept runnable on Python 3.7 (TF 1.15's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

PROGRAMS: dict[str, Callable[[Any], Any]] = {}
# Programs whose switch index (the placeholder "index") is fed: run once per index.
FED = ("switch_case_list_with_default", "switch_case_dict_of_tuples", "switch_case_pairs_list")
SWITCH_INDICES = (0, 1, 2, 5, -1)


def recorded_cases() -> dict[str, Any]:
    """case name -> (program, fed index or None)."""
    out: dict[str, Any] = {}
    for name in PROGRAMS:
        if name in FED:
            for i in SWITCH_INDICES:
                out[f"{name}@{i}"] = (name, i)
        else:
            out[name] = (name, None)
    return out


def program(name: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    def deco(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        PROGRAMS[name] = fn
        return fn

    return deco


def run(tf: Any, name: str, feed: Any = None) -> dict[str, Any]:
    """{"out:k": value, "name:k": tensor name} or {"error": exception, "stage": ...}."""
    graph = tf.Graph()
    with graph.as_default():
        try:
            fetches = PROGRAMS[name](tf)
            feeds = {}
            if feed is not None:
                feeds = {graph.get_tensor_by_name("index:0"): feed}
            init = tf.global_variables_initializer()
        except Exception as e:
            return {"error": e, "stage": "build"}
        out: dict[str, Any] = {}
        flat = {}
        for key, value in fetches.items():
            if isinstance(value, (list, tuple)):
                for i, v in enumerate(value):
                    flat[f"{key}.{i}"] = v
            else:
                flat[key] = value
        for key, value in flat.items():
            out["name:" + key] = value.name
        with tf.Session(graph=graph) as sess:
            try:
                sess.run(init)
                values = sess.run(flat, feeds)
            except Exception as e:
                return {"error": e, "stage": "run"}
    for key, value in values.items():
        out["out:" + key] = np.asarray(value)
    return out


X = np.array([0.5, -1.25, 2.0], dtype=np.float32)
M = np.array([[1.0, 2.0], [3.0, -4.0]], dtype=np.float32)


@program("custom_gradient_log1pexp")
def _log1pexp(tf: Any) -> Any:
    x = tf.constant(X, name="x")

    @tf.custom_gradient
    def log1pexp(t: Any) -> Any:
        e = tf.exp(t)

        def grad(dy: Any) -> Any:
            return dy * (1 - 1 / (1 + e))

        return tf.log(1 + e), grad

    y = log1pexp(x)
    return {"y": y, "dx": tf.gradients(tf.reduce_sum(y * 3.0), x)[0]}


@program("custom_gradient_several_inputs_and_outputs")
def _several(tf: Any) -> Any:
    a = tf.constant(X, name="a")
    b = tf.constant(X[::-1].copy(), name="b")

    @tf.custom_gradient
    def f(u: Any, v: Any) -> Any:
        def grad(d_sum: Any, d_prod: Any) -> Any:
            return d_sum * 2.0 + d_prod, d_sum - d_prod * 3.0

        return (u + v, u * v), grad

    s, p = f(a, b)
    return {"s": s, "p": p, "grads": tf.gradients(tf.reduce_sum(s * 0.5 + p), [a, b])}


@program("custom_gradient_reads_variable")
def _variable(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    w = tf.Variable(1.5, name="w")

    @tf.custom_gradient
    def scale(t: Any) -> Any:
        def grad(dy: Any, variables: Any = None) -> Any:
            return dy * w * 2.0, [tf.reduce_sum(dy * t) * 10.0]

        return t * w, grad

    z = scale(x)
    return {"z": z, "grads": tf.gradients(tf.reduce_sum(z), [x, w])}


@program("custom_gradient_grad_fn_without_variables_arg")
def _no_variables_arg(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    w = tf.Variable(1.5, name="w")

    @tf.custom_gradient
    def scale(t: Any) -> Any:
        return t * w, lambda dy: dy

    return {"z": scale(x)}


@program("custom_gradient_creates_variable")
def _creates_variable(tf: Any) -> Any:
    x = tf.constant(X, name="x")

    @tf.custom_gradient
    def scale(t: Any) -> Any:
        w = tf.get_variable("w", [], initializer=tf.ones_initializer())

        def grad(dy: Any, variables: Any = None) -> Any:
            return dy, [tf.reduce_sum(dy)]

        return t * w, grad

    return {"z": scale(x)}


@program("custom_gradient_keyword_arguments")
def _keywords(tf: Any) -> Any:
    x = tf.constant(X, name="x")

    @tf.custom_gradient
    def f(t: Any, k: Any = 2.0) -> Any:
        return t * k, lambda dy: dy * k

    return {"y": f(x, k=3.0)}


@program("custom_gradient_in_while_loop_and_cond")
def _in_control_flow(tf: Any) -> Any:
    x = tf.constant(X, name="x")

    @tf.custom_gradient
    def clip_grad(t: Any) -> Any:
        return t * 3.0, lambda dy: tf.clip_by_value(dy, -0.1, 0.1)

    _, acc = tf.while_loop(
        lambda i, a: i < 3,
        lambda i, a: (i + 1, a + clip_grad(x * a)),
        [tf.constant(0), tf.ones(3)],
    )
    c = tf.cond(tf.constant(True), lambda: clip_grad(x * x), lambda: x)
    return {
        "acc": acc,
        "d_acc": tf.gradients(tf.reduce_sum(acc), x)[0],
        "c": c,
        "d_c": tf.gradients(tf.reduce_sum(c), x)[0],
    }


@program("grad_pass_through_default_scope")
def _pass_through_default(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    return {"y": tf.grad_pass_through(tf.round)(x)}


@program("grad_pass_through_resource_scope")
def _pass_through(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    with tf.variable_scope("s", use_resource=True):
        y = tf.grad_pass_through(tf.round)(x * 1.3)
    return {"y": y, "dx": tf.gradients(tf.reduce_sum(y * y), x)[0]}


@program("recompute_grad_default_scope")
def _recompute_default(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    return {"y": tf.recompute_grad(lambda t: tf.sin(t) * t)(x)}


@program("recompute_grad_resource_scope")
def _recompute(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    with tf.variable_scope("s", use_resource=True):
        y = tf.recompute_grad(lambda t: tf.sin(t) * t)(x)
    return {"y": y, "dx": tf.gradients(tf.reduce_sum(y * 2.0), x)[0]}


@program("hessians_of_several_xs")
def _hessians(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    m = tf.constant(M, name="m")
    w = tf.Variable(M.T * 0.5, name="w")
    y = (
        tf.reduce_sum(x * x * x)
        + tf.reduce_sum(tf.matmul(m, w) ** 2)
        + tf.reduce_sum(tf.sin(w) * x[0])
    )
    return {"h": tf.hessians(y, [x, w, m])}


@program("hessians_of_a_matmul_loss")
def _hessians_matmul(tf: Any) -> Any:
    a = tf.constant(M, name="a")
    b = tf.constant(np.array([[0.5], [-1.0]], np.float32), name="b")
    loss = tf.reduce_sum(tf.nn.softplus(tf.matmul(a, b)))
    return {"h": tf.hessians(loss, b, name="my_hessians")}


@program("hessians_of_an_unconnected_x")
def _hessians_unconnected(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    u = tf.constant(X, name="u")
    return {"h": tf.hessians(tf.reduce_sum(x * x), u)}


def _aggregated(tf: Any, method: Any) -> Any:
    x = tf.constant(X, name="x")
    y = tf.reduce_sum(x * x) + tf.reduce_sum(tf.sin(x)) + tf.reduce_sum(x * 3.0)
    return {"dx": tf.gradients(y, x, aggregation_method=method)[0]}


@program("aggregation_method_add_n")
def _agg_add_n(tf: Any) -> Any:
    return _aggregated(tf, tf.AggregationMethod.ADD_N)


@program("aggregation_method_default")
def _agg_default(tf: Any) -> Any:
    return _aggregated(tf, tf.AggregationMethod.DEFAULT)


@program("aggregation_method_tree")
def _agg_tree(tf: Any) -> Any:
    return _aggregated(tf, tf.AggregationMethod.EXPERIMENTAL_TREE)


@program("aggregation_method_accumulate_n")
def _agg_accumulate(tf: Any) -> Any:
    return _aggregated(tf, tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N)


@program("aggregation_method_invalid")
def _agg_invalid(tf: Any) -> Any:
    return _aggregated(tf, 7)


def _unconnected(tf: Any, how: Any) -> Any:
    x = tf.constant(X, name="x")
    u = tf.constant(M, name="u")
    return {"grads": tf.gradients(tf.reduce_sum(x * 2.0), [x, u], unconnected_gradients=how)}


@program("unconnected_gradients_zero")
def _unconnected_zero(tf: Any) -> Any:
    return _unconnected(tf, "zero")


@program("unconnected_gradients_enum_zero")
def _unconnected_enum(tf: Any) -> Any:
    return _unconnected(tf, tf.UnconnectedGradients.ZERO)


@program("unconnected_gradients_invalid")
def _unconnected_invalid(tf: Any) -> Any:
    return _unconnected(tf, "zeros")


@program("identity_n")
def _identity_n(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    i = tf.constant([1, 2], name="i")
    a, b = tf.identity_n([x, i])
    c, d = tf.identity_n([x * 2.0, i], name="again")
    return {"a": a, "b": b, "c": c, "d": d, "dx": tf.gradients(tf.reduce_sum(a * c), x)[0]}


def _index(tf: Any) -> Any:
    return tf.placeholder(tf.int32, [], name="index")


@program("switch_case_list_with_default")
def _switch_list(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    r = tf.switch_case(_index(tf), [lambda: x * 2.0, lambda: tf.sin(x)], default=lambda: x * x)
    return {"r": r, "dx": tf.gradients(tf.reduce_sum(r * 3.0), x)[0]}


@program("switch_case_dict_of_tuples")
def _switch_dict(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    r = tf.switch_case(
        _index(tf),
        {1: lambda: (x, x + 1.0), 0: lambda: (x * 3.0, x), 2: lambda: (tf.exp(x), -x)},
        name="sw",
    )
    return {"r": r, "dx": tf.gradients(tf.reduce_sum(r[0] * r[1]), x)[0]}


@program("switch_case_pairs_list")
def _switch_pairs(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    r = tf.switch_case(_index(tf), [(1, lambda: x - 1.0), (0, lambda: x + 1.0)])
    return {"r": r}


@program("switch_case_python_int_index")
def _switch_int(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    return {"r": tf.switch_case(1, [lambda: x])}


@program("switch_case_float_index")
def _switch_float(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    return {"r": tf.switch_case(tf.constant(1.0), [lambda: x])}


@program("switch_case_no_branches")
def _switch_empty(tf: Any) -> Any:
    return {"r": tf.switch_case(_index(tf), [])}


@program("switch_case_keys_not_contiguous")
def _switch_keys(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    return {"r": tf.switch_case(_index(tf), {0: lambda: x, 2: lambda: x})}


@program("switch_case_not_callable")
def _switch_not_callable(tf: Any) -> Any:
    return {"r": tf.switch_case(_index(tf), [(0, 3)])}


@program("switch_case_branches_not_a_list")
def _switch_not_list(tf: Any) -> Any:
    return {"r": tf.switch_case(_index(tf), 5)}


@program("hessians_through_activations")
def _hessians_activations(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    b = tf.constant(np.array([0.25, -0.5], np.float32), name="b")
    xb = tf.nn.bias_add(tf.reshape(tf.concat([x, x * 0.5], 0), [3, 2]), b)
    y = (
        tf.reduce_sum(tf.nn.elu(xb) ** 2)
        + tf.reduce_sum(tf.nn.selu(xb * 0.7) ** 2)
        + tf.reduce_sum(tf.nn.leaky_relu(xb, alpha=0.3) ** 2)
        + tf.reduce_sum(tf.nn.softplus(xb) * xb)
    )
    return {"h": tf.hessians(y, [x, b])}
