"""Kernels of the datasets that read files: TFRecordDataset, TextLineDataset,
FixedLengthRecordDatasetV2 (MatchingFiles, which list_files uses, is a reader op: readers.py).

Files are read one after the other, each opened when the previous one ends; their records
are handed out in runs (a batch after a reader takes a whole run at once). A bad record is a
DataLossError naming the file and the offset (tfcluster.lib.io.tfrecord), raised after the
good records before it were handed out; the next read goes on with the next file, as in TF.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.lib.io import compression, csv_parser, tfrecord
from tfcluster.lib.io.os_errors import as_tf_error

# Records are read from a file in runs of about _RUN_BYTES (between 1 and _RUN_MAX records):
# each read has a fixed cost (slicing, checking crcs over the whole run), so small records
# are read many at a time, big ones few. Records of an MNIST-sized Example (~1 KB) come a
# thousand to a read.
_RUN_BYTES = 1 << 20
_RUN_MAX = 1024
_TEXT_BUFFER = 256 << 10


def _filenames(value: Any) -> list[str]:
    arr = np.asarray(value, dtype=object)
    if arr.ndim > 1:
        raise errors.InvalidArgumentError(
            None, None, f"`filenames` must be a scalar or a vector, got shape {list(arr.shape)}"
        )
    out = []
    for name in arr.reshape(-1):
        out.append(
            name.decode("utf-8", "surrogateescape") if isinstance(name, bytes) else str(name)
        )
    return out


def _text(value: Any, what: str) -> str:
    arr = np.asarray(value, dtype=object)
    if arr.shape != ():
        raise errors.InvalidArgumentError(None, None, f"{what} must be a scalar")
    v = arr[()]
    return v.decode() if isinstance(v, bytes) else str(v)


def _buffer_size(value: Any, default: int) -> int:
    n = base.scalar_int(value, "buffer_size")
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"buffer_size must be >= 0, got {n}")
    return n or default


class _Files(base.Dataset):
    """A dataset of the records of some files, read in order."""

    def __init__(self, specs: Sequence[base.LeafSpec], files: list[str], **options: Any) -> None:
        super().__init__(specs)
        self.files = files
        self.options = options

    def open(self, path: str) -> Any:
        raise NotImplementedError

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _FilesIterator(self)


class _FilesIterator(base.ElementIterator):
    reads_ahead_freely = True

    def reads_records_freely(self) -> bool:
        """Records, whose reading ahead of their consumer changes only when they are read."""
        return True

    def next_records(self, n: int) -> tuple[np.ndarray, errors.OpError | None]:
        """Up to n records as one column, and the error met right after them (the records
        before it are kept); none only at the end."""
        records, error = self.read_records_ahead(n)
        return _objects(records), error

    def __init__(self, data: _Files) -> None:
        self._data = data
        self._next_file = 0
        self._reader: Any = None
        self._run: list[bytes] = []
        self._pos = 0
        self._run_size = 64  # records per read, from the size of the records read so far

    def _current(self) -> Any:
        while self._reader is None:
            if self._next_file >= len(self._data.files):
                return None
            # A file that cannot be opened raises again on the next read, as in TF.
            self._reader = self._data.open(self._data.files[self._next_file])
            self._next_file += 1
        return self._reader

    def _read(self, n: int) -> list[bytes]:
        """Up to n records (fewer only at the end of the last file)."""
        out: list[bytes] = []
        while len(out) < n:
            try:
                reader = self._current()
            except errors.OpError:
                if out:
                    return out  # opening fails again on the next read
                raise
            if reader is None:
                break
            try:
                got = reader.read_batch(n - len(out))
            except errors.OpError:
                if out:
                    return out  # the reader raises it again on the next read
                # A bad file is given up after its error: the next read goes on with the
                # next file, as TF's readers do.
                reader.close()
                self._reader = None
                raise
            if not got:
                reader.close()
                self._reader = None
                continue
            out += got
        if out:
            size = max(1, len(out[-1]))
            self._run_size = max(1, min(_RUN_MAX, _RUN_BYTES // size))
        return out

    def _more(self, n: int) -> list[bytes]:
        """The next n records after the run (fewer only at the end): read as a whole run at
        least, whose rest waits in _run. Raises as _read, only before the first record."""
        got = self._read(max(n, self._run_size))
        self._run, self._pos = got, min(n, len(got))
        return got[:n]

    def next(self) -> base.Element | None:
        if self._pos >= len(self._run):
            self._run = self._read(self._run_size)
            self._pos = 0
            if not self._run:
                return None
        record = self._run[self._pos]
        self._pos += 1
        return (record,)

    def next_many(self, n: int) -> list[base.Element]:
        return [(r,) for r in self._take(n)]

    def _take(self, n: int) -> list[bytes]:
        ahead = self._run[self._pos : self._pos + n]
        self._pos += len(ahead)
        if len(ahead) < n:
            ahead += self._more(n - len(ahead))
        return ahead

    def read_ahead(self, n: int) -> tuple[list[base.Element], errors.OpError | None]:
        records, error = self.read_records_ahead(n)
        return [(r,) for r in records], error

    def read_records_ahead(self, n: int) -> tuple[list[bytes], errors.OpError | None]:
        """read_ahead's records themselves (not made elements)."""
        records = self._run[self._pos : self._pos + n]
        self._pos += len(records)
        error = None
        if len(records) < n:
            try:
                records += self._more(n - len(records))
            except errors.OpError as e:  # _read raises only before its first record
                error = e
        return records, error

    def next_columns_ahead(self, n: int, chunk: int) -> tuple[list[Any], errors.OpError | None]:
        """next_columns(chunk) again and again, for up to n records, in one go; an error
        comes back with the chunks before it (the failing chunk's records are lost, as
        that call loses them). Fewer than n records without an error: the end."""
        records: list[bytes] = []
        error = None
        while len(records) < n:
            got, error = self.read_records_ahead(n - len(records))
            records += got
            if error is not None or not got:
                break
        if error is not None:
            del records[len(records) - len(records) % chunk :]
        if not records:
            return [], error
        return [_objects(records)], error

    def next_columns(self, n: int) -> list[Any]:
        records = self._take(n)
        if not records:
            return []
        return [_objects(records)]

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None


