"""The TFRecord file format: each record is

    uint64 length | uint32 masked crc32c(length) | data | uint32 masked crc32c(data)

little-endian, optionally inside one ZLIB or GZIP stream. RecordReader and RecordWriter are
the format alone (datasets and reader kernels use them); TFRecordOptions, TFRecordWriter and
tf_record_iterator are tf.io / tf.python_io's API over them.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterator
from types import TracebackType
from typing import Any

import crc32c
import numpy as np

from tfcluster.framework import errors
from tfcluster.lib.io import compression
from tfcluster.lib.io.os_errors import as_tf_error

_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
_HEADER = struct.Struct("<QI")
HEADER_SIZE = 12
FOOTER_SIZE = 4
_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF
DEFAULT_BUFFER = 1 << 20
_REFILL_RECORDS = 16
_REFILL_CAP = 1 << 20
# Records of at least this many bytes are read from a plain file on their own (_read_direct).
_DIRECT = 64 << 10


def masked_crc(data: Any) -> int:
    """TF's masked crc32c (crc32c::Mask): stored crcs are rotated and offset so that a crc
    of data that itself holds crcs does not degenerate."""
    crc = crc32c.crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & _U32


def _field(buf: bytes, first: int, step: int, count: int, dtype: str) -> np.ndarray:
    """One fixed-size field of `count` records laid `step` bytes apart, the first at `first`:
    a strided view of the buffer, no copy."""
    return np.ndarray((count,), dtype=dtype, buffer=buf, offset=first, strides=(step,))


def _gather(raw: np.ndarray, at: np.ndarray, width: int, dtype: str) -> np.ndarray:
    """The `width`-byte field at each position of `at` in `raw`, as values of dtype."""
    return np.ascontiguousarray(raw[at[:, None] + np.arange(width)]).view(dtype).ravel()


def _masked(crcs: np.ndarray) -> np.ndarray:
    c = crcs.astype(np.uint64)
    return (((c >> 15) | (c << 17)) + _MASK_DELTA) & _U32


def _masked_u32(crcs: np.ndarray) -> np.ndarray:
    """_masked of uint32 crcs in uint32 arithmetic: its wrap-around is the `& _U32`."""
    return ((crcs >> 15) | (crcs << 17)) + np.uint32(_MASK_DELTA)  # type: ignore[no-any-return]


class _Run:
    """Records that lie whole in a buffer: where each starts and how long its data is."""

    def __init__(self, buf: bytes, starts: np.ndarray, lengths: np.ndarray, step: int) -> None:
        self.buf, self.starts, self.lengths = buf, starts, lengths
        self.step = step  # > 0: all records are `step` bytes apart (one length)

    def records(self) -> list[bytes]:
        buf = self.buf
        if self.step:
            size = int(self.lengths[0])
            first = int(self.starts[0]) + HEADER_SIZE
            if size:
                # Records `step` bytes apart are the items of a strided view of void items:
                # numpy makes the bytes objects (a void item becomes bytes), no slice each.
                n = len(self.starts)
                view = np.ndarray((n,), f"V{size}", buffer=buf, offset=first, strides=(self.step,))
                return view.astype(object).tolist()  # type: ignore[no-any-return]
            stop = int(self.starts[-1]) + HEADER_SIZE + 1
            return [buf[a : a + size] for a in range(first, stop, self.step)]
        at = (self.starts + HEADER_SIZE).tolist()
        return [buf[a : a + n] for a, n in zip(at, self.lengths.tolist())]

    def stored_crcs(self) -> tuple[np.ndarray, np.ndarray]:
        """The masked crcs the file holds: of each header, of each record's data."""
        n = len(self.starts)
        if self.step:
            first = int(self.starts[0])
            head = _field(self.buf, first + 8, self.step, n, "<u4")
            data = _field(self.buf, first + HEADER_SIZE + int(self.lengths[0]), self.step, n, "<u4")
            return head, data
        raw = np.frombuffer(self.buf, dtype=np.uint8)
        head = _gather(raw, self.starts + 8, 4, "<u4")
        data = _gather(raw, self.starts + HEADER_SIZE + self.lengths, 4, "<u4")
        return head, data

    def header_crcs(self) -> np.ndarray | np.uint64:
        """The masked crc of each header's length: computed once per distinct length (one
        0-d value for records of one length, compared with every header by broadcasting)."""
        if self.step:
            return np.uint64(masked_crc(_LENGTH.pack(int(self.lengths[0]))))
        lengths, which = np.unique(self.lengths, return_inverse=True)
        crcs = np.array([crc32c.crc32c(_LENGTH.pack(int(n))) for n in lengths], dtype=np.uint64)
        return _masked(crcs)[which]

    def first_mismatch(self, records: list[bytes]) -> tuple[int, bool] | None:
        """(index, whether in the header) of the first record whose stored crc is not the
        masked crc of what it guards."""
        head, data = self.stored_crcs()
        crcs = np.fromiter(map(crc32c.crc32c, records), np.uint32, len(records))
        data_ok = _masked_u32(crcs) == data
        head_ok = self.header_crcs() == head
        ok = head_ok & data_ok
        if ok.all():
            return None
        index = int(np.argmin(ok))
        return index, not bool(head_ok[index])


