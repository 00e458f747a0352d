"""Kernels of the ragged ops: RaggedRange, RaggedGather, RaggedTensorToSparse, UnicodeDecode
and UnicodeDecodeWithOffsets. Row-split arithmetic is host index work (TF runs these on the CPU
only); it is vectorised with numpy, but for float ranges, which add delta row by row exactly
as TF's kernel does, and string decoding, which goes through Python's codecs."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.kernels.common import host_array, invalid, shape_str
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.unicode_ops import python_codec


def _np_dtype(dtype: Any) -> Any:
    return dtypes.as_dtype(dtype).as_numpy_dtype


def _broadcast_rows(args: list[np.ndarray]) -> int:
    nrows = 1
    seen: int | None = None
    for name, a in zip(("starts", "limits", "deltas"), args):
        if a.ndim > 1:
            raise invalid(f"{name} must be a scalar or vector")
        if a.ndim == 1:
            if seen is not None and a.shape[0] != seen:
                raise invalid("starts, limits, and deltas must have the same shape")
            seen = nrows = a.shape[0]
    return nrows


@kernel("RaggedRange", devices=CPU_ONLY)
def ragged_range(node: Any, xp: Any) -> Any:
    splits_dtype = _np_dtype(node.attrs.get("Tsplits", dtypes.int64))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        args = [host_array(x) for x in ins]
        nrows = _broadcast_rows(args)
        starts, limits, deltas = (np.broadcast_to(a, (nrows,)) for a in args)
        if np.any(deltas == 0):
            raise invalid("Requires delta != 0")
        if starts.dtype.kind in "iu":
            span = np.where(deltas > 0, limits - starts, starts - limits).astype(np.int64)
            step = np.abs(deltas).astype(np.int64)
            sizes = np.where(span > 0, (span + step - 1) // step, 0)
        else:
            sizes = np.maximum(np.ceil((limits - starts) / deltas), 0).astype(np.int64)
        splits = np.zeros(nrows + 1, dtype=splits_dtype)
        np.cumsum(sizes, out=splits[1:])
        total = int(splits[-1])
        if starts.dtype.kind in "iu":
            rows = np.repeat(np.arange(nrows), sizes)
            offsets = np.arange(total, dtype=np.int64) - splits[:-1].astype(np.int64)[rows]
            values = (starts[rows] + offsets * deltas[rows]).astype(starts.dtype)
        else:
            # TF's kernel adds delta to a running value: accumulate, row by row.
            values = np.empty(total, dtype=starts.dtype)
            for r in np.flatnonzero(sizes):
                steps = np.full(int(sizes[r]), deltas[r], dtype=starts.dtype)
                steps[0] = starts[r]
                values[splits[r] : splits[r + 1]] = np.add.accumulate(steps, dtype=starts.dtype)
        return splits, values

    return compute


def _check_splits(splits: np.ndarray, size: int, level: int) -> None:
    if splits.ndim != 1 or splits.shape[0] == 0:
        raise invalid("ragged splits may not be empty.")
    if splits[0] != 0:
        raise invalid(f"First value of ragged splits must be 0, got {splits[0]} (level {level}).")
    if np.any(np.diff(splits) < 0):
        raise invalid("Ragged splits should be non-decreasing.")
    if splits[-1] != size:
        raise invalid(
            f"Final value of ragged splits must match the length the corresponding values: "
            f"{splits[-1]} vs {size} (level {level})."
        )


@kernel("RaggedTensorToSparse", devices=CPU_ONLY)
def ragged_tensor_to_sparse(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        nested = [host_array(s).astype(np.int64) for s in ins[:-1]]
        values = host_array(ins[-1])
        if values.ndim == 0:
            raise invalid(f"rt_dense_values must have rank >= 1, got {shape_str(values.shape)}")
        sizes = [s.shape[0] - 1 if s.ndim == 1 else 0 for s in nested[1:]] + [values.shape[0]]
        for level, (splits, size) in enumerate(zip(nested, sizes)):
            _check_splits(splits, size, level)
        # Walk from the values outwards: each position's column within its row, then its row.
        pos = np.arange(values.shape[0], dtype=np.int64)
        columns = []
        for splits in reversed(nested):
            rows = np.repeat(np.arange(splits.shape[0] - 1, dtype=np.int64), np.diff(splits))
            owner = rows[pos]
            columns.append(pos - splits[owner])
            pos = owner
        ragged_cols = [pos, *reversed(columns)]
        inner = values.shape[1:]
        n_inner = int(np.prod(inner)) if inner else 1
        parts = [np.repeat(c, n_inner) for c in ragged_cols]
        if inner:
            grid = np.indices(inner).reshape(len(inner), -1)
            parts.extend(np.tile(g.astype(np.int64), values.shape[0]) for g in grid)
        indices = np.stack(parts, axis=1) if parts else np.zeros((0, 1), np.int64)
        dense_shape = [nested[0].shape[0] - 1]
        for splits in nested:
            lengths = np.diff(splits)
            dense_shape.append(int(lengths.max()) if lengths.size else 0)
        dense_shape.extend(inner)
        return indices, values.reshape(-1), np.asarray(dense_shape, dtype=np.int64)

    return compute


def _row_ranges(starts: np.ndarray, limits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The splits of rows [starts[i], limits[i]) laid end to end, and their positions."""
    lengths = limits - starts
    splits = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=splits[1:])
    positions = np.arange(int(splits[-1]), dtype=np.int64) + np.repeat(
        starts - splits[:-1], lengths
    )
    return splits, positions


