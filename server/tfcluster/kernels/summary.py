"""Kernels of the summary ops: each returns a serialized `Summary` proto (a string scalar).

The Summary/HistogramProto classes are tfcluster.protos' copies of TF's summary.proto (its
field numbers, with tfcluster's TensorProto), so what these kernels write is exactly what
TensorBoard reads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.protos import summary_pb2, tensor_pb2, tensor_shape_pb2


def _string(serialized: bytes) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = serialized
    return out


def _as_str(x: Any) -> str:
    v = x.item() if isinstance(x, np.ndarray) else x
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def _default_bucket_limits() -> np.ndarray:
    """TensorFlow's histogram buckets: +-1e-12 growing by 10% up to 1e20, and 0 (histogram.cc)."""
    pos = []
    v = 1.0e-12
    while v < 1.0e20:
        pos.append(v)
        v *= 1.1
    pos.append(np.finfo(np.float64).max)
    neg = [-x for x in reversed(pos)]
    return np.array([*neg, 0.0, *pos])


_BUCKET_LIMITS = _default_bucket_limits()


def histogram_proto(values: np.ndarray, name: str = "") -> summary_pb2.HistogramProto:
    """min/max/num/sum/sum_squares and the non-empty buckets (runs of empty ones merged).
    The first value that is not finite fails as TF's kernel says it, naming `name` (the
    op's node name, or a summary writer's tag)."""
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if x.size and not np.all(np.isfinite(x)):
        bad = x[~np.isfinite(x)][0]
        what = "Nan" if np.isnan(bad) else "Infinity"
        raise errors.InvalidArgumentError(None, None, f"{what} in summary histogram for: {name}")
    h = summary_pb2.HistogramProto()
    if x.size == 0:
        return h
    h.min, h.max, h.num = float(x.min()), float(x.max()), float(x.size)
    # TF's Histogram::Add sums one value after another in double (cumsum's order too).
    h.sum, h.sum_squares = float(np.cumsum(x)[-1]), float(np.cumsum(x * x)[-1])
    # Bucket i counts values v with limits[i-1] <= v < limits[i] (upper_bound, as in TF).
    idx = np.searchsorted(_BUCKET_LIMITS, x, side="right")
    counts = np.bincount(idx, minlength=len(_BUCKET_LIMITS))[: len(_BUCKET_LIMITS)]
    # Every non-empty bucket, and each run of empty ones as one bucket ending where the run
    # ends (vectorised: the kept positions are the non-empty ones and the ends of empty runs).
    empty = counts == 0
    run_end = empty.copy()
    run_end[:-1] &= ~empty[1:]
    kept = np.flatnonzero(~empty | run_end)
    limits = _BUCKET_LIMITS[kept]
    buckets = counts[kept].astype(np.float64)
    # As TF's Histogram::EncodeToProto: the leading and trailing empty runs stay (the last
    # one ends at DBL_MAX), so the bytes are TF's.
    h.bucket_limit.extend(limits.tolist())
    h.bucket.extend(buckets.tolist())
    return h


def _tag_note(tags: np.ndarray) -> str:
    """TF names the tag when there is one."""
    return f" (tag '{_as_str(tags.item())}')" if tags.ndim == 0 else ""


@kernel("ScalarSummary", devices=CPU_ONLY)
def scalar_summary(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        tags, values = np.asarray(ins[0], dtype=object), np.asarray(ins[1])
        if tags.shape != values.shape:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"tags and values not the same shape: {list(tags.shape)} != "
                f"{list(values.shape)}{_tag_note(tags)}",
            )
        s = summary_pb2.Summary()
        for tag, value in zip(tags.reshape(-1), values.reshape(-1)):
            s.value.add(tag=_as_str(tag), simple_value=float(value))
        return (_string(s.SerializeToString()),)

    return compute


@kernel("HistogramSummary", devices=CPU_ONLY)
def histogram_summary(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        s = summary_pb2.Summary()
        s.value.add(tag=_as_str(ins[0]), histo=histogram_proto(ins[1], node.name))
        return (_string(s.SerializeToString()),)

    return compute


@kernel("TensorSummary", devices=CPU_ONLY)
def tensor_summary_v1(node: Any, xp: Any) -> Any:
    """The first TensorSummary: its value names the node (node_name, no tag or metadata, as
    TF 1.15's SummaryTensorOpV1 writes it)."""
    v2 = tensor_summary(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        (serialized,) = v2(ctx, ["", ins[0], b""])
        s = summary_pb2.Summary.FromString(np.asarray(serialized).item())
        value = s.value[0]
        value.ClearField("metadata")
        value.node_name = node.name
        return (_string(s.SerializeToString()),)

    return compute


@kernel("TensorSummaryV2", devices=CPU_ONLY)
def tensor_summary(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        arr = np.asarray(ins[1])
        shape = tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in arr.shape]
        )
        if arr.dtype == object or arr.dtype.kind in "SU":
            vals = [v if isinstance(v, bytes) else str(v).encode() for v in arr.reshape(-1)]
            tensor = tensor_pb2.TensorProto(dtype=7, tensor_shape=shape, string_val=vals)
        else:
            # Raw little-endian bytes, as TF's AsProtoTensorContent writes them.
            enum = dtypes.as_dtype(arr.dtype).as_datatype_enum
            content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
            tensor = tensor_pb2.TensorProto(dtype=enum, tensor_shape=shape, tensor_content=content)
        meta = summary_pb2.SummaryMetadata()
        if len(ins) > 2:
            try:
                meta.ParseFromString(_bytes_of(ins[2]))
            except Exception as e:
                raise errors.InvalidArgumentError(
                    None, None, f"Could not parse serialized_summary_metadata: {e}"
                ) from None
        else:  # the two-input form this project's text summaries had
            meta.plugin_data.plugin_name = "text"
        s = summary_pb2.Summary()
        s.value.add(tag=_as_str(ins[0]), metadata=meta, tensor=tensor)
        return (_string(s.SerializeToString()),)

    return compute


@kernel("MergeSummary", devices=CPU_ONLY)
def merge_summary(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        merged = summary_pb2.Summary()
        seen: set[str] = set()
        for raw in ins:
            part = summary_pb2.Summary()
            try:
                part.ParseFromString(_bytes_of(raw))
            except Exception as e:
                raise errors.InvalidArgumentError(
                    None, None, f"Could not parse one of the summary inputs: {e}"
                ) from None
            for v in part.value:
                if v.tag in seen:
                    raise errors.InvalidArgumentError(
                        None, None, f"Duplicate tag {v.tag} found in summary inputs"
                    )
                seen.add(v.tag)
                merged.value.add().CopyFrom(v)
        return (_string(merged.SerializeToString()),)

    return compute


def _bytes_of(x: Any) -> bytes:
    v = x.item() if isinstance(x, np.ndarray) else x
    if isinstance(v, str):
        return v.encode()
    if not isinstance(v, bytes):
        raise errors.InvalidArgumentError(None, None, f"Summary input is not a string: {v!r}")
    return v