def _objects(values: list[bytes]) -> np.ndarray:
    """Records as a 1-D object array (never an array of their characters)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


# ---- TFRecord ------------------------------------------------------------------------------
class _TFRecords(_Files):
    def open(self, path: str) -> Any:
        return tfrecord.RecordReader(
            path, self.options["compression"], self.options["buffer_size"] or None
        )


@kernel("TFRecordDataset", devices=CPU_ONLY)
def tfrecord_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        kind = compression.check_kind(_text(ins[1], "compression_type"))
        size = _buffer_size(ins[2], tfrecord.DEFAULT_BUFFER)
        return (_TFRecords(specs, _filenames(ins[0]), compression=kind, buffer_size=size),)

    return compute


# ---- byte streams (text lines, fixed-length records) -----------------------------------------
def _open_stream(path: str, kind: str) -> Any:
    try:
        raw = open(path, "rb", buffering=0)  # noqa: SIM115 (closed by the reader)
    except OSError as e:
        raise as_tf_error(e, path) from None
    if kind == compression.NONE:
        return raw
    return compression.InflatingReader(raw, kind, path)


class _LineReader:
    """The lines of one file, without their '\\n' (or '\\r\\n')."""

    def __init__(self, path: str, kind: str, buffer_size: int) -> None:
        self._path = path
        self._stream = _open_stream(path, kind)
        self._chunk = buffer_size
        self._tail = b""
        self._lines: list[bytes] = []
        self._pos = 0
        self._eof = False

    def read_batch(self, n: int) -> list[bytes]:
        out: list[bytes] = []
        while len(out) < n:
            if self._pos < len(self._lines):
                take = self._lines[self._pos : self._pos + n - len(out)]
                self._pos += len(take)
                out += take
                continue
            if self._eof:
                break
            self._fill()
        return out

    def _fill(self) -> None:
        try:
            data = self._stream.read(self._chunk)
        except OSError as e:
            raise as_tf_error(e, self._path) from None
        if not data:
            self._eof = True
            lines = [self._tail] if self._tail else []
            self._tail = b""
        else:
            lines = (self._tail + data).split(b"\n")
            self._tail = lines.pop()
        self._lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
        self._pos = 0

    def close(self) -> None:
        self._stream.close()


class _TextLines(_Files):
    def open(self, path: str) -> Any:
        return _LineReader(path, self.options["compression"], self.options["buffer_size"])


@kernel("TextLineDataset", devices=CPU_ONLY)
def text_line_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        kind = compression.check_kind(_text(ins[1], "compression_type"))
        size = _buffer_size(ins[2], _TEXT_BUFFER)
        return (_TextLines(specs, _filenames(ins[0]), compression=kind, buffer_size=size),)

    return compute


class _FixedLengthReader:
    """The records of one file: a header, records of record_bytes each, a footer."""

    def __init__(self, path: str, options: dict[str, Any]) -> None:
        self._path = path
        self._record = options["record_bytes"]
        self._header = options["header_bytes"]
        self._footer = options["footer_bytes"]
        self._chunk = max(options["buffer_size"], self._record)
        self._stream = _open_stream(path, options["compression"])
        self._buf = b""
        self._started = False
        self._eof = False

    def _read(self, n: int) -> bytes:
        try:
            return bytes(self._stream.read(n))
        except OSError as e:
            raise as_tf_error(e, self._path) from None

    def read_batch(self, n: int) -> list[bytes]:
        if not self._started:
            self._started = True
            header = self._read(self._header) if self._header else b""
            if len(header) < self._header:
                self._eof = True
                return []
        want = n * self._record + self._footer
        while len(self._buf) < want and not self._eof:
            data = self._read(max(self._chunk, want - len(self._buf)))
            if not data:
                self._eof = True
                break
            self._buf += data
        # The last footer_bytes are the footer, never a record: keep them until the end.
        count = min(n, max(0, len(self._buf) - self._footer) // self._record)
        out = [self._buf[i * self._record : (i + 1) * self._record] for i in range(count)]
        self._buf = self._buf[count * self._record :]
        return out

    def close(self) -> None:
        self._stream.close()


class _FixedLengthRecords(_Files):
    def open(self, path: str) -> Any:
        o = self.options
        if o["compression"] == compression.NONE:
            try:
                size = os.path.getsize(path)
            except OSError as e:
                raise as_tf_error(e, path) from None
            body = size - o["header_bytes"] - o["footer_bytes"]
            if body < 0 or body % o["record_bytes"]:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Excluding the header ({o['header_bytes']} bytes) and footer "
                    f'({o["footer_bytes"]} bytes), input file "{path}" has body length '
                    f"{body} bytes, which is not an exact multiple of the record length "
                    f"({o['record_bytes']} bytes).",
                )
        return _FixedLengthReader(path, o)


@kernel("FixedLengthRecordDatasetV2", devices=CPU_ONLY)
def fixed_length_record_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        files = _filenames(ins[0])
        header, record, footer = (
            base.scalar_int(v, what)
            for v, what in zip(ins[1:4], ("header_bytes", "record_bytes", "footer_bytes"))
        )
        if header < 0 or footer < 0:
            raise errors.InvalidArgumentError(
                None, None, "header_bytes and footer_bytes must be >= 0"
            )
        if record <= 0:
            raise errors.InvalidArgumentError(None, None, "record_bytes must be > 0")
        size = _buffer_size(ins[4], 256 << 10)
        kind = compression.check_kind(_text(ins[5], "compression_type"))
        data = _FixedLengthRecords(
            specs,
            files,
            header_bytes=header,
            record_bytes=record,
            footer_bytes=footer,
            buffer_size=size,
            compression=kind,
        )
        return (data,)

    return compute


# ---- CSV -------------------------------------------------------------------------------------
class _CsvRows(base.ElementIterator):
    """Each CSV record of the files (lines; a header line skipped) as a tuple of scalars."""

    def __init__(self, data: _Csv) -> None:
        self._data = data
        self._lines = _FilesIterator(data.lines)
        self._rows: list[base.Element] = []
        self._pos = 0

    def next(self) -> base.Element | None:
        if self._pos >= len(self._rows):
            lines = self._lines._read(64)  # rows parsed at a time
            if not lines:
                return None
            self._rows, self._pos = self._parse(lines), 0
        row = self._rows[self._pos]
        self._pos += 1
        if isinstance(row, errors.OpError):
            raise row
        return row

    def _parse(self, lines: list[bytes]) -> list[Any]:
        """The records' rows; a bad record's error in its place (read one by one)."""
        d = self._data
        try:
            columns = csv_parser.decode_csv(lines, d.types, d.defaults, d.options)
            return list(zip(*[list(c) for c in columns]))
        except errors.OpError:
            out: list[Any] = []
            for line in lines:
                try:
                    cols = csv_parser.decode_csv([line], d.types, d.defaults, d.options)
                    out.append(tuple(c[0] for c in cols))
                except errors.OpError as e:
                    out.append(e)
            return out

    def close(self) -> None:
        self._lines.close()


class _CsvLines(_Files):
    def open(self, path: str) -> Any:
        reader = _LineReader(path, self.options["compression"], self.options["buffer_size"])
        if self.options["header"]:
            reader.read_batch(1)
        return reader


class _Csv(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], lines: _CsvLines, **parse: Any) -> None:
        super().__init__(specs)
        self.lines = lines
        self.types = [s.dtype for s in specs]
        self.defaults: list[Any] = parse["defaults"]
        self.options: csv_parser.CsvOptions = parse["options"]

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _CsvRows(self)


@kernel("CSVDataset", devices=CPU_ONLY)
def csv_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        files = _filenames(ins[0])
        kind = compression.check_kind(_text(ins[1], "compression_type"))
        size = _buffer_size(ins[2], _TEXT_BUFFER)
        header = bool(np.asarray(ins[3]))
        delim = _text(ins[4], "field_delim")
        if len(delim) != 1:
            raise errors.InvalidArgumentError(
                None, None, f"field_delim should be only 1 char, got {delim!r}"
            )
        quote = bool(np.asarray(ins[5]))
        na_value = _text(ins[6], "na_value")
        select = [int(c) for c in np.asarray(ins[7]).reshape(-1)]
        defaults: list[Any] = []
        for i, value in enumerate(ins[8 : 8 + len(specs)]):
            arr = np.asarray(value)
            if arr.size > 1:
                raise errors.InvalidArgumentError(
                    None, None, f"record_defaults[{i}] must have at most one element"
                )
            defaults.append(arr.reshape(-1)[0] if arr.size else None)
        options = csv_parser.CsvOptions(delim, quote, na_value, tuple(select))
        lines = _CsvLines(specs, files, compression=kind, buffer_size=size, header=header)
        return (_Csv(specs, lines, defaults=defaults, options=options),)

    return compute
