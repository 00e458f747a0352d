"""TF's summary writer resources (summary_kernels.cc): SummaryWriter names a writer in its
task's ResourceMgr, CreateSummaryFileWriter opens its event file (events.out.tfevents.*,
TensorBoard's format, through tensorboardX's EventsWriter) or CreateSummaryDbWriter its SQLite
database (kernels/summary_db.py), the Write* ops append one event each at a step,
FlushSummaryWriter / CloseSummaryWriter flush and close it. ImportEvent appends serialized
Events as they are."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import numpy as np
from tensorboardX.event_file_writer import EventsWriter

from tfcluster.framework import errors
from tfcluster.framework.event_files import open_events_file
from tfcluster.kernels.common import host_array, invalid, scalar_int
from tfcluster.kernels.image_summary import audio_summary_proto, image_summary_proto
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import ResourceName
from tfcluster.kernels.summary import histogram_proto, tensor_summary
from tfcluster.kernels.summary_db import SummaryDb
from tfcluster.protos import event_pb2, summary_pb2


def _text(value: Any) -> str:
    v = np.asarray(value)
    if v.ndim != 0:
        raise invalid(f"Expected a scalar string, got shape {list(v.shape)}")
    item = v.item()
    return item.decode() if isinstance(item, bytes) else str(item)


class SummaryWriterResource:
    """One event file (writes flushed every max_queue events or flush_millis), or one
    summary database."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._writer: EventsWriter | None = None
        self.db: SummaryDb | None = None
        self._max_queue = 10
        self._flush_secs = 120.0
        self._pending = 0
        self._last_flush = time.monotonic()

    def open_db(self, uri: str, experiment: str, run: str, user: str) -> None:
        with self._lock:
            if self._writer is None and self.db is None:  # TF keeps the writer it made first
                self.db = SummaryDb(uri, experiment, run, user)

    def open(self, logdir: str, max_queue: int, flush_millis: int, suffix: str) -> None:
        with self._lock:
            if self._writer is not None or self.db is not None:
                return  # TF keeps the writer it made first
            os.makedirs(logdir, exist_ok=True)
            self._writer = open_events_file(logdir, suffix)
            self._max_queue = max_queue
            self._flush_secs = flush_millis / 1000.0

    def write(self, event: event_pb2.Event) -> None:
        if self.db is not None:
            self.db.write_event(event)
            return
        with self._lock:
            if self._writer is None:
                raise errors.FailedPreconditionError(
                    None, None, f"Summary writer {self.name} has no file: run its initializer"
                )
            if not event.wall_time:
                event.wall_time = time.time()
            self._writer.write_event(event)
            self._pending += 1
            now = time.monotonic()
            if self._pending >= self._max_queue or now - self._last_flush >= self._flush_secs:
                self._flush_locked()

    def _flush_locked(self) -> None:
        if self._writer is not None:
            self._writer.flush()
        self._pending = 0
        self._last_flush = time.monotonic()

    def flush(self) -> None:
        if self.db is not None:
            self.db.flush()
        with self._lock:
            self._flush_locked()

    def close(self, cancel_pending_enqueues: bool = False) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
        with self._lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None


def writer_of(value: Any, node_name: str) -> SummaryWriterResource:
    """The summary writer a resource input names (InvalidArgumentError for anything else)."""
    return _writer(value, node_name)


def _writer(value: Any, node_name: str) -> SummaryWriterResource:
    if not isinstance(value, SummaryWriterResource):
        raise invalid(f"{node_name}: input 0 is not a summary writer ({type(value).__name__})")
    return value


