"""Kernels of the set operations (CPU, as TF's): every row of a set input becomes (row, value)
pairs, and the set operations work on all rows at once by sorting those pairs, never row
by row in Python. Results are sparse: indices [n, rank], values [n], dense shape [rank]
(the rows' shape plus the largest result set), each row's values sorted ascending."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, host_array, invalid, shape_str
from tfcluster.kernels.registry import CPU_ONLY, kernel

Pairs = tuple[np.ndarray, np.ndarray]  # (row ids, values), sorted and unique


def _unique_pairs(rows: np.ndarray, values: np.ndarray) -> Pairs:
    if rows.size == 0:
        return rows.astype(np.int64), values
    order = np.lexsort((values, rows))
    rows, values = rows[order], values[order]
    keep = np.ones(rows.size, dtype=bool)
    keep[1:] = (rows[1:] != rows[:-1]) | (values[1:] != values[:-1])
    return rows[keep], values[keep]


def _codes(*arrays: np.ndarray) -> tuple[list[np.ndarray], np.ndarray | None]:
    """Strings (object arrays) as int codes in their sort order, so pairs sort as numbers;
    the vocabulary turns codes back into strings (None for numbers)."""
    if all(a.dtype != object for a in arrays):
        return list(arrays), None
    flat = [a.reshape(-1) for a in arrays]
    vocab, inverse = np.unique(np.concatenate(flat), return_inverse=True)
    out, start = [], 0
    for a in arrays:
        out.append(inverse[start : start + a.size].reshape(a.shape))
        start += a.size
    return out, vocab


def _dense_pairs(dense: np.ndarray) -> Pairs:
    """Each element of the last dimension paired with its row's flat id."""
    n_rows = int(np.prod(dense.shape[:-1], dtype=np.int64))
    width = dense.shape[-1]
    rows = np.repeat(np.arange(n_rows, dtype=np.int64), width)
    return _unique_pairs(rows, dense.reshape(-1))


def _check_sparse(
    indices: np.ndarray, values: np.ndarray, shape: np.ndarray, validate: bool, what: str
) -> None:
    if indices.ndim != 2 or values.ndim != 1 or shape.ndim != 1:
        raise invalid(
            f"Invalid {what}: indices {shape_str(indices.shape)}, values "
            f"{shape_str(values.shape)}, shape {shape_str(shape.shape)}"
        )
    if indices.shape[0] != values.shape[0] or indices.shape[1] != shape.shape[0]:
        raise invalid(
            f"Invalid {what}: {indices.shape[0]} indices of rank {indices.shape[1]} for "
            f"{values.shape[0]} values and a shape of rank {shape.shape[0]}"
        )
    if shape.shape[0] < 2:
        raise invalid(f"Invalid {what} rank {shape.shape[0]}: a set needs rank >= 2")
    if validate and indices.size:
        bad = np.any((indices < 0) | (indices >= shape), axis=1)
        if bad.any():
            i = int(np.argmax(bad))
            raise invalid(
                f"Invalid indices: index {i} {shape_str(indices[i].tolist())} is out of bounds of "
                f"the shape {shape_str(shape.tolist())}"
            )
        flat = np.ravel_multi_index(indices.T, shape)
        if np.any(np.diff(flat) <= 0):
            i = int(np.argmax(np.diff(flat) <= 0)) + 1
            raise invalid(
                f"Invalid indices: index {i} {shape_str(indices[i].tolist())} is not in "
                "lexicographic order after the one before it (or repeats it)"
            )


def _sparse_pairs(indices: np.ndarray, values: np.ndarray, shape: np.ndarray) -> Pairs:
    if indices.shape[0] == 0:
        return np.zeros(0, np.int64), values
    rows = np.ravel_multi_index(indices[:, :-1].T, shape[:-1]).astype(np.int64)
    return _unique_pairs(rows, values)


def _membership(a: Pairs, b: Pairs) -> np.ndarray:
    """For each pair of a: whether b has it too (both sorted and unique)."""
    if a[0].size == 0 or b[0].size == 0:
        return np.zeros(a[0].size, dtype=bool)
    rows = np.concatenate([a[0], b[0]])
    values = np.concatenate([a[1], b[1]])
    source = np.concatenate([np.zeros(a[0].size, np.int8), np.ones(b[0].size, np.int8)])
    order = np.lexsort((source, values, rows))
    rows, values, source = rows[order], values[order], source[order]
    # An a-pair is shared when the next entry in order is the same pair from b.
    shared_sorted = np.zeros(rows.size, dtype=bool)
    shared_sorted[:-1] = (rows[:-1] == rows[1:]) & (values[:-1] == values[1:]) & (source[1:] == 1)
    shared = np.empty(rows.size, dtype=bool)
    shared[order] = shared_sorted
    return shared[: a[0].size]


def _combine(a: Pairs, b: Pairs, operation: str) -> Pairs:
    if operation == "intersection":
        keep = _membership(a, b)
        return a[0][keep], a[1][keep]
    if operation == "a-b":
        keep = ~_membership(a, b)
        return a[0][keep], a[1][keep]
    if operation == "b-a":
        keep = ~_membership(b, a)
        return b[0][keep], b[1][keep]
    if operation == "union":
        return _unique_pairs(np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]]))
    raise invalid(f"Invalid set_operation {operation}.")


