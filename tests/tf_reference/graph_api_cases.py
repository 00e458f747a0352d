"""Programs of tf.Module, tf.variable_creator_scope and session tensor handles, run on
TensorFlow 1.15 by record_graph_api.py and on tfcluster by test_tf_reference_graph_api.py.

Each program takes the `tf` module and returns {key: value} of plain Python values (names,
flags, numbers, lists of them, numpy arrays) or of exceptions it caught, which the recorder
stores and the test compares. Kept runnable on Python 3.7 (TF 1.15's).
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import numpy as np

PROGRAMS: dict[str, Callable[[Any], dict[str, Any]]] = {}


def program(name: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    def deco(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        PROGRAMS[name] = fn
        return fn

    return deco


def run(tf: Any, name: str) -> dict[str, Any]:
    with tf.Graph().as_default():
        return PROGRAMS[name](tf)


def _caught(fn: Callable[[], Any]) -> Any:
    try:
        fn()
    except Exception as e:
        return e
    return None


_Pair = collections.namedtuple("_Pair", ["w", "b"])


def _modules(tf: Any) -> Any:
    class Dense(tf.Module):
        def __init__(self, n_in: int, n_out: int, name: Any = None) -> None:
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable(tf.ones([n_in, n_out]), name="w")
                self.b = tf.Variable(tf.zeros([n_out]), name="b", trainable=False)

        @tf.Module.with_name_scope
        def __call__(self, x: Any) -> Any:
            return tf.nn.relu(tf.matmul(x, self.w) + self.b)

    class MLP(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = [Dense(3, 4), Dense(4, 2, name="out")]
            self.extra = {
                "z": tf.Variable(1.0, name="z"),
                "a": _Pair(tf.Variable(2.0, name="pw"), 5),
            }
            self.again = self.layers[0]

        def __call__(self, x: Any) -> Any:
            for layer in self.layers:
                x = layer(x)
            return x

    return Dense, MLP


@program("module_discovery_and_names")
def _module_discovery(tf: Any) -> dict[str, Any]:
    _, mlp_class = _modules(tf)
    m = mlp_class()
    m2 = mlp_class()
    y = m(tf.ones([1, 3]))
    with m.name_scope:
        c = tf.constant(1.0)
    paths = m._flatten(with_path=True, predicate=lambda v: isinstance(v, tf.Variable))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        value = sess.run(y)
    return {
        "names": [m.name, m2.name, m.layers[0].name, m.layers[1].name],
        "output_name": y.name,
        "scoped_const": c.name,
        "variables": [v.name for v in m.variables],
        "trainable": [v.name for v in m.trainable_variables],
        "submodules": [s.name for s in m.submodules],
        "paths": [list(p) for p, _ in paths],
        "value": value,
    }


@program("module_default_and_bad_names")
def _module_names(tf: Any) -> dict[str, Any]:
    class MyFancyModule2D(tf.Module):
        pass

    a = tf.Module()
    b = tf.Module()
    fancy = MyFancyModule2D()
    with a.name_scope:
        first = tf.constant(0, name="k")
    with b.name_scope:
        second = tf.constant(0, name="k")
    return {
        "names": [a.name, b.name, fancy.name],
        "consts": [first.name, second.name],
        "empty": [len(a.variables), len(a.submodules)],
        "bad_digit": _caught(lambda: tf.Module(name="1abc")),
        "bad_space": _caught(lambda: tf.Module(name="a b")),
    }


@program("module_name_scope_object")
def _module_name_scope(tf: Any) -> dict[str, Any]:
    dense_class, _ = _modules(tf)
    layer = dense_class(2, 2, name="scoped")
    scope = layer.name_scope
    with scope as entered:
        first = tf.constant(0.0, name="k")
    with scope as again:
        second = tf.constant(0.0, name="k")
    return {
        "name": scope.name,
        "entered": [entered, again],
        "consts": [first.name, second.name],
    }


@program("variable_creator_scope_chain")
def _creator_chain(tf: Any) -> dict[str, Any]:
    log = []

    def outer(next_creator: Any, **kwargs: Any) -> Any:
        log.append(["outer", str(kwargs["name"]), sorted(kwargs)])
        kwargs["trainable"] = False
        return next_creator(**kwargs)

    def inner(next_creator: Any, **kwargs: Any) -> Any:
        log.append(["inner", str(kwargs["name"]), str(kwargs.get("trainable"))])
        kwargs["name"] = (kwargs["name"] or "v") + "_renamed"
        return next_creator(**kwargs)

    with tf.variable_creator_scope(outer):
        with tf.variable_creator_scope(inner):
            v = tf.Variable(1.0, name="a")
            w = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        u = tf.Variable(2.0)
    x = tf.Variable(3.0, name="plain")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([v, w, u, x])
    return {
        "log": log,
        "variables": [[t.name, t.trainable] for t in (v, w, u, x)],
        "trainable": [t.name for t in tf.trainable_variables()],
        "values": [np.asarray(a) for a in values],
    }


@program("variable_creator_scope_returns_other_value")
def _creator_swallow(tf: Any) -> dict[str, Any]:
    def swallow(next_creator: Any, **kwargs: Any) -> Any:
        return tf.constant(5.0, name="not_a_variable")

    with tf.variable_creator_scope(swallow):
        z = tf.Variable(1.0, name="z")
    with tf.Session() as sess:
        value = sess.run(z)
    return {
        "is_variable": isinstance(z, tf.Variable),
        "name": z.name,
        "value": np.asarray(value),
        "globals": [g.name for g in tf.global_variables()],
    }


@program("session_handles_local")
def _session_handles(tf: Any) -> dict[str, Any]:
    c = tf.multiply(tf.constant(10.0, name="a"), tf.constant(5.0))
    h = tf.get_session_handle(c)
    out: dict[str, Any] = {"handle_tensor": [h.name, h.op.type, h.dtype.name]}
    with tf.Session() as sess:
        hv = sess.run(h)
        out["handle"] = [type(hv).__name__, hv.handle, str(hv)]
        out["eval"] = np.asarray(hv.eval())
        p, x = tf.get_session_tensor(hv.handle, tf.float32)
        out["reader"] = [p.name, p.op.type, x.name, x.op.type, x.dtype.name]
        y = tf.multiply(x, 10.0)
        out["read"] = np.asarray(sess.run(y, feed_dict={p: hv.handle}))
        fp = tf.placeholder(tf.float32, name="fp")
        out["fed_as_tensor"] = np.asarray(sess.run(fp * 2.0, feed_dict={fp: hv}))
        h2 = tf.get_session_handle(tf.constant([1, 2, 3]), name="mine")
        hv2 = sess.run(h2)
        out["named"] = [hv2.handle, hv2.eval()]
        hv3, cv = sess.run([h, c])
        out["list_fetch"] = [hv3.handle, np.asarray(cv)]
        holder, deleter = tf.delete_session_tensor(hv.handle)
        out["deleter"] = [holder.name, holder.op.type, deleter.name, deleter.type]
        hv.delete()
        out["read_deleted"] = _caught(lambda: sess.run(y, feed_dict={p: hv.handle}))
        p2, x2 = tf.get_session_tensor(hv2.handle, tf.float32)
        out["wrong_dtype"] = _caught(lambda: sess.run(x2, feed_dict={p2: hv2.handle}))
        out["after_errors"] = sess.run(tf.get_session_handle(c)).handle
    out["not_a_tensor"] = _caught(lambda: tf.get_session_handle(1.0))
    return out