@kernel("SummaryWriter", devices=CPU_ONLY)
def summary_writer(node: Any, xp: Any) -> Any:
    where = ResourceName(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        name = where.resolve(ctx.resources)
        w = ctx.resources.lookup_or_create(
            where.container, name, lambda: SummaryWriterResource(name)
        )
        return (_writer(w, node.name),)

    return compute


@kernel("CreateSummaryDbWriter", devices=CPU_ONLY)
def create_summary_db_writer(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _writer(ins[0], node.name).open_db(*(_text(v) for v in ins[1:5]))
        return ()

    return compute


@kernel("CreateSummaryFileWriter", devices=CPU_ONLY)
def create_summary_file_writer(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _writer(ins[0], node.name).open(
            _text(ins[1]),
            scalar_int(ins[2], "max_queue"),
            scalar_int(ins[3], "flush_millis"),
            _text(ins[4]),
        )
        return ()

    return compute


def _event(step: Any, **fields: Any) -> event_pb2.Event:
    return event_pb2.Event(step=scalar_int(step, "step"), wall_time=time.time(), **fields)


def _summary_writer_kernel(op: str, build: Any) -> None:
    """A Write* op: `build(node, ins)` gives the Summary written at step ins[1]."""

    def factory(node: Any, xp: Any) -> Any:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            w = _writer(ins[0], node.name)
            db = w.db
            if db is not None and op == "WriteScalarSummary":  # the database keeps its dtype
                value = np.asarray(host_array(ins[3]))
                if value.ndim != 0:
                    raise invalid(f"value must be a scalar, got shape {list(value.shape)}")
                step = scalar_int(ins[1], "step")
                db.write_tensor(step, time.time(), _text(ins[2]), value, plugin="scalars")
                return ()
            w.write(_event(ins[1], summary=build(node, ins)))
            return ()

        return compute

    kernel(op, devices=CPU_ONLY)(factory)


def _scalar(node: Any, ins: list[Any]) -> summary_pb2.Summary:
    value = np.asarray(host_array(ins[3]))
    if value.ndim != 0:
        raise invalid(f"value must be a scalar, got shape {list(value.shape)}")
    s = summary_pb2.Summary()
    s.value.add(tag=_text(ins[2]), simple_value=float(value))
    return s


def _histogram(node: Any, ins: list[Any]) -> summary_pb2.Summary:
    s = summary_pb2.Summary()
    tag = _text(ins[2])
    s.value.add(tag=tag, histo=histogram_proto(host_array(ins[3]), tag))
    return s


def _image(node: Any, ins: list[Any]) -> summary_pb2.Summary:
    bad = np.asarray(host_array(ins[4]), dtype=np.uint8).reshape(-1)
    max_images = int(node.attrs.get("max_images", 3))
    return image_summary_proto(_text(ins[2]), host_array(ins[3]), max_images, bad)


def _audio(node: Any, ins: list[Any]) -> summary_pb2.Summary:
    rate = np.asarray(host_array(ins[4]))
    max_outputs = int(node.attrs.get("max_outputs", 3))
    return audio_summary_proto(_text(ins[2]), host_array(ins[3]), rate, max_outputs)


_summary_writer_kernel("WriteScalarSummary", _scalar)
_summary_writer_kernel("WriteHistogramSummary", _histogram)
_summary_writer_kernel("WriteImageSummary", _image)
_summary_writer_kernel("WriteAudioSummary", _audio)


@kernel("WriteSummary", devices=CPU_ONLY)
def write_summary(node: Any, xp: Any) -> Any:
    """A tensor summary: (writer, step, tensor, tag, summary_metadata)."""
    as_summary = tensor_summary(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        (serialized,) = as_summary(ctx, [ins[3], ins[2], ins[4]])
        summary = summary_pb2.Summary.FromString(np.asarray(serialized).item())
        _writer(ins[0], node.name).write(_event(ins[1], summary=summary))
        return ()

    return compute


def _each_bytes(value: Any) -> list[bytes]:
    return [v if isinstance(v, bytes) else str(v).encode() for v in np.asarray(value).reshape(-1)]


@kernel("WriteRawProtoSummary", devices=CPU_ONLY)
def write_raw_proto_summary(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        w = _writer(ins[0], node.name)
        merged = summary_pb2.Summary()
        for raw in _each_bytes(ins[2]):
            try:
                merged.MergeFromString(raw)
            except Exception:
                raise invalid("failed to parse a serialized Summary proto") from None
        w.write(_event(ins[1], summary=merged))
        return ()

    return compute


@kernel("WriteGraphSummary", devices=CPU_ONLY)
def write_graph_summary(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        (graph,) = _each_bytes(ins[2])
        _writer(ins[0], node.name).write(_event(ins[1], graph_def=graph))
        return ()

    return compute


@kernel("ImportEvent", devices=CPU_ONLY)
def import_event(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        w = _writer(ins[0], node.name)
        for raw in _each_bytes(ins[1]):
            try:
                event = event_pb2.Event.FromString(raw)
            except Exception:
                raise invalid("Could not parse an Event proto") from None
            w.write(event)
        return ()

    return compute


@kernel("FlushSummaryWriter", devices=CPU_ONLY)
def flush_summary_writer(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _writer(ins[0], node.name).flush()
        return ()

    return compute


@kernel("CloseSummaryWriter", devices=CPU_ONLY)
def close_summary_writer(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _writer(ins[0], node.name).close()
        return ()

    return compute
