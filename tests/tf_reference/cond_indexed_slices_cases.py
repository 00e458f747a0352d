"""tf.cond branches returning IndexedSlices, run by TF 1.15 (record_cond_indexed_slices.py)
and tfcluster (tests/unit/test_cond_indexed_slices.py): TF1's cond merges an IndexedSlices'
values, indices and dense shape one by one (cond/Merge, cond/Merge_1, ...), casts int32
indices to int64 where the other branch's are int64, and refuses an IndexedSlices against a
Tensor or against slices without a dense shape. Each case returns a JSON-able description:
the result's kind and tensor names, and its value for each predicate. Python 3.7 code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def _describe(tf: Any, result: Any, pred: Any) -> Any:
    leaves = result if isinstance(result, (list, tuple)) else [result]
    kinds, names = [], []
    for leaf in leaves:
        kinds.append(type(leaf).__name__)
        if isinstance(leaf, tf.IndexedSlices):
            shape = leaf.dense_shape.name if leaf.dense_shape is not None else None
            names.append([leaf.values.name, leaf.indices.name, shape])
        else:
            names.append(leaf.name)
    runs = {}
    with tf.Session() as sess:
        for value in (True, False):
            out = sess.run(leaves, {pred: value})
            runs[str(value)] = [_value(o) for o in out]
    return {"kinds": kinds, "names": names, "runs": runs}


def _value(out: Any) -> Any:
    if hasattr(out, "indices"):
        shape = None if out.dense_shape is None else np.asarray(out.dense_shape).tolist()
        return {
            "values": np.asarray(out.values).tolist(),
            "indices": np.asarray(out.indices).tolist(),
            "indices_dtype": str(np.asarray(out.indices).dtype),
            "dense_shape": shape,
        }
    return np.asarray(out).tolist()


def _slices(tf: Any, row: float, index: int, shape: bool = True, dtype: Any = None) -> Any:
    dtype = dtype or tf.int32
    return tf.IndexedSlices(
        tf.constant([[row, row + 1.0, row + 2.0]]),
        tf.constant([index], dtype),
        tf.constant([4, 3]) if shape else None,
    )


def _run(tf: Any, make: Callable[[Any, Any], Any]) -> Any:
    tf.reset_default_graph()
    pred = tf.placeholder(tf.bool, [], name="pred")
    try:
        return _describe(tf, make(tf, pred), pred)
    except Exception as e:
        return {"error": type(e).__name__}


CASES: dict[str, Callable[[Any, Any], Any]] = {
    "slices_in_both_branches": lambda tf, p: tf.cond(
        p, lambda: _slices(tf, 1.0, 1), lambda: _slices(tf, 5.0, 3)
    ),
    "slices_without_dense_shape": lambda tf, p: tf.cond(
        p, lambda: _slices(tf, 1.0, 2, False), lambda: _slices(tf, 7.0, 0, False)
    ),
    "a_one_item_list_of_slices": lambda tf, p: tf.cond(
        p, lambda: [_slices(tf, 1.0, 1)], lambda: [_slices(tf, 2.0, 2)]
    ),
    "slices_then_a_tensor": lambda tf, p: tf.cond(
        p,
        lambda: (_slices(tf, 1.0, 1), tf.constant(1.0)),
        lambda: (_slices(tf, 3.0, 0), tf.constant(2.0)),
    ),
    "int32_against_int64_indices": lambda tf, p: tf.cond(
        p, lambda: _slices(tf, 1.0, 1), lambda: _slices(tf, 4.0, 0, dtype=tf.int64)
    ),
    "slices_against_a_tensor": lambda tf, p: tf.cond(
        p, lambda: _slices(tf, 1.0, 1), lambda: tf.ones([4, 3])
    ),
    "slices_with_and_without_dense_shape": lambda tf, p: tf.cond(
        p, lambda: _slices(tf, 1.0, 1), lambda: _slices(tf, 1.0, 2, False)
    ),
}


def run_all(tf: Any) -> dict[str, Any]:
    return {name: _run(tf, make) for name, make in sorted(CASES.items())}
