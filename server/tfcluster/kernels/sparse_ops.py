"""Kernels of the sparse ops: a sparse tensor is (indices [N, rank] int64, values [N],
dense_shape [rank] int64). The bodies are vectorised with numpy (index arithmetic runs on the
host, as TF's CPU kernels do); orders, messages and error classes follow TF's kernels."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.kernels.common import host_array, invalid, shape_str
from tfcluster.kernels.registry import CPU_ONLY, kernel


def _indices(value: Any, what: str = "indices") -> np.ndarray:
    arr = np.asarray(value)
    if arr.ndim != 2:
        raise invalid(f"Input {what} should be a matrix but received shape {shape_str(arr.shape)}")
    return arr.astype(np.int64, copy=False)


def _vector(value: Any, what: str) -> np.ndarray:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise invalid(f"Input {what} should be a vector but received shape {shape_str(arr.shape)}")
    return arr.astype(np.int64, copy=False)


def _values(value: Any, n: int, what: str = "values") -> np.ndarray:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise invalid(f"Input {what} should be a vector but received shape {shape_str(arr.shape)}")
    if arr.shape[0] != n:
        raise invalid(
            f"Expected {what} to have {n} elements (one per index) but it has {arr.shape[0]}"
        )
    return arr


def _sparse(ins: Sequence[Any], first: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ind = _indices(ins[first])
    shape = _vector(ins[first + 2], "shape")
    vals = _values(ins[first + 1], ind.shape[0])
    if ind.shape[1] != shape.shape[0]:
        raise invalid(
            f"Number of dimensions must match second dimension of indices. Got "
            f"{shape.shape[0]} dimensions, indices shape: {shape_str(ind.shape)}"
        )
    return ind, vals, shape


def _keys(ind: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """Row-major position of each index (the order TF's sorted sparse tensors follow)."""
    if ind.shape[1] == 0:
        return np.zeros(ind.shape[0], dtype=np.int64)
    strides = np.ones(len(shape), dtype=np.int64)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * max(int(shape[d + 1]), 1)
    return ind @ strides


def _lex_order(ind: np.ndarray) -> np.ndarray:
    """A stable lexicographic order of the index rows."""
    if ind.shape[0] == 0 or ind.shape[1] == 0:
        return np.arange(ind.shape[0])
    return np.lexsort(ind.T[::-1])


def _is_sorted(ind: np.ndarray) -> bool:
    if ind.shape[0] < 2 or ind.shape[1] == 0:
        return True
    diff = ind[1:] - ind[:-1]
    nonzero = diff != 0
    first = np.argmax(nonzero, axis=1)
    leading = diff[np.arange(diff.shape[0]), first]
    return bool(np.all(leading >= 0))


def _idx_str(row: np.ndarray) -> str:
    return "[" + ",".join(str(int(v)) for v in row) + "]"


def _validate(ind: np.ndarray, shape: np.ndarray) -> None:
    """TF's SparseTensor::IndicesValid: the first bad index (out of bounds, out of order or
    repeated) is an InvalidArgumentError."""
    n = ind.shape[0]
    if n == 0:
        return
    out_of_bounds = np.any((ind < 0) | (ind >= shape), axis=1)
    bad = out_of_bounds.copy()
    order = np.zeros(n, dtype=np.int8)  # 0 ok, 1 out of order, 2 repeated
    if n > 1 and ind.shape[1] > 0:
        diff = ind[1:] - ind[:-1]
        nonzero = diff != 0
        any_nz = nonzero.any(axis=1)
        first = np.argmax(nonzero, axis=1)
        leading = diff[np.arange(n - 1), first]
        order[1:] = np.where(~any_nz, 2, np.where(leading < 0, 1, 0))
        bad |= order != 0
    hits = np.flatnonzero(bad)
    if not hits.size:
        return
    i = int(hits[0])
    where = f"indices[{i}] = {_idx_str(ind[i])}"
    if out_of_bounds[i]:
        raise invalid(f"{where} is out of bounds: need 0 <= index < {_idx_str(shape)}")
    if order[i] == 1:
        raise invalid(
            f"{where} is out of order. Many sparse ops require sorted indices.\n"
            "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"
        )
    raise invalid(f"{where} is repeated")


def _int64(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


# ---- dense results ---------------------------------------------------------------------------
@kernel("SparseToDense", devices=CPU_ONLY)
def sparse_to_dense(node: Any, xp: Any) -> Any:
    validate = bool(node.attrs.get("validate_indices", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        raw_ind, shape, values, default = (np.asarray(v) for v in ins)
        if raw_ind.ndim > 2:
            raise invalid(
                "sparse_indices should be a scalar, vector, or matrix, got shape "
                f"{shape_str(raw_ind.shape)}"
            )
        if shape.ndim != 1:
            raise invalid(f"output_shape should be a vector, got shape {shape_str(shape.shape)}")
        n = 1 if raw_ind.ndim == 0 else raw_ind.shape[0]
        rank = 1 if raw_ind.ndim < 2 else raw_ind.shape[1]
        ind = raw_ind.reshape(n, rank).astype(np.int64)
        if values.ndim > 1 or (values.ndim == 1 and values.shape[0] != n):
            raise invalid(
                f"sparse_values has incorrect shape {shape_str(values.shape)}, should be [] or "
                f"[{n}]"
            )
        if default.ndim != 0:
            raise invalid(f"default_value should be a scalar, got shape {shape_str(default.shape)}")
        if shape.shape[0] != rank:
            raise invalid(
                f"output_shape has incorrect number of elements: {shape.shape[0]} should be: {rank}"
            )
        out_shape = shape.astype(np.int64)
        if validate:
            _validate(ind, out_shape)
        elif n and np.any((ind < 0) | (ind >= out_shape)):
            i = int(np.flatnonzero(np.any((ind < 0) | (ind >= out_shape), axis=1))[0])
            raise invalid(
                f"indices[{i}] = {_idx_str(ind[i])} is out of bounds: need 0 <= index < "
                f"{_idx_str(out_shape)}"
            )
        out = np.full(tuple(int(d) for d in out_shape), default, dtype=values.dtype)
        if n:
            out[tuple(ind.T)] = values
        return (out,)

    return compute


@kernel("SparseTensorDenseMatMul", devices=CPU_ONLY)
def sparse_tensor_dense_matmul(node: Any, xp: Any) -> Any:
    adj_a = bool(node.attrs.get("adjoint_a", False))
    adj_b = bool(node.attrs.get("adjoint_b", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ind = _indices(ins[0], "a_indices")
        shape = _vector(ins[2], "a_shape")
        vals = _values(ins[1], ind.shape[0], "a_values")
        b = np.asarray(ins[3])
        if shape.shape[0] != 2 or ind.shape[1] != 2:
            raise invalid(f"Tensor 'a_shape' is not a vector of length 2: {shape_str(shape.shape)}")
        if b.ndim != 2:
            raise invalid(f"Tensor 'b' is not a matrix: {shape_str(b.shape)}")
        if adj_b:
            b = b.conj().T if b.dtype.kind == "c" else b.T
        rows, inner = (int(shape[1]), int(shape[0])) if adj_a else (int(shape[0]), int(shape[1]))
        if inner != b.shape[0]:
            raise invalid(
                "Cannot multiply A and B because inner dimension does not match: "
                f"{inner} vs. {b.shape[0]}.  Did you forget a transpose?  Dimensions of A: "
                f"[{rows}, {inner}).  Dimensions of B: {shape_str(b.shape)}"
            )
        i_col, k_col = (1, 0) if adj_a else (0, 1)
        i, k = ind[:, i_col], ind[:, k_col]
        for name, idx, bound, col in (("i", i, rows, i_col), ("k", k, inner, k_col)):
            bad = np.flatnonzero((idx < 0) | (idx >= bound))
            if bad.size:
                j = int(bad[0])
                raise invalid(
                    f"{name} ({int(idx[j])}) from index[{j},{col}] out of bounds (>={bound})"
                )
        if adj_a and vals.dtype.kind == "c":
            vals = vals.conj()
        out = np.zeros((rows, b.shape[1]), dtype=b.dtype)
        if ind.shape[0]:
            np.add.at(out, i, vals[:, None].astype(b.dtype) * b[k])
        return (out,)

    return compute


def _reduction(ins: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    ind, vals, shape = _sparse(ins)
    rank = shape.shape[0]
    axes = []
    for a in np.asarray(ins[3]).reshape(-1).tolist():
        a = int(a)
        if not -rank <= a < rank:
            raise invalid(f"Invalid reduction dimension {a}, for input with {rank} dimensions.")
        axes.append(a % rank)
    return ind, vals, shape, sorted(set(axes))


def _grouped(
    ind: np.ndarray, shape: np.ndarray, axes: list[int], keep_dims: bool
) -> tuple[np.ndarray, list[int], list[int], list[int]]:
    """Per entry its output group (row-major over the kept dims); the kept dims; the output
    shape; the output shape with the reduced dims kept as 1."""
    kept = [d for d in range(shape.shape[0]) if d not in axes]
    kept_shape = [int(shape[d]) for d in kept]
    group = _keys(ind[:, kept], kept_shape) if kept else np.zeros(ind.shape[0], dtype=np.int64)
    with_ones = [1 if d in axes else int(shape[d]) for d in range(shape.shape[0])]
    return group, kept, with_ones if keep_dims else kept_shape, kept_shape


def _reduce(
    vals: np.ndarray, group: np.ndarray, size: int, op: str
) -> tuple[np.ndarray, np.ndarray]:
    """Reduced value per group and whether the group has entries."""
    present = np.zeros(size, dtype=bool)
    present[group] = True
    if op == "sum":
        out = np.zeros(size, dtype=vals.dtype)
        np.add.at(out, group, vals)
        return out, present
    if vals.dtype.kind == "f":
        init = -np.inf
    elif vals.dtype.kind in "iu":
        init = np.iinfo(vals.dtype).min
    else:
        init = False
    out = np.full(size, init, dtype=vals.dtype)
    np.maximum.at(out, group, vals)
    out[~present] = 0  # a group with no stored value reduces to zero (as TF's)
    return out, present


def _reduce_kernel(op: str, sparse_out: bool) -> Any:
    def factory(node: Any, xp: Any) -> Any:
        keep_dims = bool(node.attrs.get("keep_dims", False))

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            ind, vals, shape, axes = _reduction(ins)
            group, kept, out_shape, kept_shape = _grouped(ind, shape, axes, keep_dims)
            size = int(np.prod(kept_shape, dtype=np.int64))
            reduced, present = _reduce(vals, group, size, op)
            if not sparse_out:
                return (reduced.reshape(out_shape),)
            where = np.flatnonzero(present)
            positions = (
                np.array(np.unravel_index(where, kept_shape), dtype=np.int64).T
                if kept_shape
                else np.zeros((where.size, 0), np.int64)
            )
            if keep_dims:
                full = np.zeros((where.size, shape.shape[0]), dtype=np.int64)
                full[:, kept] = positions
                positions = full
            return (positions.reshape(where.size, -1), reduced[where], _int64(out_shape))

        return compute

    return factory


kernel("SparseReduceSum", devices=CPU_ONLY)(_reduce_kernel("sum", False))
kernel("SparseReduceSumSparse", devices=CPU_ONLY)(_reduce_kernel("sum", True))
kernel("SparseReduceMax", devices=CPU_ONLY)(_reduce_kernel("max", False))
kernel("SparseReduceMaxSparse", devices=CPU_ONLY)(_reduce_kernel("max", True))


@kernel("SparseTensorDenseAdd", devices=CPU_ONLY)
def sparse_tensor_dense_add(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ind, vals, shape = _sparse(ins)
        b = np.asarray(ins[3])
        if tuple(int(d) for d in shape) != b.shape:
            raise invalid(
                "Dimension mismatch: expected shapes of a and b to be identical, got "
                f"{_idx_str(shape)} and {shape_str(b.shape)}"
            )
        out = b.copy()
        if ind.shape[0]:
            np.add.at(out, tuple(ind.T), vals.astype(b.dtype))
        return (out,)

    return compute


# ---- sparse results ---------------------------------------------------------------------------
@kernel("SparseReorder", devices=CPU_ONLY)
def sparse_reorder(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ind, vals, _ = _sparse(ins)
        order = _lex_order(ind)
        return (ind[order], vals[order])

    return compute


@kernel("SparseReshape", devices=CPU_ONLY)
def sparse_reshape(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ind = _indices(ins[0], "indices")
        in_shape = _vector(ins[1], "input_shape")
        target = _vector(ins[2], "new_shape")
        dense_size = int(np.prod(in_shape, dtype=np.int64))
        unknown = [i for i, d in enumerate(target.tolist()) if d == -1]
        if len(unknown) > 1:
            raise invalid(
                f"only one output dimension may be -1, not both {unknown[0]} and {unknown[1]}"
            )
        out = target.copy()
        product = int(np.prod([d for d in target.tolist() if d != -1], dtype=np.int64))
        if unknown:
            if product == 0 or dense_size % product:
                raise invalid(
                    f"Input to reshape is a SparseTensor with {dense_size} dense values, but the "
                    f"requested shape requires a multiple of {product}"
                )
            out[unknown[0]] = dense_size // product
        elif product != dense_size:
            raise invalid(
                f"Input to reshape is a tensor with {dense_size} dense values, but the requested "
                f"shape has {product}"
            )
        if ind.shape[0] == 0:
            return (np.zeros((0, out.shape[0]), dtype=np.int64), out)
        flat = _keys(ind, in_shape.tolist())
        new = np.array(np.unravel_index(flat, tuple(int(d) for d in out)), dtype=np.int64).T
        return (new.reshape(ind.shape[0], out.shape[0]), out)

    return compute


@kernel("SparseSlice", devices=CPU_ONLY)
def sparse_slice(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ind, vals, shape = _sparse(ins)
        start = _vector(ins[3], "start")
        size = _vector(ins[4], "size")
        if start.shape[0] != shape.shape[0] or size.shape[0] != shape.shape[0]:
            raise invalid(
                f"Expected start and size to have {shape.shape[0]} elements, got "
                f"{start.shape[0]} and {size.shape[0]}"
            )
        mask = np.all((ind >= start) & (ind < start + size), axis=1)
        out_shape = np.maximum(0, np.minimum(start + size, shape) - start)
        return (ind[mask] - start, vals[mask], out_shape.astype(np.int64))

    return compute


@kernel("SparseSliceGrad", devices=CPU_ONLY)
def sparse_slice_grad(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        grad = np.asarray(ins[0])
        ind = _indices(ins[1], "input_indices")
        start = _vector(ins[2], "input_start")
        out_ind = _indices(ins[3], "output_indices")
        in_keys = [tuple(r) for r in (ind - start).tolist()]
        position = {tuple(r): k for k, r in enumerate(out_ind.tolist())}
        val_grad = np.zeros(ind.shape[0], dtype=grad.dtype)
        for i, key in enumerate(in_keys):
            k = position.get(key)
            if k is not None:
                val_grad[i] = grad[k]
        return (val_grad,)

    return compute


@kernel("SparseConcat", devices=CPU_ONLY)
def sparse_concat(node: Any, xp: Any) -> Any:
    n = int(node.attrs["N"])
    concat_dim = int(node.attrs["concat_dim"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        inds = [_indices(v) for v in ins[:n]]
        vals = [np.asarray(v) for v in ins[n : 2 * n]]
        shapes = [_vector(v, "shapes") for v in ins[2 * n :]]
        rank = shapes[0].shape[0]
        dim = concat_dim + rank if concat_dim < 0 else concat_dim
        if not 0 <= dim < rank:
            raise invalid(f"Concat dimension must be in range [{-rank}, {rank}), got {concat_dim}")
        for i, s in enumerate(shapes[1:], 1):
            if s.shape[0] != rank:
                raise invalid(
                    f"Ranks of all input tensors must match: expected {rank} but got "
                    f"{s.shape[0]} at position {i}"
                )
            for d in range(rank):
                if d != dim and s[d] != shapes[0][d]:
                    raise invalid(
                        f"Input shapes must match: expected {int(shapes[0][d])} for dimension "
                        f"{d} but got {int(s[d])} at position {i}"
                    )
        offsets = np.cumsum([0] + [int(s[dim]) for s in shapes[:-1]])
        moved = []
        for ind, off in zip(inds, offsets):
            m = ind.copy()
            m[:, dim] += off
            moved.append(m)
        all_ind = np.concatenate(moved) if moved else np.zeros((0, rank), np.int64)
        all_vals = np.concatenate(vals)
        out_shape = shapes[0].copy()
        out_shape[dim] = sum(int(s[dim]) for s in shapes)
        order = _lex_order(all_ind)  # the output is in row-major order, as TF's
        return (all_ind[order], all_vals[order], out_shape)

    return compute


@kernel("SparseSplit", devices=CPU_ONLY)
def sparse_split(node: Any, xp: Any) -> Any:
    num = int(node.attrs["num_split"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        split_dim = int(np.asarray(ins[0]))
        ind, vals, shape = _sparse(ins, 1)
        rank = shape.shape[0]
        if not -rank <= split_dim < rank:
            raise invalid(f"Input split_dim should be between {-rank} and {rank}, got {split_dim}")
        dim = split_dim % rank
        size = int(shape[dim])
        if num > size and num > 0:
            raise invalid(f"Input num_split should be <= dimension size ({num} vs. {size})")
        base, extra = divmod(size, num)
        sizes = [base + (1 if i < extra else 0) for i in range(num)]
        starts = np.cumsum([0, *sizes[:-1]])
        outs_i, outs_v, outs_s = [], [], []
        for start, length in zip(starts, sizes):
            mask = (ind[:, dim] >= start) & (ind[:, dim] < start + length)
            part = ind[mask].copy()
            part[:, dim] -= start
            s = shape.copy()
            s[dim] = length
            outs_i.append(part)
            outs_v.append(vals[mask])
            outs_s.append(s)
        return (*outs_i, *outs_v, *outs_s)

    return compute


def _merge_sorted(
    a_ind: np.ndarray,
    a_vals: np.ndarray,
    b_ind: np.ndarray,
    b_vals: np.ndarray,
    shape: list[int],
    thresh: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """TF's SparseAdd merge: both walked in order; equal indices summed and dropped when
    |sum| < thresh. Vectorised when both inputs are sorted, as TF's callers keep them."""
    if not (_is_sorted(a_ind) and _is_sorted(b_ind)):
        return _merge_walk(a_ind, a_vals, b_ind, b_vals, thresh)
    ka, kb = _keys(a_ind, shape), _keys(b_ind, shape)
    keys = np.concatenate([ka, kb])
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    inds = np.concatenate([a_ind, b_ind])[order]
    vals = np.concatenate([a_vals, b_vals])[order]
    from_a = np.concatenate([np.ones(ka.size, bool), np.zeros(kb.size, bool)])[order]
    dup = np.zeros(keys.size, dtype=bool)
    if keys.size > 1:
        dup[1:] = (keys[1:] == keys[:-1]) & from_a[:-1] & ~from_a[1:]
    first_of_pair = np.zeros(keys.size, dtype=bool)
    first_of_pair[:-1] = dup[1:]
    summed = vals.copy()
    summed[first_of_pair] = vals[first_of_pair] + vals[1:][dup[1:]]
    keep = ~dup
    drop = first_of_pair & (np.abs(summed) < thresh)
    keep &= ~drop
    return inds[keep], summed[keep]


def _merge_walk(
    a_ind: np.ndarray, a_vals: np.ndarray, b_ind: np.ndarray, b_vals: np.ndarray, thresh: Any
) -> tuple[np.ndarray, np.ndarray]:
    out_i: list[Any] = []
    out_v: list[Any] = []
    i = j = 0
    a_rows, b_rows = a_ind.tolist(), b_ind.tolist()
    while i < len(a_rows) and j < len(b_rows):
        if a_rows[i] < b_rows[j]:
            out_i.append(a_rows[i])
            out_v.append(a_vals[i])
            i += 1
        elif a_rows[i] > b_rows[j]:
            out_i.append(b_rows[j])
            out_v.append(b_vals[j])
            j += 1
        else:
            s = a_vals[i] + b_vals[j]
            if abs(s) >= thresh:
                out_i.append(a_rows[i])
                out_v.append(s)
            i += 1
            j += 1
    out_i += a_rows[i:] + b_rows[j:]
    out_v += list(a_vals[i:]) + list(b_vals[j:])
    rank = a_ind.shape[1]
    return (
        np.array(out_i, dtype=np.int64).reshape(-1, rank),
        np.array(out_v, dtype=a_vals.dtype).reshape(-1),
    )


@kernel("SparseAdd", devices=CPU_ONLY)
def sparse_add(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        a_ind, a_vals, a_shape = _sparse(ins, 0)
        b_ind, b_vals, b_shape = _sparse(ins, 3)
        thresh = np.asarray(ins[6])
        if a_shape.shape[0] != b_shape.shape[0]:
            raise invalid(
                f"Operands do not have the same ranks; got ranks: {a_shape.shape[0]} and "
                f"{b_shape.shape[0]}"
            )
        for d in range(a_shape.shape[0]):
            if a_shape[d] != b_shape[d]:
                raise invalid(
                    f"Operands' shapes do not match: got {int(a_shape[d])} and {int(b_shape[d])} "
                    f"for dimension {d}"
                )
        ind, vals = _merge_sorted(a_ind, a_vals, b_ind, b_vals, a_shape.tolist(), thresh)
        return (ind, vals.astype(a_vals.dtype, copy=False), a_shape)

    return compute


@kernel("SparseAddGrad", devices=CPU_ONLY)
def sparse_add_grad(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        grad = np.asarray(ins[0])
        a_ind, b_ind, sum_ind = (_indices(v) for v in ins[1:4])
        position = {tuple(r): k for k, r in enumerate(sum_ind.tolist())}

        def pick(ind: np.ndarray) -> np.ndarray:
            out = np.zeros(ind.shape[0], dtype=grad.dtype)
            for i, r in enumerate(ind.tolist()):
                k = position.get(tuple(r))
                if k is not None:
                    out[i] = grad[k]
            return out

        return (pick(a_ind), pick(b_ind))

    return compute


@kernel("SparseFillEmptyRows", devices=CPU_ONLY)
def sparse_fill_empty_rows(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ind, vals, shape = _sparse(ins)
        default = np.asarray(ins[3])
        if default.ndim != 0:
            raise invalid(f"default_value must be a scalar, saw: {shape_str(default.shape)}")
        if shape.shape[0] == 0:
            raise invalid("dense_shape must not be empty")
        rows = int(shape[0])
        n = ind.shape[0]
        if n and np.any((ind[:, 0] < 0) | (ind[:, 0] >= rows)):
            i = int(np.flatnonzero((ind[:, 0] < 0) | (ind[:, 0] >= rows))[0])
            raise invalid(f"indices({i}, 0) is invalid: {int(ind[i, 0])} >= {rows}")
        counts = np.bincount(ind[:, 0], minlength=rows) if n else np.zeros(rows, np.int64)
        empty = counts == 0
        empty_rows = np.flatnonzero(empty)
        fill_ind = np.zeros((empty_rows.size, ind.shape[1]), dtype=np.int64)
        fill_ind[:, 0] = empty_rows
        all_ind = np.concatenate([ind, fill_ind])
        all_vals = np.concatenate([vals, np.full(empty_rows.size, default, dtype=vals.dtype)])
        # Rows in order; within a row the input's order (the filled ones alone in theirs).
        order = np.argsort(all_ind[:, 0], kind="stable")
        reverse = np.empty(order.size, dtype=np.int64)
        reverse[order] = np.arange(order.size)
        return (all_ind[order], all_vals[order], empty, reverse[:n])

    return compute


@kernel("SparseFillEmptyRowsGrad", devices=CPU_ONLY)
def sparse_fill_empty_rows_grad(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        reverse = _vector(ins[0], "reverse_index_map")
        grad = np.asarray(ins[1])
        d_values = grad[reverse]
        used = np.zeros(grad.shape[0], dtype=bool)
        used[reverse] = True
        return (d_values, grad[~used].sum(dtype=grad.dtype))

    return compute


@kernel("SparseSoftmax", devices=CPU_ONLY)
def sparse_softmax(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ind, vals, shape = _sparse(ins)
        if shape.shape[0] < 2:
            raise invalid(f"Input should have rank >= 2, got: {shape.shape[0]}")
        group = _keys(ind[:, :-1], shape[:-1].tolist())
        size = int(np.prod(shape[:-1], dtype=np.int64))
        peak = np.full(size, -np.inf, dtype=vals.dtype)
        np.maximum.at(peak, group, vals)
        e = np.exp(vals - peak[group])
        total = np.zeros(size, dtype=vals.dtype)
        np.add.at(total, group, e)
        return ((e / total[group]).astype(vals.dtype),)

    return compute


@kernel("SparseSparseMaximum", devices=CPU_ONLY)
@kernel("SparseSparseMinimum", devices=CPU_ONLY)
def sparse_sparse_extremum(node: Any, xp: Any) -> Any:
    pick = np.maximum if node.op == "SparseSparseMaximum" else np.minimum

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        a_ind, a_vals, a_shape = _sparse(ins, 0)
        b_ind, b_vals, b_shape = _sparse(ins, 3)
        if a_shape.tolist() != b_shape.tolist():
            raise invalid(
                f"Operands' shapes do not match: got {_idx_str(a_shape)} and {_idx_str(b_shape)}"
            )
        shape = a_shape.tolist()
        ka, kb = _keys(a_ind, shape), _keys(b_ind, shape)
        keys = np.union1d(ka, kb)
        dense_a = np.zeros(keys.size, dtype=a_vals.dtype)
        dense_b = np.zeros(keys.size, dtype=a_vals.dtype)
        dense_a[np.searchsorted(keys, ka)] = a_vals
        dense_b[np.searchsorted(keys, kb)] = b_vals
        ind = np.array(np.unravel_index(keys, shape), dtype=np.int64).T.reshape(
            keys.size, len(shape)
        )
        return (ind, pick(dense_a, dense_b))

    return compute


# ---- strings into sparse tensors ---------------------------------------------------------------
def _split_rows(rows: list[list[bytes]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_tokens = [len(r) for r in rows]
    total = sum(n_tokens)
    ind = np.zeros((total, 2), dtype=np.int64)
    ind[:, 0] = np.repeat(np.arange(len(rows), dtype=np.int64), n_tokens)
    ind[:, 1] = np.concatenate([np.arange(k, dtype=np.int64) for k in n_tokens]) if total else []
    vals = np.empty(total, dtype=object)
    vals[:] = [t for r in rows for t in r]
    shape = np.array([len(rows), max(n_tokens, default=0)], dtype=np.int64)
    return ind, vals, shape


def _as_bytes(v: Any) -> bytes:
    return v if isinstance(v, bytes) else str(v).encode()


@kernel("StringSplit", devices=CPU_ONLY)
def string_split(node: Any, xp: Any) -> Any:
    skip_empty = bool(node.attrs.get("skip_empty", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        source = host_array(ins[0])
        if source.ndim != 1:
            raise invalid(f"input must be a vector, got shape: {shape_str(source.shape)}")
        delim = _as_bytes(np.asarray(ins[1], dtype=object)[()])
        rows = []
        for s in source.tolist():
            text = _as_bytes(s)
            if not delim:
                tokens = [bytes([c]) for c in text]
            else:
                tokens = _split_on_any(text, delim)
                if skip_empty:
                    tokens = [t for t in tokens if t]
            rows.append(tokens)
        return _split_rows(rows)

    return compute


def _split_on_any(text: bytes, delims: bytes) -> list[bytes]:
    """Splits on every byte of `delims` (TF's StringSplit delimiter is a set of bytes)."""
    for d in delims[1:]:
        text = text.replace(bytes([d]), delims[:1])
    return text.split(delims[:1])


@kernel("StringSplitV2", devices=CPU_ONLY)
def string_split_v2(node: Any, xp: Any) -> Any:
    maxsplit = int(node.attrs.get("maxsplit", -1))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        source = host_array(ins[0])
        if source.ndim != 1:
            raise invalid(f"input must be a vector, got shape: {shape_str(source.shape)}")
        sep = _as_bytes(np.asarray(ins[1], dtype=object)[()])
        rows = []
        for s in source.tolist():
            text = _as_bytes(s)
            if sep:
                rows.append(text.split(sep, maxsplit))
            else:
                rows.append(text.split(None, maxsplit))
        return _split_rows(rows)

    return compute
