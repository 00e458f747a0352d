"""tf.keras programs whose graph-building stages move TF 1.15's op count, hence the op seeds
of every random op made after them (graph seed set, no op seed). Each case builds a model in
stages (build, compile, first fit, evaluate, predict) and records, after each stage, the op
count, the (name, type) of the ops the stage made, and a seeded draw made right after it
(a Dropout layer's mask, a tf.random_normal), so that tfcluster builds the same ops in the same
order and draws TF's numbers. Runs under Python 3.7 (TF 1.15) and on tfcluster.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _count(graph: Any) -> int:
    return graph._op_count() if hasattr(graph, "_op_count") else graph._last_id


class _Stages:
    """Op count and the ops made by each stage of a program, in one graph."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.seen = 0
        self.out: dict[str, Any] = {"stages": [], "counts": [], "ops": []}

    def mark(self, stage: str) -> None:
        ops = self.graph.get_operations()
        self.out["stages"].append(stage)
        self.out["counts"].append(_count(self.graph))
        self.out["ops"].append([[op.name, op.type] for op in ops[self.seen :]])
        self.seen = len(ops)


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (12, 3)).astype(np.float32)
    y = (np.arange(12) % 2).astype(np.int64)
    return x, y


def _program(tf: Any, optimizer: Any, loss: str, metrics: Any) -> dict[str, Any]:
    K = tf.keras
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        sess = tf.Session(graph=graph)
        K.backend.set_session(sess)
        stages = _Stages(graph)
        model = K.Sequential(
            [
                K.layers.Dense(4, activation="relu", input_shape=(3,)),
                K.layers.Dense(2, activation="softmax"),
            ]
        )
        stages.mark("build")
        model.compile(optimizer() if callable(optimizer) else optimizer, loss, metrics=metrics)
        stages.mark("compile")
        after_compile = tf.random_normal([4], name="after_compile")
        x, y = _data()
        if loss == "mse":
            y = np.eye(2, dtype=np.float32)[y]
        history = model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
        stages.mark("fit")
        evaluated = model.evaluate(x, y, batch_size=4, verbose=0)
        stages.mark("evaluate")
        predicted = model.predict(x[:3])
        stages.mark("predict")
        after = tf.random_uniform([3], name="after_all")
        out = stages.out
        out["after_compile"] = sess.run(after_compile)
        out["after_all"] = sess.run(after)
        out["history"] = {k: [float(v) for v in vs] for k, vs in history.history.items()}
        out["evaluate"] = [float(v) for v in np.atleast_1d(evaluated)]
        out["predict"] = predicted
        out["metrics_names"] = list(model.metrics_names)
        sess.close()
    return out


def sgd_mse_without_metrics(tf: Any) -> dict[str, Any]:
    return _program(tf, lambda: tf.train.GradientDescentOptimizer(0.1), "mse", None)


def rmsprop_sparse_crossentropy_with_accuracy(tf: Any) -> dict[str, Any]:
    return _program(
        tf, lambda: tf.train.RMSPropOptimizer(0.01), "sparse_categorical_crossentropy", ["acc"]
    )


def sgd_mse_with_two_metrics(tf: Any) -> dict[str, Any]:
    return _program(tf, lambda: tf.train.GradientDescentOptimizer(0.1), "mse", ["mae", "acc"])


def dropout_after_compile(tf: Any) -> dict[str, Any]:
    """A Dropout layer called after compile: its mask's seed is the op count then."""
    K = tf.keras
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        sess = tf.Session(graph=graph)
        K.backend.set_session(sess)
        stages = _Stages(graph)
        inputs = K.Input((6,))
        model = K.Model(inputs, K.layers.Dense(2)(inputs))
        model.compile(tf.train.AdamOptimizer(0.01), "categorical_crossentropy", ["accuracy"])
        stages.mark("compile")
        dropped = K.layers.Dropout(0.5)(tf.ones([5, 6]), training=True)
        stages.mark("dropout")
        out = stages.out
        out["dropout"] = sess.run(dropped)
        sess.close()
    return out


def two_outputs_compile(tf: Any) -> dict[str, Any]:
    """Two outputs: each loss also a Mean metric (`dense_loss`), metrics named per output."""
    K = tf.keras
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(5)
        sess = tf.Session(graph=graph)
        K.backend.set_session(sess)
        stages = _Stages(graph)
        inputs = K.Input((3,))
        a = K.layers.Dense(2, activation="softmax")(inputs)
        b = K.layers.Dense(1)(inputs)
        model = K.Model(inputs, [a, b])
        stages.mark("build")
        model.compile(
            tf.train.GradientDescentOptimizer(0.1),
            ["sparse_categorical_crossentropy", "mse"],
            metrics=["acc"],
            loss_weights=[1.0, 0.5],
        )
        stages.mark("compile")
        x, y = _data()
        history = model.fit(x, [y, x[:, :1]], batch_size=5, epochs=2, verbose=0, shuffle=False)
        stages.mark("fit")
        after = tf.random_normal([3], name="after_fit")
        out = stages.out
        out["after_fit"] = sess.run(after)
        out["history"] = {k: [float(v) for v in vs] for k, vs in history.history.items()}
        out["metrics_names"] = list(model.metrics_names)
        sess.close()
    return out


CASES = {
    fn.__name__: fn
    for fn in (
        sgd_mse_without_metrics,
        rmsprop_sparse_crossentropy_with_accuracy,
        sgd_mse_with_two_metrics,
        dropout_after_compile,
        two_outputs_compile,
    )
}
