"""Programs drawing from TF1's stateful random ops (tf.random_normal, tf.truncated_normal,
tf.random_uniform, tf.random_shuffle, dropout, initializers), run by
record_random_streams.py on TensorFlow 1.15 and by tests/unit/test_random_streams.py on
tfcluster: the same seeds must give TensorFlow's own numbers, run after run and again in a
new session. Python 3.7 code (TF 1.15 runs it)."""

from __future__ import annotations

from typing import Any

# name -> program(tf) returning what it drew (annotations stay strings: Python 3.7 runs it).
CASES: dict[str, Any] = {}


def case(fn: Any) -> Any:
    CASES[fn.__name__.lstrip("_")] = fn
    return fn


def _draws(tf: Any, fetches: dict[str, Any], runs: int = 2, sessions: int = 2) -> dict[str, Any]:
    """Each fetch, run `runs` times in each of `sessions` new sessions."""
    out = {}
    for s in range(sessions):
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for r in range(runs):
                for key, value in sess.run(fetches).items():
                    out[f"{key}_s{s}_r{r}"] = value
    return out


@case
def _explicit_op_seeds(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        tf.set_random_seed(777)
        fetches = {
            "normal": tf.random_normal([2, 3], seed=1),
            "normal64": tf.random_normal([5], mean=1.0, stddev=2.0, dtype=tf.float64, seed=2),
            "normal16": tf.random_normal([5], dtype=tf.float16, seed=3),
            "truncated": tf.truncated_normal([3, 4], stddev=0.1, seed=4),
            "truncated64": tf.truncated_normal([5], dtype=tf.float64, seed=5),
            "uniform": tf.random_uniform([7], -1.0, 1.0, seed=6),
            "uniform64": tf.random_uniform([3], dtype=tf.float64, seed=7),
            "uniform16": tf.random_uniform([5], dtype=tf.float16, seed=8),
            "int32": tf.random_uniform([6], 0, 10, dtype=tf.int32, seed=9),
            "int64": tf.random_uniform([3], 0, 2**40, dtype=tf.int64, seed=10),
            "shuffle": tf.random_shuffle(tf.range(10), seed=11),
            "shuffle_rows": tf.random_shuffle(tf.reshape(tf.range(12), [6, 2]), seed=12),
            "many": tf.random_normal([1001], seed=13),
        }
        return _draws(tf, fetches)


@case
def _op_seed_without_graph_seed(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        return _draws(tf, {"normal": tf.random_normal([4], seed=3)})


@case
def _seeds_are_taken_modulo_2_31_minus_1(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        tf.set_random_seed(2**40 + 5)
        big = tf.random_uniform([4], seed=2**33 + 1)
        # (0, 0) would mean "nondeterministic": TF moves the op seed to 2**31 - 1.
        tf.set_random_seed(0)
        zeros = tf.random_uniform([4], seed=0)
        return _draws(tf, {"big": big, "zeros": zeros}, runs=1, sessions=1)


@case
def _graph_seed_alone_derives_op_seeds_from_the_op_count(tf: Any) -> dict[str, Any]:
    # The way tutorials write it: one graph seed, variables initialised from random ops.
    with tf.Graph().as_default():
        tf.set_random_seed(777)
        x = tf.placeholder(tf.float32, [None, 3])
        w = tf.Variable(tf.random_normal([3, 2]), name="weight")
        b = tf.Variable(tf.random_normal([2]), name="bias")
        hidden = tf.matmul(x, w) + b
        dense = tf.layers.dense(hidden, 4)
        dropped = tf.nn.dropout(tf.ones([10]), keep_prob=0.5)
        kernel = next(v for v in tf.global_variables() if v.name == "dense/kernel:0")
        fetches = {"w": w, "b": b, "dense_kernel": kernel, "dropout": dropped}
        out = _draws(tf, fetches)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["dense_out"] = sess.run(dense, {x: [[1.0, 2.0, 3.0]]})
        return out
