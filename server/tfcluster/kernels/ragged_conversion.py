"""Kernels of RaggedTensorToTensor, RaggedTensorToVariant and RaggedTensorFromVariant (see
ops/ragged_conversion_ops.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.kernels.common import Compute, host_array, invalid, shape_str
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.ops.ragged_conversion_ops import partition_types


def _level(kind: str, partition: np.ndarray, parents: int) -> tuple[np.ndarray, np.ndarray]:
    """(parent, column) of each item one level down, from a ROW_SPLITS or VALUE_ROWIDS
    partition of `parents` rows."""
    partition = partition.astype(np.int64).reshape(-1)
    if kind == "ROW_SPLITS":
        if partition.size != parents + 1 or (partition.size and partition[0] != 0):
            raise invalid(f"Invalid row splits: {partition.tolist()[:10]}")
        lengths = np.diff(partition)
        if np.any(lengths < 0):
            raise invalid("Row splits must be non-decreasing")
        parent = np.repeat(np.arange(parents, dtype=np.int64), lengths)
        return parent, np.arange(parent.size, dtype=np.int64) - partition[parent]
    if np.any(np.diff(partition) < 0) or (partition.size and partition[0] < 0):
        raise invalid("value_rowids must be sorted and non-negative")
    if partition.size and partition[-1] >= parents:
        raise invalid(f"value_rowids names row {int(partition[-1])} of only {parents} rows")
    first = np.searchsorted(partition, partition, side="left")
    return partition, np.arange(partition.size, dtype=np.int64) - first


@kernel("RaggedTensorToTensor", devices=CPU_ONLY)
def ragged_tensor_to_tensor(node: Any, xp: Any) -> Compute:
    kinds = partition_types(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        shape = host_array(ins[0]).astype(np.int64)
        values = host_array(ins[1])
        default = host_array(ins[2])
        parts = [host_array(p) for p in ins[3:]]
        if values.ndim == 0:
            raise invalid("values must have rank >= 1")
        levels = list(zip(kinds, parts))
        if levels and levels[0][0] == "FIRST_DIM_SIZE":
            nrows = int(np.asarray(levels[0][1]).reshape(-1)[0])
            levels = levels[1:]
        elif levels and levels[0][0] == "ROW_SPLITS":
            nrows = int(np.asarray(levels[0][1]).size) - 1
        else:
            raise invalid("The first row partition must be FIRST_DIM_SIZE or ROW_SPLITS")
        if levels:
            kind, last = levels[-1]
            last = np.asarray(last).reshape(-1)
            implied = (int(last[-1]) if last.size else 0) if kind == "ROW_SPLITS" else last.size
            if implied != values.shape[0]:
                raise errors.InternalError(None, None, "Values and indices must be equal")
        parents, columns = [], []
        count = nrows
        for kind, partition in levels:
            parent, column = _level(kind, partition, count)
            parents.append(parent)
            columns.append(column)
            count = parent.size
        if count != values.shape[0]:
            raise errors.InternalError(None, None, "Values and indices must be equal")
        # Each value's index along every ragged dimension, walking out from the values.
        index = np.arange(values.shape[0], dtype=np.int64)
        coords: list[np.ndarray] = []
        for parent, column in zip(reversed(parents), reversed(columns)):
            coords.insert(0, column[index])
            index = parent[index]
        coords.insert(0, index)
        dims = [nrows] + [int(c.max()) + 1 if c.size else 0 for c in coords[1:]]
        inner = list(values.shape[1:])
        full = dims + inner
        if shape.ndim == 1:
            if shape.size != len(full):
                raise invalid(
                    f"The shape {shape.tolist()} must have rank {len(full)} (the ragged tensor's)"
                )
            for i, d in enumerate(shape.tolist()):
                if d >= 0:
                    if i >= len(dims) and d != full[i]:
                        raise invalid(
                            f"shape {shape.tolist()} does not match the values' inner shape {inner}"
                        )
                    full[i] = d
        try:
            fill = np.broadcast_to(default.astype(values.dtype, copy=False), inner)
        except ValueError:
            raise invalid(
                f"default_value of shape {shape_str(default.shape)} does not broadcast to "
                f"{shape_str(inner)}"
            ) from None
        out = np.empty(full, dtype=values.dtype)
        out[...] = fill
        keep = np.ones(values.shape[0], dtype=bool)
        for c, d in zip(coords, full):
            keep &= c < d
        out[tuple(c[keep] for c in coords)] = values[keep]
        return (xp.asarray(out) if values.dtype != object else out,)

    return compute


# ---- variants ------------------------------------------------------------------------------
class RaggedVariant:
    """One encoded ragged tensor: its nested row splits (outermost first) and flat values."""

    __slots__ = ("splits", "values")

    def __init__(self, splits: list[np.ndarray], values: np.ndarray) -> None:
        self.splits = splits
        self.values = values

    def __repr__(self) -> str:
        return f"<RaggedVariant ragged_rank={len(self.splits)} values={self.values.shape}>"


def _row(splits: list[np.ndarray], values: np.ndarray, i: int) -> RaggedVariant:
    """Row i of a ragged tensor, ragged rank one less."""
    start, end = int(splits[0][i]), int(splits[0][i + 1])
    sub = []
    for s in splits[1:]:
        piece = s[start : end + 1]
        sub.append(piece - piece[0])
        start, end = int(s[start]), int(s[end])
    return RaggedVariant(sub, values[start:end])


@kernel("RaggedTensorToVariant", devices=CPU_ONLY)
def ragged_tensor_to_variant(node: Any, xp: Any) -> Compute:
    batched = bool(node.attrs.get("batched_input", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        splits = [host_array(s).reshape(-1) for s in ins[:-1]]
        values = host_array(ins[-1])
        if not batched:
            out = np.empty((), dtype=object)
            out[()] = RaggedVariant(splits, values)
            return (out,)
        if not splits:
            raise invalid("ragged_rank must be greater than 0 for a batched input")
        rows = splits[0].size - 1
        out = np.empty((rows,), dtype=object)
        for i in range(rows):
            out[i] = _row(splits, values, i)
        return (out,)

    return compute


def _enum(np_dtype: np.dtype[Any]) -> int:
    return 7 if np_dtype.kind == "O" else dtypes.as_dtype(np_dtype).as_datatype_enum


@kernel("RaggedTensorFromVariant", devices=CPU_ONLY)
def ragged_tensor_from_variant(node: Any, xp: Any) -> Compute:
    input_rank = int(node.attrs["input_ragged_rank"])
    output_rank = int(node.attrs["output_ragged_rank"])
    want = node.attrs["Tvalues"]
    splits_dtype = np.dtype(node.attrs["Tsplits"].as_numpy_dtype)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        encoded = np.asarray(ins[0], dtype=object)
        batch_dims = encoded.ndim
        rank = output_rank - batch_dims if input_rank < 0 else input_rank
        if rank + batch_dims != output_rank or rank < 0:
            raise invalid(
                f"output_ragged_rank ({output_rank}) must be input_ragged_rank ({rank}) plus "
                f"the encoded tensor's rank ({batch_dims})"
            )
        parts = list(encoded.reshape(-1))
        for part in parts:
            if not isinstance(part, RaggedVariant):
                raise invalid(f"Input variant is not an encoded ragged tensor: {part!r}")
            if len(part.splits) != rank:
                raise invalid(
                    "Encoded input Variant must hold either input_ragged_rank + 1 Tensors or an "
                    f"empty Tensor (zero splits Tensors, 1 values Tensor), input_ragged_rank: "
                    f"{rank}, encoded input Variant holds {len(part.splits) + 1} Tensors"
                )
            got = np.asarray(part.values).dtype
            if got != np.dtype(want.as_numpy_dtype):
                raise invalid(
                    f"Expected values Tensor dtype: {want.as_datatype_enum}, found: {_enum(got)}"
                )
        if batch_dims == 0:
            part = parts[0]
            nested = [s.astype(splits_dtype) for s in part.splits]
            return (*nested, part.values)
        # Stack the components: one more level of splits, the inner ones offset.
        rows = [
            (p.splits[0].size - 1) if p.splits else np.asarray(p.values).shape[0] for p in parts
        ]
        stacked = [np.concatenate([[0], np.cumsum(rows)]).astype(np.int64)]
        for level in range(rank):
            pieces, offset = [np.zeros(1, np.int64)], 0
            for p in parts:
                s = p.splits[level].astype(np.int64)
                pieces.append(s[1:] + offset)
                offset += int(s[-1])
            stacked.append(np.concatenate(pieces))
        if parts:
            values = np.concatenate([np.asarray(p.values) for p in parts])
        else:
            values = np.zeros((0,), dtype=want.as_numpy_dtype)
        # Uniform splits for the encoded tensor's outer dimensions.
        outer = []
        shape = encoded.shape
        for k in range(batch_dims - 1):
            n = int(np.prod(shape[: k + 1]))
            outer.append(np.arange(n + 1, dtype=np.int64) * shape[k + 1])
        nested = [s.astype(splits_dtype) for s in (*outer, *stacked)]
        return (*nested, values)

    return compute
