"""Readers (TFRecordReader, TextLineReader, FixedLengthRecordReader, WholeFileReader,
IdentityReader) kept in their task's ResourceMgr, and the kernels of the ops that use them.

A reader takes units of work (file names) from a queue of strings and produces records
from each in turn, as TF's ReaderBase: a read dequeues the next file only when the current
one is done, so a reader keeps its place across steps; a closed, empty queue ends the reading
with OutOfRangeError. Keys name where a record came from ("file:offset", "file:line", ...).
"""

from __future__ import annotations

import collections
import os
import threading
from typing import Any, BinaryIO

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.queues import QueueResource, queue_of
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import POLL_SECS, ResourceName
from tfcluster.lib.io import compression
from tfcluster.lib.io.file_match import match
from tfcluster.lib.io.os_errors import as_tf_error
from tfcluster.lib.io.tfrecord import RecordReader
from tfcluster.protos import reader_base_pb2

# A record: (key, value), both bytes.
Record = tuple[bytes, bytes]
_BUFFER = 1 << 18


def _path(work: bytes) -> str:
    return work.decode("utf-8", "surrogateescape")


def _open(work: bytes) -> BinaryIO:
    try:
        return open(_path(work), "rb", buffering=_BUFFER)
    except OSError as e:
        raise as_tf_error(e, _path(work)) from None


def _string(value: bytes) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def _strings(values: list[bytes]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


class ReaderResource:
    """The bookkeeping every reader shares; subclasses read the records of one unit."""

    kind = "ReaderBase"
    supports_serialize = False

    def __init__(self, name: str) -> None:
        self.name = name
        # Held for a whole read, the wait for the next unit included: one reader, one place.
        self._lock = threading.Lock()
        self.work = b""
        self.work_started = 0
        self.work_finished = 0
        self.num_records_produced = 0

    # ---- what each reader does -----------------------------------------------------------
    def on_work_started(self) -> None:
        """Opens self.work."""

    def on_work_finished(self) -> None:
        """Closes what on_work_started opened."""

    def read_one(self) -> Record | None:
        """The next record of the current unit, or None at its end."""
        raise NotImplementedError

    def exhausted(self) -> bool:
        """Whether the unit ended with the record just read (readers of one record per
        unit know it then, and finish the unit in the same read, as TF's)."""
        return False

    def reset_state(self) -> None:
        self.on_work_finished()

    # ---- ReaderBase ----------------------------------------------------------------------
    def _in_progress(self) -> bool:
        return self.work_finished < self.work_started

    def _acquire(self, ctx: Any) -> None:
        if self._lock.acquire(blocking=False):
            return
        while not self._lock.acquire(timeout=POLL_SECS):
            ctx.time_left()  # the step may end while another step reads with this reader

    def _next_work(self, ctx: Any, queue: Any) -> None:
        (element,) = queue.dequeue(ctx, 1)
        if len(element) != 1:
            raise errors.InvalidArgumentError(None, None, "Expected single component queue")
        value = np.asarray(element[0])
        if value.dtype != object:
            raise errors.InvalidArgumentError(
                None, None, "Expected queue with single string component"
            )
        if value.size != 1:
            raise errors.InvalidArgumentError(
                None, None, "Expected to dequeue a one-element string tensor"
            )
        work = value.reshape(-1)[0]
        self.work = work.encode() if isinstance(work, str) else bytes(work)
        self.on_work_started()  # an error here leaves the unit not started: the next read
        self.work_started += 1  # takes the next one

    def _finish_work(self) -> None:
        self.on_work_finished()
        self.work_finished = self.work_started

    def read(self, ctx: Any, queue: Any) -> Record:
        self._acquire(ctx)
        try:
            while True:
                if not self._in_progress():
                    self._next_work(ctx, queue)
                record = self.read_one()
                if record is None:
                    self._finish_work()
                    continue
                self.num_records_produced += 1
                if self.exhausted():
                    self._finish_work()
                return record
        finally:
            self._lock.release()

    def read_up_to(self, ctx: Any, queue: Any, n: int) -> list[Record]:
        """Up to n records; fewer when a unit ends after some were read (TF's ReadUpTo)."""
        out: list[Record] = []
        self._acquire(ctx)
        try:
            while len(out) < n:
                if not self._in_progress():
                    self._next_work(ctx, queue)
                want = n - len(out)
                got = self.read_many(want)
                out.extend(got)
                self.num_records_produced += len(got)
                if len(got) < want or self.exhausted():
                    self._finish_work()
                    if out:
                        break
            return out
        finally:
            self._lock.release()

    def read_many(self, n: int) -> list[Record]:
        """Up to n records of the current unit (fewer only at its end)."""
        out: list[Record] = []
        while len(out) < n:
            record = self.read_one()
            if record is None:
                break
            out.append(record)
        return out

    def reset(self) -> None:
        with self._lock:
            self.reset_state()
            self.work = b""
            self.work_started = self.work_finished = self.num_records_produced = 0

    def serialize_state(self) -> bytes:
        if not self.supports_serialize:
            raise errors.UnimplementedError(None, None, "Reader SerializeState")
        with self._lock:
            state = reader_base_pb2.ReaderBaseState(
                work_started=self.work_started,
                work_finished=self.work_finished,
                num_records_produced=self.num_records_produced,
                current_work=self.work,
            )
        return state.SerializeToString()

    def restore_state(self, data: bytes) -> None:
        if not self.supports_serialize:
            raise errors.UnimplementedError(None, None, "Reader RestoreState")
        state = reader_base_pb2.ReaderBaseState()
        try:
            state.ParseFromString(data)
        except Exception:
            raise errors.InvalidArgumentError(
                None, None, f"Could not parse state for {self.kind} '{self.name}': {data!r}"
            ) from None
        if min(state.work_started, state.work_finished, state.num_records_produced) < 0:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Unexpected negative value when restoring in {self.kind} '{self.name}': "
                f"{_short(state)}",
            )
        if state.work_finished > state.work_started:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Inconsistent work started vs. finished when restoring in {self.kind} "
                f"'{self.name}': {_short(state)}",
            )
        with self._lock:
            self.reset_state()
            self.work_started = state.work_started
            self.work_finished = state.work_finished
            self.num_records_produced = state.num_records_produced
            self.work = state.current_work
            if self._in_progress():
                self.on_work_started()

    def close(self, cancel_pending_enqueues: bool = True) -> None:
        """The task dropped the reader (Session.reset): files it holds are closed."""
        self.reset_state()


