"""RaggedTensors in a TF1 graph as TF 1.15 builds them: what printing a result shows (its
tensors' names, static shapes and dtypes), what a session gives for it, and the error class
where building or running it fails. Cases: static shapes TF's shape refiner knows (row
splits of from_value_rowids and of an axis-1 concat, ragged reductions, a SparseToDense of
a concat of ragged tensors' sparse forms, ragged getitem slices), and element-wise ops that
broadcast dense and ragged operands over ragged dimensions (ragged_tensor_shape).

Shared by record_ragged_graph.py (TF 1.15, Python 3.7) and tests/unit/test_ragged_graph.py,
so it stays Python 3.7 code."""

from __future__ import annotations

from typing import Any

import numpy as np

# name -> build(tf): the named results of one graph.
CASES: dict[str, Any] = {}


def case(name: str) -> Any:
    def deco(fn: Any) -> Any:
        CASES[name] = fn
        return fn

    return deco


# ---- static shapes ------------------------------------------------------------------------


@case("from_value_rowids_splits")
def _from_value_rowids(tf: Any) -> dict[str, Any]:
    rt = tf.RaggedTensor.from_value_rowids(
        values=[3, 1, 4, 1, 5, 9, 2, 6], value_rowids=[0, 0, 0, 0, 2, 2, 2, 3]
    )
    with_nrows = tf.RaggedTensor.from_value_rowids(
        [3, 1, 4, 1, 5, 9, 2, 6], value_rowids=[0, 0, 0, 0, 2, 2, 2, 3], nrows=5
    )
    # Its row lengths are the counts it was built from (no ops of their own).
    return {"rt": rt, "with_nrows": with_nrows, "row_lengths": with_nrows.row_lengths()}


@case("bincount_size")
def _bincount(tf: Any) -> dict[str, Any]:
    return {
        "counts": tf.math.bincount([1, 2, 2, 5]),
        "min": tf.math.bincount([1, 2], minlength=4),
        "max": tf.math.bincount([1, 2, 7], maxlength=3),
    }


@case("concat_axis_1_splits")
def _concat_axis_1(tf: Any) -> dict[str, Any]:
    x = tf.ragged.constant([["John"], ["a", "big", "dog"], ["my", "cat"]])
    y = tf.ragged.constant([["fell", "asleep"], ["barked"], ["is", "fuzzy"]])
    return {"concat": tf.concat([x, y], axis=1), "stack": tf.stack([x, y], axis=1)}


@case("concat_axis_0_with_dense")
def _concat_axis_0(tf: Any) -> dict[str, Any]:
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    return {"concat": tf.concat([digits, [[5, 3]]], axis=0)}


@case("reduce_mean_inner_dims")
def _reduce_mean(tf: Any) -> dict[str, Any]:
    rt = tf.RaggedTensor.from_row_splits(
        tf.reshape(tf.range(28.0), [7, 4]), tf.constant([0, 2, 3, 7], tf.int64)
    )
    both = tf.concat([rt, rt * 2.0], axis=1)
    return {
        "mean": tf.reduce_mean(rt, axis=1),
        "sum": tf.reduce_sum(rt, axis=1),
        "mean_of_concat": tf.reduce_mean(both, axis=1),
    }


@case("sparse_concat_to_dense")
def _sparse_concat(tf: Any) -> dict[str, Any]:
    x = tf.ragged.constant([["John"], ["a", "big", "dog"], ["my", "cat"]])
    y = tf.ragged.constant([["fell", "asleep"], ["barked"], ["is", "fuzzy"]])
    joined = tf.sparse.concat(sp_inputs=[x.to_sparse(), y.to_sparse()], axis=1)
    return {"sparse": x.to_sparse(), "dense": tf.sparse.to_dense(joined, "")}


@case("getitem_slices")
def _getitem(tf: Any) -> dict[str, Any]:
    rt = tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]], [[7]], [[8, 9], [10]]])
    queries = tf.ragged.constant([["Who", "is"], ["What", "is", "the"], ["Goodnight"]])
    return {"element": rt[3, 0], "row": rt[1], "word": queries[1, 2]}


@case("from_sparse_splits")
def _from_sparse(tf: Any) -> dict[str, Any]:
    st = tf.SparseTensor(
        indices=[[0, 0], [2, 0], [2, 1]], values=["a", "b", "c"], dense_shape=[3, 3]
    )
    return {"rt": tf.RaggedTensor.from_sparse(st)}


# ---- ops dispatched for RaggedTensors ---------------------------------------------------------


@case("ops_on_ragged_digits")
def _digits(tf: Any) -> dict[str, Any]:
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    words = tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
    return {
        "add": tf.add(digits, 3),
        "mean": tf.reduce_mean(digits, axis=1),
        "concat": tf.concat([digits, [[5, 3]]], axis=0),
        "tile": tf.tile(digits, [1, 2]),
        "substr": tf.strings.substr(words, 0, 2),
    }