def _as_sparse(
    pairs: Pairs, row_shape: tuple[int, ...], dtype: Any, vocab: np.ndarray | None
) -> tuple[Any, ...]:
    rows, values = pairs
    if vocab is not None:
        values = vocab[values]
    counts = np.bincount(rows, minlength=1) if rows.size else np.zeros(1, np.int64)
    width = int(counts.max()) if rows.size else 0
    # Position of each value within its row: its rank among the row's sorted values.
    starts = np.zeros(rows.size, dtype=np.int64)
    if rows.size:
        first = np.ones(rows.size, dtype=bool)
        first[1:] = rows[1:] != rows[:-1]
        run_start = np.maximum.accumulate(np.where(first, np.arange(rows.size), 0))
        starts = np.arange(rows.size) - run_start
    row_index = np.array(np.unravel_index(rows, row_shape), dtype=np.int64).T
    indices = np.concatenate([row_index.reshape(rows.size, len(row_shape)), starts[:, None]], 1)
    out_values = values if vocab is not None else np.asarray(values, dtype=dtype)
    return (
        indices.astype(np.int64),
        out_values,
        np.array([*row_shape, width], dtype=np.int64),
    )


def _row_shape_of(dense: np.ndarray, what: str) -> tuple[int, ...]:
    if dense.ndim < 2:
        raise invalid(f"Invalid {what} rank {dense.ndim}: a set needs rank >= 2")
    return tuple(dense.shape[:-1])


def _same_rows(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    if a != b:
        raise invalid(
            f"Shapes {shape_str(a)} and {shape_str(b)} of the sets' rows (all dimensions but "
            "the last) must match"
        )


@kernel("DenseToDenseSetOperation", devices=CPU_ONLY)
def dense_to_dense(node: Any, xp: Any) -> Compute:
    operation = node.attrs["set_operation"]
    if isinstance(operation, bytes):
        operation = operation.decode()
    dtype = node.attrs["T"].as_numpy_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        a, b = host_array(ins[0]), host_array(ins[1])
        rows = _row_shape_of(a, "set1")
        _same_rows(rows, _row_shape_of(b, "set2"))
        (a, b), vocab = _codes(a, b)
        pairs = _combine(_dense_pairs(a), _dense_pairs(b), operation)
        return _as_sparse(pairs, rows, dtype, vocab)

    return compute


@kernel("DenseToSparseSetOperation", devices=CPU_ONLY)
def dense_to_sparse(node: Any, xp: Any) -> Compute:
    operation = node.attrs["set_operation"]
    if isinstance(operation, bytes):
        operation = operation.decode()
    validate = bool(node.attrs.get("validate_indices", True))
    dtype = node.attrs["T"].as_numpy_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        a = host_array(ins[0])
        indices, values, shape = (host_array(x) for x in ins[1:4])
        _check_sparse(indices, values, shape, validate, "set2")
        rows = _row_shape_of(a, "set1")
        _same_rows(rows, tuple(int(d) for d in shape[:-1]))
        (a, values), vocab = _codes(a, values)
        b = _sparse_pairs(indices, values, shape)
        return _as_sparse(_combine(_dense_pairs(a), b, operation), rows, dtype, vocab)

    return compute


@kernel("SparseToSparseSetOperation", devices=CPU_ONLY)
def sparse_to_sparse(node: Any, xp: Any) -> Compute:
    operation = node.attrs["set_operation"]
    if isinstance(operation, bytes):
        operation = operation.decode()
    validate = bool(node.attrs.get("validate_indices", True))
    dtype = node.attrs["T"].as_numpy_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        a_idx, a_val, a_shape, b_idx, b_val, b_shape = (host_array(x) for x in ins)
        _check_sparse(a_idx, a_val, a_shape, validate, "set1")
        _check_sparse(b_idx, b_val, b_shape, validate, "set2")
        rows = tuple(int(d) for d in a_shape[:-1])
        _same_rows(rows, tuple(int(d) for d in b_shape[:-1]))
        (a_val, b_val), vocab = _codes(a_val, b_val)
        a = _sparse_pairs(a_idx, a_val, a_shape)
        b = _sparse_pairs(b_idx, b_val, b_shape)
        return _as_sparse(_combine(a, b, operation), rows, dtype, vocab)

    return compute


@kernel("SetSize", devices=CPU_ONLY)
def set_size(node: Any, xp: Any) -> Compute:
    validate = bool(node.attrs.get("validate_indices", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        indices, values, shape = (host_array(x) for x in ins)
        _check_sparse(indices, values, shape, validate, "sparse tensor")
        row_shape = tuple(int(d) for d in shape[:-1])
        (values,), _ = _codes(values)
        rows, _ = _sparse_pairs(indices, values, shape)
        n_rows = int(np.prod(row_shape, dtype=np.int64))
        counts = np.bincount(rows, minlength=n_rows).astype(np.int32)
        return (counts.reshape(row_shape),)

    return compute