def _short(state: Any) -> str:
    return " ".join(f"{f.name}: {v!r}" for f, v in state.ListFields())


class TFRecordReaderResource(ReaderResource):
    """Records are read from the file in runs (one crc check for many), then handed out one
    by one; a bad record still fails the read that reaches it, after the good ones before."""

    kind = "TFRecordReader"
    _RUN = 64

    def __init__(self, name: str, compression_type: str) -> None:
        super().__init__(name)
        self.compression_type = compression.check_kind(compression_type)
        self._reader: RecordReader | None = None
        self._prefix = b""
        self._pending: collections.deque[Record] = collections.deque()

    def on_work_started(self) -> None:
        self._reader = RecordReader(self.work, self.compression_type)
        self._prefix = self.work + b":"
        self._pending.clear()

    def on_work_finished(self) -> None:
        self._pending.clear()
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def _refill(self) -> None:
        assert self._reader is not None
        offset = self._reader.offset
        for record in self._reader.read_batch(self._RUN):  # raises at a bad record
            self._pending.append((self._prefix + str(offset).encode(), record))
            offset += len(record) + 16  # length, its crc, the data, its crc

    def read_one(self) -> Record | None:
        if not self._pending:
            self._refill()
            if not self._pending:
                return None
        return self._pending.popleft()