@kernel("RaggedGather", devices=CPU_ONLY)
def ragged_gather(node: Any, xp: Any) -> Any:
    params_rank = int(node.attrs["PARAMS_RAGGED_RANK"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        nested = [host_array(s) for s in ins[:params_rank]]
        values = host_array(ins[params_rank])
        indices = host_array(ins[params_rank + 1]).astype(np.int64)
        splits_dtype = nested[0].dtype
        nrows = nested[0].shape[0] - 1
        bad = (indices < 0) | (indices >= nrows)
        if np.any(bad):
            i = int(np.flatnonzero(bad.reshape(-1))[0])
            raise invalid(f"indices[{i}] = {indices.reshape(-1)[i]} is not in [0, {nrows})")
        # Leading uniform levels for indices of rank > 1, then each ragged level's rows.
        out_splits = []
        dims = indices.shape
        for d in range(len(dims) - 1):
            count = int(np.prod(dims[: d + 1]))
            out_splits.append(np.arange(count + 1, dtype=splits_dtype) * dims[d + 1])
        rows = indices.reshape(-1)
        for splits in nested:
            splits = splits.astype(np.int64)
            new_splits, rows = _row_ranges(splits[rows], splits[rows + 1])
            out_splits.append(new_splits.astype(splits_dtype))
        return (*out_splits, values[rows])

    return compute


def _char_widths(text: str, codec: str) -> list[int]:
    if codec == "utf-8":
        return [len(c.encode("utf-8", "surrogatepass")) for c in text]
    if codec.startswith("utf-16"):
        return [4 if ord(c) > 0xFFFF else 2 for c in text]
    if codec.startswith("utf-32"):
        return [4] * len(text)
    return [1] * len(text)


def _decode(
    value: bytes, codec: str, errors: str, replacement: int, controls: bool
) -> tuple[list[int], list[int]]:
    """The code points of value and the byte offset where each starts."""
    points: list[int] = []
    starts: list[int] = []
    pos = 0
    while pos <= len(value):
        rest = value[pos:]
        try:
            text = rest.decode(codec)
            bad = None
        except UnicodeDecodeError as e:
            text = rest[: e.start].decode(codec)
            bad = (e.start, e.end)
        offset = pos
        for c, width in zip(text, _char_widths(text, codec)):
            points.append(ord(c))
            starts.append(offset)
            offset += width
        if bad is None:
            break
        if errors == "strict":
            raise invalid(f"Invalid formatting on input string: {value!r}")
        if errors == "replace":
            points.append(replacement)
            starts.append(pos + bad[0])
        pos += bad[1]
    if controls:
        points = [replacement if p < 0x20 else p for p in points]
    return points, starts


def _decode_valid_utf8(strings: list[bytes]) -> tuple[np.ndarray, ...] | None:
    """All strings at once when every one is valid UTF-8 (the common case): the code points
    from one decode of the joined bytes, rows and byte offsets from the lead bytes. None
    when some string is not valid UTF-8 on its own."""
    joined = b"".join(strings)
    try:
        text = joined.decode("utf-8")
    except UnicodeDecodeError:
        return None
    raw = np.frombuffer(joined, dtype=np.uint8)
    byte_lengths = np.fromiter((len(v) for v in strings), dtype=np.int64, count=len(strings))
    byte_starts = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum(byte_lengths, out=byte_starts[1:])
    lead = (raw & 0xC0) != 0x80
    # A string starting inside a character (joined, the bytes of two strings made one).
    firsts = byte_starts[:-1][byte_lengths > 0]
    if not np.all(lead[firsts]):
        return None
    points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int32)
    lead_count = np.zeros(raw.shape[0] + 1, dtype=np.int64)
    np.cumsum(lead, out=lead_count[1:])
    char_splits = lead_count[byte_starts]
    lead_positions = np.flatnonzero(lead)
    rows = np.repeat(np.arange(len(strings)), np.diff(char_splits))
    offsets = lead_positions - byte_starts[rows]
    return char_splits, points, offsets


def _unicode_decode(node: Any, with_offsets: bool) -> Any:
    encoding = node.attrs["input_encoding"]
    encoding = encoding.decode() if isinstance(encoding, bytes) else str(encoding)
    codec = python_codec(encoding, "input")
    errors = node.attrs.get("errors", "replace")
    errors = errors.decode() if isinstance(errors, bytes) else str(errors)
    replacement = int(node.attrs.get("replacement_char", 0xFFFD))
    controls = bool(node.attrs.get("replace_control_characters", False))
    splits_dtype = _np_dtype(node.attrs.get("Tsplits", dtypes.int64))
    if errors not in ("strict", "replace", "ignore"):
        raise invalid(f"errors must be one of strict, replace, ignore, got {errors}")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        source = host_array(ins[0]).reshape(-1)
        strings = [v if isinstance(v, bytes) else bytes(v) for v in source.tolist()]
        fast = _decode_valid_utf8(strings) if codec == "utf-8" else None
        if fast is not None:
            char_splits, codepoints, offsets = fast
            if controls:
                codepoints = np.where(codepoints < 0x20, replacement, codepoints).astype(np.int32)
            out_fast = (char_splits.astype(splits_dtype), codepoints)
            return (*out_fast, offsets) if with_offsets else out_fast
        points: list[int] = []
        starts: list[int] = []
        splits = np.zeros(source.shape[0] + 1, dtype=splits_dtype)
        for i, v in enumerate(strings):
            p, s = _decode(v, codec, errors, replacement, controls)
            points.extend(p)
            starts.extend(s)
            splits[i + 1] = splits[i] + len(p)
        out = (splits, np.asarray(points, dtype=np.int32))
        return (*out, np.asarray(starts, dtype=np.int64)) if with_offsets else out

    return compute


@kernel("UnicodeDecode", devices=CPU_ONLY)
def unicode_decode(node: Any, xp: Any) -> Any:
    return _unicode_decode(node, with_offsets=False)


@kernel("UnicodeDecodeWithOffsets", devices=CPU_ONLY)
def unicode_decode_with_offsets(node: Any, xp: Any) -> Any:
    return _unicode_decode(node, with_offsets=True)
