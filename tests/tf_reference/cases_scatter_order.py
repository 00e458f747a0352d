"""Scatter updates that name a row more than once, run on TensorFlow 1.15 by
record_scatter_order.py and on tfcluster by tests/unit/test_tf_reference_scatter_order.py.
TF's CPU kernels apply a row's updates one after another in index order; float sums depend on
that order (1e8 + 1 - 1e8 + 1 is 1 in float32 that way, 0 summed pairwise), so the values
must match bit for bit: skip-gram batches repeat frequent words many times."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book, values
except ImportError:  # imported as tf_reference.cases_scatter_order by the tests
    from tf_reference.casebook import Book, values

BOOK = Book()
add = BOOK.add
EXACT = {"rtol": 0.0, "atol": 0.0}

CANCELLING = np.array([[1e8, 1], [1, 1e8], [-1e8, 2], [1, -1e8], [3, 3]], np.float32)


def _wild(shape: tuple[int, ...], seed: int) -> Any:
    """Values spread over many magnitudes, so that the order of a sum shows in its bits."""
    return values(shape, seed=seed) * 10.0 ** np.round(values(shape, -4, 4, seed + 1))


# Zipf-like ids: row 0 named 40 times, row 1 twenty times, a few once, in no order.
ZIPF = np.array(([0] * 40 + [1] * 20 + [2] * 7 + [3] * 3 + list(range(4, 30)))[::-1], np.int32)
ZIPF = ZIPF[np.argsort(values((ZIPF.size,), seed=5), kind="stable")]


def _scatter(op: str, shape: tuple[int, ...], dtype: Any) -> Any:
    def build(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
        var = tf.Variable(_wild(shape, seed=9).astype(dtype), name="v")
        return {"updated": getattr(tf, op)(var, t["ids"], t["updates"])}

    return build


add(
    "add_cancelling_rows_float32",
    {"ids": np.array([0, 0, 0, 0, 2], np.int32), "updates": CANCELLING},
    **EXACT,
)(
    lambda tf, t: {
        "updated": tf.scatter_add(tf.Variable(np.zeros((3, 2), np.float32)), t["ids"], t["updates"])
    }
)
add(
    "sub_cancelling_rows_float32",
    {"ids": np.array([2, 0, 2, 2, 0], np.int64), "updates": CANCELLING},
    **EXACT,
)(
    lambda tf, t: {
        "updated": tf.scatter_sub(tf.Variable(np.zeros((3, 2), np.float32)), t["ids"], t["updates"])
    }
)
add(
    "sub_zipf_rows_float32",
    {"ids": ZIPF, "updates": _wild((ZIPF.size, 16), seed=11).astype(np.float32)},
    **EXACT,
)(_scatter("scatter_sub", (40, 16), np.float32))
add(
    "add_zipf_rows_float64",
    {"ids": ZIPF, "updates": _wild((ZIPF.size, 3), seed=12)},
    **EXACT,
)(_scatter("scatter_add", (30, 3), np.float64))
add(
    "sub_zipf_vector_float32",
    {"ids": ZIPF.astype(np.int64), "updates": _wild((ZIPF.size,), seed=13).astype(np.float32)},
    **EXACT,
)(_scatter("scatter_sub", (35,), np.float32))
add(
    "add_zipf_blocks_float32",
    {
        "ids": ZIPF.reshape(8, -1),
        "updates": _wild((8, ZIPF.size // 8, 2, 3), seed=14).astype(np.float32),
    },
    **EXACT,
)(_scatter("scatter_add", (32, 2, 3), np.float32))