# Runs of at least this many records of one length are found with numpy, not one by one.
_UNIFORM_MIN = 16


def _uniform_run(buf: bytes, pos: int, room: int) -> _Run | None:
    """The records from `pos` on while they all have the first one's length (fixed-size
    Examples), found at once; None when there is no such run to speed up."""
    if len(buf) - pos < HEADER_SIZE:
        return None
    length = _LENGTH.unpack_from(buf, pos)[0]
    size = HEADER_SIZE + FOOTER_SIZE + length
    k = min(room, (len(buf) - pos) // size)
    if k < _UNIFORM_MIN:
        return None
    same = _field(buf, pos, size, k, "<u8") == length
    if not same.all():
        k = int(np.argmin(same))
        if k < _UNIFORM_MIN:
            return None
    starts = pos + size * np.arange(k, dtype=np.int64)
    return _Run(buf, starts, np.full(k, length, dtype=np.int64), size)


def _unmask(masked: int) -> int:
    rot = (masked - _MASK_DELTA) & _U32
    return ((rot >> 17) | (rot << 15)) & _U32


def encode(record: bytes) -> bytes:
    """One record in the file format."""
    length = _LENGTH.pack(len(record))
    return b"".join((length, _CRC.pack(masked_crc(length)), record, _CRC.pack(masked_crc(record))))


def _open(path: str, mode: str) -> Any:
    try:
        return open(path, mode, buffering=0)
    except OSError as e:
        raise as_tf_error(e, path) from None


def _as_path(path: Any) -> str:
    if isinstance(path, bytes):
        return path.decode("utf-8", "surrogateescape")
    return str(path)


class RecordReader:
    """Reads the records of one file in order, checking both crcs of each.

    Offsets are positions in the uncompressed stream, as TF's (they name records in errors
    and in TFRecordReader's keys). A truncated header at the end of the file ends it, as in
    TF; a truncated or corrupt record raises DataLossError naming the file and offset, and
    raises again on the next read rather than skipping ahead.
    """

    def __init__(
        self, path: Any, compression_type: str = "", buffer_size: int | None = None
    ) -> None:
        self.path = _as_path(path)
        kind = compression.check_kind(compression_type or "")
        self._chunk = max(int(buffer_size or DEFAULT_BUFFER), 1 << 16)
        raw = _open(self.path, "rb")
        self._stream: Any = (
            raw if kind == compression.NONE else compression.InflatingReader(raw, kind, self.path)
        )
        # A plain file is read at offsets (pread); a compressed stream in order.
        self._fd: int | None = raw.fileno() if kind == compression.NONE and raw.seekable() else None
        self._buf = b""
        self._pos = 0
        self._base = 0  # stream offset of _buf[0]
        self._eof = False
        self._last_size = 0  # of the last record read (the refill's measure)

    @property
    def offset(self) -> int:
        """The stream offset of the next record."""
        return self._base + self._pos

    def _fill(self, need: int, records: int = 1) -> bool:
        """Makes `need` bytes available from _pos; False when the stream ends first. A plain
        file's buffer is read for about `records` records (those read_batch still wants)."""
        avail = len(self._buf) - self._pos
        if avail >= need:
            return True
        if self._fd is not None:
            return self._fill_at(need, records)
        parts = [self._buf[self._pos :]] if avail else []
        self._base += self._pos
        self._pos = 0
        while avail < need and not self._eof:
            data = self._read_stream(max(self._chunk, need - avail))
            if not data:
                self._eof = True
                break
            parts.append(data)
            avail += len(data)
        self._buf = b"".join(parts)
        return avail >= need

    def _fill_at(self, need: int, records: int = 1) -> bool:
        """_fill for a plain file: the buffer is read afresh from _pos on, so the part of a
        record left at the end of the old one is read again rather than the new chunk
        copied onto it."""
        start = self._base + self._pos
        # At least _REFILL_RECORDS records like the next one: records bigger than the
        # buffer are not each read twice (the tail of one chunk is read again in the next).
        # As many as the caller wants, up to _REFILL_CAP: a run of small records is read
        # (and its crcs checked) at once, not a buffer_size at a time.
        size = max(need, self._last_size)
        room = size * max(records, _REFILL_RECORDS)
        want = max(self._chunk, need, min(room, _REFILL_CAP))
        self._buf = self._pread(want, start)
        self._base, self._pos = start, 0
        return len(self._buf) >= need

    def _direct(self) -> bool:
        return self._fd is not None and len(self._buf) - self._pos >= HEADER_SIZE

    def _pread(self, n: int, offset: int) -> bytes:
        """n bytes at offset (fewer only at the end of the file)."""
        parts: list[bytes] = []
        got = 0
        while got < n:
            try:
                data = os.pread(self._fd, n - got, offset + got)  # type: ignore[arg-type]
            except OSError as e:
                raise as_tf_error(e, self.path) from None
            if not data:
                break
            parts.append(data)
            got += len(data)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _read_direct(self) -> bytes | errors.OpError:
        """The record whose header is at _pos, its data read straight into its own bytes (one
        copy rather than into the buffer and out of it again); its footer and the next
        header come with a second, small read and become the buffer. On an error the reader
        stays at the record."""
        start = self._base + self._pos
        length = _LENGTH.unpack_from(self._buf, self._pos)[0]
        data = self._pread(length, start + HEADER_SIZE)
        tail = self._pread(FOOTER_SIZE + HEADER_SIZE, start + HEADER_SIZE + length)
        if len(data) < length or len(tail) < FOOTER_SIZE:
            return self._data_loss("truncated", start)
        if _unmask(_CRC.unpack_from(tail)[0]) != crc32c.crc32c(data):
            return self._data_loss("corrupted", start + HEADER_SIZE)
        self._buf, self._base, self._pos = tail, start + HEADER_SIZE + length, FOOTER_SIZE
        self._last_size = HEADER_SIZE + FOOTER_SIZE + length
        return data

    def _read_stream(self, n: int) -> bytes:
        try:
            return self._stream.read(n)
        except OSError as e:
            raise as_tf_error(e, self.path) from None

    def _data_loss(self, what: str, offset: int) -> errors.OpError:
        return errors.DataLossError(None, None, f"{what} record at {offset} in file {self.path}")

    def read(self) -> bytes | None:
        """The next record, or None at the end of the file."""
        out = self.read_batch(1)
        return out[0] if out else None

    def read_with_offset(self) -> tuple[bytes, int] | None:
        start = self.offset
        record = self.read()
        return None if record is None else (record, start)

    def read_batch(self, max_records: int) -> list[bytes]:
        """Up to max_records records; fewer only at the end of the file. A bad record raises
        DataLossError, after the good records before it were returned: the reader stays at
        the bad record, so the next call raises it again."""
        out: list[bytes] = []
        while len(out) < max_records:
            need, failure = self._scan(out, max_records)
            if failure is None and need >= _DIRECT and self._direct():
                # A big record (its header, checked by _scan, is in the buffer).
                got = self._read_direct()
                if isinstance(got, bytes):
                    out.append(got)
                    continue
                failure = got
            if failure is None and need and not self._fill(need, max_records - len(out)):
                if len(self._buf) - self._pos >= HEADER_SIZE:
                    failure = self._data_loss("truncated", self.offset)
                else:
                    break  # no record here, or a torn header: the end, as in TF
            if failure is not None:
                if out:
                    break
                raise failure
            if not need:
                break
        return out

    def _scan(self, out: list[bytes], max_records: int) -> tuple[int, errors.OpError | None]:
        """Appends to `out` the good records that lie whole in the buffer, up to max_records.
        Returns the bytes the next record needs from the reader's position (0 when `out` is
        full), or the error at that position.

        Only the lengths are walked (and a run of records of one length is found at once);
        the records are sliced and their crcs computed and compared for all of them
        together, which keeps the Python work per record to a few steps.
        """
        unpack = _LENGTH.unpack_from
        buf, pos = self._buf, self._pos
        limit = len(buf)
        room = max_records - len(out)
        need = 0
        failure: errors.OpError | None = None
        run = _uniform_run(buf, pos, room)
        found = 0
        if run is not None:
            found = len(run.starts)
            pos = int(run.starts[-1]) + run.step
        starts: list[int] = []
        lengths: list[int] = []
        while found + len(starts) < room:
            if limit - pos < HEADER_SIZE:
                need = HEADER_SIZE
                break
            length = unpack(buf, pos)[0]
            end = pos + HEADER_SIZE + FOOTER_SIZE + length
            if end > limit:
                # A length from a corrupt header must not send us reading the whole file.
                stored = _unmask(_CRC.unpack_from(buf, pos + 8)[0])
                if stored != crc32c.crc32c(buf[pos : pos + 8]):
                    failure = self._data_loss("corrupted", self._base + pos)
                need = end - pos
                break
            starts.append(pos)
            lengths.append(length)
            pos = end
        if starts:
            walked = _Run(buf, np.array(starts, np.int64), np.array(lengths, np.int64), 0)
            if run is not None:
                walked.starts = np.concatenate([run.starts, walked.starts])
                walked.lengths = np.concatenate([run.lengths, walked.lengths])
            run = walked
        if run is None:
            self._pos = pos
            return need, failure
        self._last_size = HEADER_SIZE + FOOTER_SIZE + int(run.lengths[-1])
        records = run.records()
        bad = run.first_mismatch(records)
        if bad is not None:
            index, in_header = bad
            pos = int(run.starts[index])
            offset = self._base + pos + (0 if in_header else HEADER_SIZE)
            failure = self._data_loss("corrupted", offset)
            del records[index:]
        out.extend(records)
        self._pos = pos
        return need, failure

    def __iter__(self) -> Iterator[bytes]:
        while True:
            batch = self.read_batch(256)
            if not batch:
                return
            yield from batch

    def close(self) -> None:
        self._stream.close()
        self._buf = b""

    def __enter__(self) -> RecordReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RecordWriter:
    """Appends records to a new file (plain, ZLIB or GZIP)."""

    def __init__(
        self,
        path: Any,
        compression_type: str = "",
        settings: compression.ZlibSettings | None = None,
    ) -> None:
        self.path = _as_path(path)
        kind = compression.check_kind(compression_type or "")
        raw = _open(self.path, "wb")
        self._out: Any = (
            raw
            if kind == compression.NONE
            else compression.DeflatingWriter(raw, kind, settings or compression.ZlibSettings())
        )
        self._closed = False

    def write(self, record: Any) -> None:
        if self._closed:
            raise errors.FailedPreconditionError(None, None, f"{self.path}: writer is closed")
        if isinstance(record, str):
            record = record.encode("utf-8")
        data = bytes(record)
        try:
            self._out.write(encode(data))
        except OSError as e:
            raise as_tf_error(e, self.path) from None

    def flush(self) -> None:
        if not self._closed:
            self._out.flush()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._out.close()


# ---- tf.io / tf.python_io ----------------------------------------------------------------
class TFRecordCompressionType:
    """The type of compression for the record."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """Options used for manipulating TFRecord files."""

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(
        self,
        compression_type: Any = None,
        flush_mode: int | None = None,
        input_buffer_size: int | None = None,
        output_buffer_size: int | None = None,
        window_bits: int | None = None,
        compression_level: int | None = None,
        compression_method: int | None = None,
        mem_level: int | None = None,
        compression_strategy: int | None = None,
    ) -> None:
        # Checked now, but kept as given (TF keeps it for backwards compatibility).
        self.get_compression_type_string(compression_type)
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options: Any) -> str:
        """'', 'ZLIB' or 'GZIP' for an options object, a TFRecordCompressionType or a string."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if isinstance(options, int) and options in cls.compression_type_map:
            return cls.compression_type_map[options]
        if options in cls.compression_type_map.values():
            return str(options)
        raise ValueError(f'Not a valid compression_type: "{options}"')

    def _zlib_settings(self) -> compression.ZlibSettings:
        base = compression.ZlibSettings()
        if self.compression_method not in (None, zlib.DEFLATED):
            raise ValueError(f"Unsupported compression_method: {self.compression_method}")
        return compression.ZlibSettings(
            compression_level=_or(self.compression_level, base.compression_level),
            window_bits=_or(self.window_bits, base.window_bits),
            mem_level=_or(self.mem_level, base.mem_level),
            compression_strategy=_or(self.compression_strategy, base.compression_strategy),
            flush_mode=_or(self.flush_mode, base.flush_mode),
        )


def _or(value: int | None, default: int) -> int:
    return default if value is None else int(value)


def _as_options(options: Any) -> TFRecordOptions:
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(TFRecordOptions.get_compression_type_string(options))


class TFRecordWriter:
    """A class to write records to a TFRecords file."""

    def __init__(self, path: Any, options: Any = None) -> None:
        opts = _as_options(options)
        kind = TFRecordOptions.get_compression_type_string(opts)
        self._writer = RecordWriter(path, kind, opts._zlib_settings())

    def write(self, record: Any) -> None:
        """Write a string record to the file."""
        self._writer.write(record)

    def flush(self) -> None:
        """Flush the file."""
        self._writer.flush()

    def close(self) -> None:
        """Close the file."""
        self._writer.close()

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def tf_record_iterator(path: Any, options: Any = None) -> Iterator[bytes]:
    """An iterator that reads the records from a TFRecords file."""
    kind = TFRecordOptions.get_compression_type_string(options)
    buffer_size = options.input_buffer_size if isinstance(options, TFRecordOptions) else None
    with RecordReader(path, kind, buffer_size) as reader:
        yield from reader