@case("tile")
def _tile(tf: Any) -> dict[str, Any]:
    nested = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    inner = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    return {
        "rows_and_values": tf.tile(nested, [2, 3, 1]),
        "inner": tf.tile(inner, [2, 2, 3]),
        "dense": tf.tile(tf.constant([[1, 2]]), [2, 1]),
        "by_tensor": tf.tile(nested, tf.constant([1, 2, 2])),
    }


# ---- element-wise ops broadcasting ragged and dense operands -------------------------------------


@case("broadcast_scalar_and_column")
def _broadcast_column(tf: Any) -> dict[str, Any]:
    x = tf.ragged.constant([[10, 87, 12], [19, 53], [12, 32]])
    return {
        "scalar": tf.ragged.constant([[1, 2], [3]]) + 3,
        "column": tf.add(x, [[1000], [2000], [3000]]),
        "reversed": [[1000], [2000], [3000]] - x,
        "one_by_one": x * tf.constant([[2]]),
        "row": tf.add(tf.ragged.constant([[1, 2, 3, 4], [5, 6, 7, 8]]), [[10, 20, 30, 40]]),
    }


@case("broadcast_inner_dimensions")
def _broadcast_inner(tf: Any) -> dict[str, Any]:
    x3 = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    x4 = tf.ragged.constant([[[[1], [2]], [], [[3]], [[4]]], [[[5], [6]], [[7]]]], ragged_rank=2)
    return {
        "one_by_one": x3 + tf.constant([[10]]),
        "vector": x4 + tf.constant([10, 20, 30]),
        "maximum": tf.maximum(x3, [[3], [5]]),
    }


@case("broadcast_trailing_mismatch")
def _broadcast_trailing(tf: Any) -> dict[str, Any]:
    x = tf.ragged.constant([[1, 2], [3, 4, 5, 6], [7]])
    y = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    return {"sum": x + y}


@case("broadcast_ragged_lengths_mismatch")
def _broadcast_ragged(tf: Any) -> dict[str, Any]:
    x = tf.ragged.constant([[1, 2, 3], [4], [5, 6]])
    y = tf.ragged.constant([[10, 20], [30, 40], [50]])
    return {"sum": x + y}


@case("broadcast_ragged_inner_mismatch")
def _broadcast_ragged_inner(tf: Any) -> dict[str, Any]:
    x = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10]]])
    y = tf.ragged.constant([[[1, 2, 0], [3, 4, 0], [5, 6, 0]], [[7, 8, 0], [9, 10, 0]]])
    return {"sum": x + y}


@case("broadcast_same_lengths_other_splits")
def _broadcast_same_lengths(tf: Any) -> dict[str, Any]:
    x = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    y = tf.RaggedTensor.from_row_lengths([1, 1, 2, 3, 3, 3], tf.constant([2, 1, 3], tf.int64))
    return {"sum": x + y, "ge": x >= y}


@case("operand_that_converts_to_no_tensor")
def _no_tensor(tf: Any) -> dict[str, Any]:
    # The dispatcher declines: the op's own conversion error stands.
    return {"sum": tf.add(tf.ragged.constant([[1, 2], [3]]), {"a": 1})}


@case("list_and_mapped_ops")
def _list_ops(tf: Any) -> dict[str, Any]:
    rt = tf.ragged.constant([[1.0, 2.0], [], [3.0]])
    words = tf.ragged.constant([["a", "b"], ["c"]])
    return {
        "add_n": tf.add_n([rt, rt, rt]),
        "join": tf.strings.join([words, words], separator="+"),
        "mapped": tf.ragged.map_flat_values(tf.square, rt),
        "mean": tf.reduce_mean(rt, axis=1),
        "after": tf.RaggedTensor.from_nested_row_splits([1, 2, 3], [[0, 1, 3]]),
    }


# ---- describing a result --------------------------------------------------------------------


def _plain(value: Any) -> Any:
    if hasattr(value, "to_list"):
        return _plain(value.to_list())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, float) and value != value:
        return "nan"  # compares equal to itself
    return value


def _fetched(value: Any) -> Any:
    """A session's value as plain lists (a SparseTensorValue as its three parts)."""
    if hasattr(value, "dense_shape") and hasattr(value, "indices"):
        return [_plain(value.indices), _plain(value.values), _plain(value.dense_shape)]
    return _plain(value)


def run_case(tf: Any, build: Any) -> dict[str, Any]:
    """Each result's printed form and value; or the error class where building fails (a
    result whose step fails records its error class as its value)."""
    graph = tf.Graph()
    with graph.as_default():
        try:
            results = build(tf)
        except Exception as e:  # the error class is the answer
            return {"error": type(e).__name__}
        out: dict[str, Any] = {k: str(v) for k, v in results.items()}
        with tf.Session() as sess:
            for key, value in results.items():
                try:
                    out["value:" + key] = _fetched(sess.run(value))
                except Exception as e:
                    out["value:" + key] = "error:" + type(e).__name__
    return out