class TextLineReaderResource(ReaderResource):
    kind = "TextLineReader"

    def __init__(self, name: str, skip_header_lines: int) -> None:
        super().__init__(name)
        self.skip_header_lines = skip_header_lines
        self._file: BinaryIO | None = None
        self._line = 0

    def on_work_started(self) -> None:
        self._file = _open(self.work)
        self._line = 0
        for _ in range(self.skip_header_lines):
            self._line += 1
            if not self._readline():
                break  # a file of headers only gives no lines

    def _readline(self) -> bytes:
        assert self._file is not None
        try:
            return self._file.readline()
        except OSError as e:
            raise as_tf_error(e, _path(self.work)) from None

    def on_work_finished(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def read_one(self) -> Record | None:
        line = self._readline()
        self._line += 1
        if not line:
            return None
        if line.endswith(b"\n"):
            line = line[:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
        return b"%s:%d" % (self.work, self._line), line


class FixedLengthRecordReaderResource(ReaderResource):
    """Record k of a file starts at header_bytes + k * (hop_bytes or record_bytes), and is
    there when record_bytes + footer_bytes fit before the end (of the uncompressed data)."""

    kind = "FixedLengthRecordReader"

    def __init__(
        self, name: str, header: int, record: int, footer: int, hop: int, encoding: str
    ) -> None:
        super().__init__(name)
        if record <= 0:
            raise errors.InvalidArgumentError(None, None, f"record_bytes must be > 0 not {record}")
        if min(header, footer, hop) < 0:
            raise errors.InvalidArgumentError(
                None, None, "header_bytes, footer_bytes and hop_bytes must be >= 0"
            )
        self.header, self.record, self.footer = header, record, footer
        self.step = hop or record
        self.encoding = compression.check_kind(encoding)
        self._stream: Any = None
        self._buf = b""
        self._buf_start = 0  # stream offset of _buf[0]
        self._index = 0

    def on_work_started(self) -> None:
        raw = _open(self.work)
        self._stream = (
            raw
            if self.encoding == compression.NONE
            else compression.InflatingReader(raw, self.encoding, _path(self.work))
        )
        self._buf, self._buf_start, self._index = b"", 0, 0

    def on_work_finished(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def _window(self, start: int, n: int) -> bytes:
        """Bytes [start, start + n) of the stream (fewer at its end); starts only grow, so
        the buffer is cut and refilled only when a record runs past it."""
        i = start - self._buf_start
        if i + n <= len(self._buf):
            return self._buf[i : i + n]
        if i < len(self._buf):
            parts = [self._buf[i:]]
        else:
            parts, skip = [], i - len(self._buf)
            while skip > 0:  # a hop past the buffered bytes
                data = self._read(min(skip, _BUFFER))
                if not data:
                    break
                skip -= len(data)
        have = sum(len(p) for p in parts)
        while have < n:
            data = self._read(max(n - have, _BUFFER))
            if not data:
                break
            parts.append(data)
            have += len(data)
        self._buf, self._buf_start = b"".join(parts), start
        return self._buf[:n]

    def _read(self, n: int) -> bytes:
        try:
            return bytes(self._stream.read(n))
        except OSError as e:
            raise as_tf_error(e, _path(self.work)) from None

    def read_one(self) -> Record | None:
        start = self.header + self._index * self.step
        need = self.record + self.footer
        data = self._window(start, need)
        if len(data) < need:
            return None
        key = b"%s:%d" % (self.work, self._index)
        self._index += 1
        return key, data[: self.record]


class WholeFileReaderResource(ReaderResource):
    kind = "WholeFileReader"
    supports_serialize = True

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._done = False

    def on_work_started(self) -> None:
        self._done = False

    def exhausted(self) -> bool:
        return self._done

    def read_one(self) -> Record | None:
        if self._done:
            return None
        self._done = True
        with _open(self.work) as f:
            try:
                return self.work, f.read()
            except OSError as e:
                raise as_tf_error(e, _path(self.work)) from None


class IdentityReaderResource(ReaderResource):
    """Each unit of work is one record: the work itself, as key and value."""

    kind = "IdentityReader"
    supports_serialize = True

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._done = False

    def on_work_started(self) -> None:
        self._done = False

    def exhausted(self) -> bool:
        return self._done

    def read_one(self) -> Record | None:
        if self._done:
            return None
        self._done = True
        return self.work, self.work


# ---- kernels -------------------------------------------------------------------------------


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value or "")


def _reader_kernel(make: Any) -> Any:
    def factory(node: Any, xp: Any) -> Any:
        where = ResourceName(node)
        kind = make(node, "").kind  # checks the attrs once, when the graph is registered

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            name = where.resolve(ctx.resources)
            r = ctx.resources.lookup_or_create(where.container, name, lambda: make(node, name))
            if not isinstance(r, ReaderResource) or r.kind != kind:
                raise errors.InvalidArgumentError(
                    None, None, f"Shared reader '{name}' is not a {kind}"
                )
            return (r,)

        return compute

    return factory


# Each reader op and its first version (a string ref handle instead of a resource): one body.
for _suffix in ("V2", ""):
    kernel(f"TFRecordReader{_suffix}", devices=CPU_ONLY)(
        _reader_kernel(
            lambda node, name: TFRecordReaderResource(
                name, _text(node.attrs.get("compression_type", ""))
            )
        )
    )
    kernel(f"TextLineReader{_suffix}", devices=CPU_ONLY)(
        _reader_kernel(
            lambda node, name: TextLineReaderResource(
                name, int(node.attrs.get("skip_header_lines", 0))
            )
        )
    )
    kernel(f"FixedLengthRecordReader{_suffix}", devices=CPU_ONLY)(
        _reader_kernel(
            lambda node, name: FixedLengthRecordReaderResource(
                name,
                int(node.attrs.get("header_bytes", 0)),
                int(node.attrs["record_bytes"]),
                int(node.attrs.get("footer_bytes", 0)),
                int(node.attrs.get("hop_bytes", 0)),
                _text(node.attrs.get("encoding", "")),
            )
        )
    )
    kernel(f"WholeFileReader{_suffix}", devices=CPU_ONLY)(
        _reader_kernel(lambda node, name: WholeFileReaderResource(name))
    )
    kernel(f"IdentityReader{_suffix}", devices=CPU_ONLY)(
        _reader_kernel(lambda node, name: IdentityReaderResource(name))
    )


def reader_of(value: Any, node_name: str) -> ReaderResource:
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        value = value.item()
    if not isinstance(value, ReaderResource):
        raise errors.InvalidArgumentError(
            None, None, f"{node_name}: input 0 is not a reader handle ({type(value).__name__})"
        )
    return value


@kernel("ReaderRead", devices=CPU_ONLY)
@kernel("ReaderReadV2", devices=CPU_ONLY)
def reader_read(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        reader, queue = ins[0], ins[1]
        if not isinstance(reader, ReaderResource):
            reader = reader_of(reader, node.name)
        if not isinstance(queue, QueueResource):
            queue = queue_of(queue, node.name)
        key, value = reader.read(ctx, queue)
        return _string(key), _string(value)

    return compute


@kernel("ReaderReadUpTo", devices=CPU_ONLY)
@kernel("ReaderReadUpToV2", devices=CPU_ONLY)
def reader_read_up_to(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        n = int(np.asarray(ins[2]))
        if n <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"num_records must be a positive integer, got {n}"
            )
        records = reader_of(ins[0], node.name).read_up_to(ctx, queue_of(ins[1], node.name), n)
        return _strings([k for k, _ in records]), _strings([v for _, v in records])

    return compute


@kernel("ReaderNumRecordsProduced", devices=CPU_ONLY)
@kernel("ReaderNumRecordsProducedV2", devices=CPU_ONLY)
def reader_num_records_produced(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int64(reader_of(ins[0], node.name).num_records_produced),)

    return compute


@kernel("ReaderNumWorkUnitsCompleted", devices=CPU_ONLY)
@kernel("ReaderNumWorkUnitsCompletedV2", devices=CPU_ONLY)
def reader_num_work_units_completed(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int64(reader_of(ins[0], node.name).work_finished),)

    return compute


@kernel("ReaderSerializeState", devices=CPU_ONLY)
@kernel("ReaderSerializeStateV2", devices=CPU_ONLY)
def reader_serialize_state(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_string(reader_of(ins[0], node.name).serialize_state()),)

    return compute


@kernel("ReaderRestoreState", devices=CPU_ONLY)
@kernel("ReaderRestoreStateV2", devices=CPU_ONLY)
def reader_restore_state(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        state = np.asarray(ins[1])
        if state.ndim != 0:
            raise errors.InvalidArgumentError(
                None, None, f"Reader state must be scalar, but had shape: {list(state.shape)}"
            )
        data = state.item()
        reader_of(ins[0], node.name).restore_state(
            data.encode() if isinstance(data, str) else bytes(data)
        )
        return ()

    return compute


@kernel("ReaderReset", devices=CPU_ONLY)
@kernel("ReaderResetV2", devices=CPU_ONLY)
def reader_reset(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        reader_of(ins[0], node.name).reset()
        return ()

    return compute


@kernel("MatchingFiles", devices=CPU_ONLY)
def matching_files(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        patterns = np.asarray(ins[0])
        if patterns.ndim > 1:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Input patterns tensor must be scalar or vector, but had shape: "
                f"{list(patterns.shape)}",
            )
        found: list[str] = []
        for p in patterns.reshape(-1):
            pattern = p.decode("utf-8", "surrogateescape") if isinstance(p, bytes) else str(p)
            found.extend(match(pattern))
        return (_strings(sorted(f.encode("utf-8", "surrogateescape") for f in found)),)

    return compute


def _scalar_path(value: Any, what: str) -> str:
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise errors.InvalidArgumentError(
            None, None, f"{what} must be scalar, but had shape: {list(arr.shape)}"
        )
    item = arr.item()
    return item.decode("utf-8", "surrogateescape") if isinstance(item, bytes) else str(item)


@kernel("ReadFile", devices=CPU_ONLY)
def read_file(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        path = _scalar_path(ins[0], "Input filename tensor")
        try:
            with open(path, "rb") as f:
                return (_string(f.read()),)
        except OSError as e:
            raise as_tf_error(e, path) from None

    return compute


@kernel("WriteFile", devices=CPU_ONLY)
def write_file(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        path = _scalar_path(ins[0], "Input filename tensor")
        contents = np.asarray(ins[1])
        if contents.ndim != 0:
            raise errors.InvalidArgumentError(
                None, None, f"Contents tensor must be scalar, but had shape: {list(contents.shape)}"
            )
        data = contents.item()
        try:
            parent = os.path.dirname(path)
            if parent:
                os.makedirs(parent, exist_ok=True)
            with open(path, "wb") as f:
                f.write(data.encode() if isinstance(data, str) else bytes(data))
        except OSError as e:
            raise as_tf_error(e, path) from None
        return ()

    return compute
