"""What a Python callback gets for each tensor: tf.py_func / tf.numpy_function's function and
Dataset.from_generator's generator (its `args`). TF hands 0-d values over as scalars (a 0-d
string as `bytes`), others as numpy arrays. Runs under Python 3.7 (TF 1.15) too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_ARGS = (b"abc", [b"a", b"b"], 3, 2.5, [1, 2])


def _describe(args: Any) -> list[list[Any]]:
    return [
        [
            type(a).__name__,
            str(a.dtype) if hasattr(a, "dtype") else None,
            list(a.shape) if hasattr(a, "shape") else None,
        ]
        for a in args
    ]


def _py_func_args(tf: Any, wrap: Any) -> dict[str, Any]:
    seen: list[Any] = []

    def fn(*args: Any) -> Any:
        seen.append(_describe(args))
        return np.int64(0)

    with tf.Graph().as_default(), tf.Session() as sess:
        sess.run(wrap(tf)(fn, [tf.constant(a) for a in _ARGS], tf.int64))
    return {"args": seen[0]}


def py_func_args(tf: Any) -> dict[str, Any]:
    return _py_func_args(tf, lambda tf: tf.py_func)


def numpy_function_args(tf: Any) -> dict[str, Any]:
    return _py_func_args(tf, lambda tf: tf.numpy_function)


def from_generator_args(tf: Any) -> dict[str, Any]:
    seen: list[Any] = []

    def gen(*args: Any) -> Any:
        seen.append(_describe(args))
        yield 1

    with tf.Graph().as_default(), tf.Session() as sess:
        dataset = tf.data.Dataset.from_generator(gen, tf.int64, args=_ARGS)
        sess.run(tf.data.make_one_shot_iterator(dataset).get_next())
    return {"args": seen[0]}


CASES = {f.__name__: f for f in (py_func_args, numpy_function_args, from_generator_args)}
