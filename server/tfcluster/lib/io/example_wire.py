"""tf.train.Examples with fixed-shape dense features, parsed from their wire bytes for a whole
batch at once: numpy walks every record's fields in step (one pass per map entry), so the
Python work is per feature and batch, not per example.

Only the common layout is read here: each Example's features as map entries (key, then
value) whose lists are packed (float, int64) or length-delimited (bytes), as TensorFlow and
protobuf write them. Anything else (a missing feature without a default, a key given twice,
another layout, a list of the wrong length) returns None, and the caller parses the batch
with protobuf, which also words the errors as TF does.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.lib.io import cut_strings

_BYTES_LIST, _FLOAT_LIST, _INT64_LIST = 0x0A, 0x12, 0x1A
_TAG = {dtypes.string: _BYTES_LIST, dtypes.float32: _FLOAT_LIST, dtypes.int64: _INT64_LIST}
# Records longer than this on average are not joined into one buffer (a copy of the whole
# batch) when they are all laid out alike: their structure is checked record by record.
_BIG_RECORD = 8192
# Varints of lengths and small values take at most this many bytes here (lengths < 2**35).
_VARINT_BYTES = 5
# int64 lists up to this long are decoded value by value across the batch; longer ones
# through their joined payloads.
_STEPWISE_INT64 = 8


class _Layout(Exception):
    """The batch is not in the layout read here."""


class _Wire:
    """The batch's records joined in one buffer, read at one position per record."""

    def __init__(self, records: Sequence[bytes], lengths: np.ndarray | None = None) -> None:
        # Zero padding, so reads past the last record stay in the array (and fail checks).
        self.data = b"".join([*records, bytes(16)])
        if lengths is None:
            lengths = _lengths(records)
        self.ends = np.cumsum(lengths)
        self.starts = self.ends - lengths
        self.raw = np.frombuffer(self.data, dtype=np.uint8)
        # Records of one length lie `step` bytes apart: rows of a 2-D view (0: they differ).
        n = len(records)
        self.step = int(lengths[0]) if n and (lengths == lengths[0]).all() else 0

    def rows(self) -> np.ndarray:
        """The records as the rows of a [n, step] view (records of one length only)."""
        n = len(self.starts)
        return self.raw[: n * self.step].reshape(n, self.step)

    def byte(self, pos: np.ndarray) -> np.ndarray:
        return self.raw[pos]

    def varint(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(value, position after it) of the varint at each position."""
        raw = self.raw
        b0 = raw[pos].astype(np.int64)
        short = b0 < 0x80
        if short.all():  # lengths under 128: one byte each
            return b0, pos + 1
        b1 = raw[pos + 1].astype(np.int64)
        if ((b1 < 0x80) | short).all():  # and under 16384: two
            value = np.where(short, b0, (b0 & 0x7F) | (b1 << 7))
            return value, pos + 2 - short
        b = raw[pos[:, None] + np.arange(_VARINT_BYTES)].astype(np.int64)
        more = b >= 0x80
        size = np.argmin(more, axis=1) + 1
        if (more.all(axis=1)).any():
            raise _Layout
        keep = np.arange(_VARINT_BYTES) < size[:, None]
        value = ((b & 0x7F) << (7 * np.arange(_VARINT_BYTES))) * keep
        return value.sum(axis=1), pos + size

    def expect(self, pos: np.ndarray, tag: int) -> np.ndarray:
        """The position after `tag` at each position (_Layout if one is not there)."""
        if not (self.raw[pos] == tag).all():
            raise _Layout
        return pos + 1


def parse_fixed_dense(
    serialized: Sequence[Any] | np.ndarray, specs: Sequence[Any], raw_rows: Collection[int] = ()
) -> list[np.ndarray] | None:
    """One array per spec (FeatureSpec of a fixed shape), or None for another layout. A
    scalar string feature whose index is in raw_rows comes as a read-only uint8 array
    [records, length] whose rows are its values' bytes, when the values lie at one offset of
    records of one length (no bytes object made per record); otherwise as bytes."""
    # (An array's tolist() takes its items in one C loop: half list()'s time for a batch.)
    one_d = isinstance(serialized, np.ndarray) and serialized.ndim == 1
    records = serialized.tolist() if one_d else list(serialized)  # type: ignore[union-attr]
    if not records or not specs:
        return None
    try:
        lengths = _lengths(records)
        if int(lengths.sum()) > _BIG_RECORD * len(records):
            big = _same_layout_big(records, specs)
            if big is not None:
                return big
        return _parse(records, specs, lengths, raw_rows)
    except (_Layout, IndexError, TypeError):  # TypeError: a record that is not bytes
        return None


def _lengths(records: Sequence[bytes]) -> np.ndarray:
    return np.fromiter(map(len, records), dtype=np.int64, count=len(records))


def _parse(
    records: list[bytes], specs: Sequence[Any], lengths: np.ndarray, raw_rows: Collection[int]
) -> list[np.ndarray]:
    w = _Wire(records, lengths)
    if any(s.variable or s.dtype not in _TAG for s in specs):
        raise _Layout
    same = _same_layout(w, specs, raw_rows)
    if same is not None:
        return same
    return _walk(w, specs)


# ---- every record laid out as the first one ------------------------------------------------
def _varint_at(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise _Layout
        b = data[pos]
        value |= (b & 0x7F) << shift
        pos += 1
        if b < 0x80:
            return value, pos
        shift += 7


def _layout(
    record: bytes, keys: list[bytes]
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The byte ranges of one record that hold its structure (tags, lengths, keys: all but
    the values' payloads), and the (offset, size) of each wanted feature's Feature
    ((-1, 0): absent)."""
    structure: list[tuple[int, int]] = []
    found = [(-1, 0)] * len(keys)
    if not record or record[0] != 0x0A:
        raise _Layout
    length, pos = _varint_at(record, 1)
    if pos + length != len(record):
        raise _Layout
    structure.append((0, pos))
    while pos < len(record):
        start = pos
        if record[pos] != 0x0A:
            raise _Layout
        entry_len, pos = _varint_at(record, pos + 1)
        entry_end = pos + entry_len
        if record[pos : pos + 1] != b"\n":
            raise _Layout
        key_len, pos = _varint_at(record, pos + 1)
        key = record[pos : pos + key_len]
        pos += key_len
        if record[pos : pos + 1] != b"\x12":
            raise _Layout
        value_len, pos = _varint_at(record, pos + 1)
        if pos + value_len != entry_end:
            raise _Layout
        structure.append((start, pos))  # through the value's length
        if key in keys:
            k = keys.index(key)
            if found[k][0] >= 0:
                raise _Layout
            found[k] = (pos, value_len)
            structure += _feature_structure(record, pos, entry_end)
        pos = entry_end
    return structure, found


def _feature_structure(record: bytes, pos: int, end: int) -> list[tuple[int, int]]:
    """The structure bytes inside one Feature (its kind and lengths; not the values)."""
    start = pos
    if pos >= end:
        raise _Layout
    kind = record[pos]
    list_len, pos = _varint_at(record, pos + 1)
    if pos + list_len != end:
        raise _Layout
    out = [(start, pos)]
    while pos < end:
        field = pos
        if record[pos] != 0x0A:
            raise _Layout  # not packed / not a bytes value
        n, pos = _varint_at(record, pos + 1)
        out.append((field, pos))
        pos += n
        if kind != _BYTES_LIST and pos != end:
            raise _Layout
    if pos != end:
        raise _Layout
    return out


class _Template:
    """A layout met before: where each feature is, its structure bytes (as runs of
    consecutive offsets and the bytes there), and readers of the features' values for the
    specs it was read with."""

    __slots__ = ("found", "readers", "runs")

    def __init__(self, found: list[tuple[int, int]], runs: list[tuple[int, int, np.ndarray]]):
        self.found, self.runs = found, runs
        self.readers: dict[tuple[Any, ...], list[_RowReader | None]] = {}

    def matches(self, rows: np.ndarray) -> bool:
        """Whether every row holds the template's structure bytes."""
        return all((rows[:, a:b] == data).all() for a, b, data in self.runs)

    def readers_for(self, first: bytes, specs: Sequence[Any]) -> list[_RowReader | None]:
        """One per spec: a reader of its values from the batch's rows (None where
        _same_place_column reads it)."""
        key = tuple((s.dtype, s.shape) for s in specs)
        readers = self.readers.get(key)
        if readers is None:
            readers = self.readers[key] = [
                _row_reader(first, spec, at, at + size) if at >= 0 else None
                for spec, (at, size) in zip(specs, self.found)
            ]
        return readers


# Readers of one feature's values straight from the [records, length] rows of a batch laid
# out as a template: a slice and one conversion.
_RowReader = Callable[[np.ndarray], np.ndarray]
# The layouts of recent batches, by (record length, keys), so that a batch laid out as an
# earlier one is checked against it without walking its first record again.
_TEMPLATES: dict[tuple[int, tuple[bytes, ...]], _Template] = {}
_TEMPLATES_KEPT = 64


def _runs(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Byte ranges with adjacent ones merged: a record's structure bytes lie in a few runs
    (the Example's head and keys, each value's tags and lengths), each compared across the
    batch as one slice of its rows rather than byte by byte through an index."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        elif b > a:
            out.append((a, b))
    return out


def _same_layout(
    w: _Wire, specs: Sequence[Any], raw_rows: Collection[int] = ()
) -> list[np.ndarray] | None:
    """When every record has the first one's length and structure bytes, each feature is at
    the same offset in all of them: one comparison checks the whole batch (against the
    structure bytes of a batch laid out the same way before, when there was one)."""
    if not w.step:
        return None
    first = w.data[: int(w.ends[0])]
    keys = tuple(s.key.encode() for s in specs)
    cache_key = (len(first), keys)
    rows = w.rows()
    cached = _TEMPLATES.get(cache_key)
    if cached is not None and not cached.matches(rows):
        cached = None  # another layout: learn it from this batch's first record
    if cached is None:
        try:
            structure, found = _layout(first, list(keys))
        except _Layout:
            return None
        template = _Template(found, [(a, b, rows[0, a:b].copy()) for a, b in _runs(structure)])
        if not template.matches(rows):
            return None
        if len(_TEMPLATES) >= _TEMPLATES_KEPT:
            _TEMPLATES.clear()
        cached = _TEMPLATES[cache_key] = template
    n = len(w.starts)
    out = []
    readers = cached.readers_for(first, specs)
    for j, (spec, reader, (offset, size)) in enumerate(zip(specs, readers, cached.found)):
        try:
            if isinstance(reader, _BytesReader) and j in raw_rows:
                out.append(reader.rows(rows))
            elif reader is not None:
                out.append(reader(rows))
            elif offset < 0:
                missing = np.full(n, -1, dtype=np.int64)
                out.append(_column(w, spec, missing, np.zeros(n, np.int64)))
            else:
                out.append(_same_place_column(w, first, spec, offset, offset + size))
        except _Layout:
            return None
    return out


class _BytesReader:
    """The reader of a scalar bytes feature whose value is `length` bytes at `off` in every
    row: as bytes, or as the rows' own slice of them."""

    __slots__ = ("length", "off")

    def __init__(self, off: int, length: int) -> None:
        self.off, self.length = off, length

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        # The values as void items of a strided view of the rows (no copy first): a void
        # item becomes bytes (zero bytes and all), numpy makes the objects.
        n, step = rows.shape
        items = np.ndarray((n,), f"V{self.length}", buffer=rows, offset=self.off, strides=(step,))
        column = items.astype(object)
        cut_strings.remember(column, self.rows(rows))
        return column

    def rows(self, rows: np.ndarray) -> np.ndarray:
        return rows[:, self.off : self.off + self.length]


def _row_reader(first: bytes, spec: Any, at: int, end: int) -> _RowReader | None:
    """A reader of the feature whose Feature is at [at, end) of records laid out as `first`,
    for the common kinds: one bytes value, floats, int64s of one byte each (a value of more
    bytes is a _Layout at read time); None for others. The places it reads are structure
    bytes of the template, so they hold for every batch that matches it."""
    size = 1
    for d in spec.fixed_shape:
        size *= d
    shape = spec.fixed_shape
    try:
        if first[at] != _TAG[spec.dtype]:
            return None
        list_len, p = _varint_at(first, at + 1)
        if p + list_len != end:
            return None
        if spec.dtype == dtypes.string:
            places = _bytes_places(first, p, end, size)
            if size != 1 or not places[0][1]:
                return None
            off, length = places[0]
            return _BytesReader(off, length) if not shape else None
        payload, p = _varint_at(first, p + 1)
    except _Layout:
        return None
    if p + payload != end:
        return None
    if spec.dtype == dtypes.float32 and payload == 4 * size:

        def read_floats(rows: np.ndarray) -> np.ndarray:
            raw = np.ascontiguousarray(rows[:, p : p + 4 * size])
            return raw.view("<f4").astype(np.float32).reshape((len(rows), *shape))

        return read_floats
    if spec.dtype == dtypes.int64 and payload == size:

        def read_small_ints(rows: np.ndarray) -> np.ndarray:
            raw = rows[:, p : p + size]
            if (raw >= 0x80).any():
                raise _Layout  # a longer varint: fewer values than the shape wants
            return raw.astype(np.int64).reshape((len(rows), *shape))

        return read_small_ints
    return None


def _same_place_column(w: _Wire, first: bytes, spec: Any, at: int, end: int) -> np.ndarray:
    """A feature whose Feature is at [at, end) of every record, all laid out alike: its
    values are read at the offsets the first record has them at."""
    n = len(w.starts)
    size = 1
    for d in spec.fixed_shape:
        size *= d
    if first[at] != _TAG[spec.dtype]:
        raise _Layout
    list_len, p = _varint_at(first, at + 1)
    if p + list_len != end:
        raise _Layout
    shape = (n, *spec.fixed_shape)
    if spec.dtype == dtypes.string:
        data = w.data
        starts = w.starts.tolist()
        out = np.empty((n, size), dtype=object)
        for j, (off, length) in enumerate(_bytes_places(first, p, end, size)):
            if w.step and length:
                # One value per row of the records' view: numpy makes the bytes objects
                # (a void item becomes bytes, zero bytes and all), no slicing per record.
                values = np.ascontiguousarray(w.rows()[:, off : off + length])
                out[:, j] = values.view(f"V{length}").reshape(n).astype(object)
            else:
                out[:, j] = [data[s + off : s + off + length] for s in starts]
        return out.reshape(shape)
    payload, p = _varint_at(first, p + 1)
    if p + payload != end:
        raise _Layout
    if spec.dtype == dtypes.float32:
        if payload != 4 * size:
            raise _Layout
        if w.step:
            raw = w.rows()[:, p : p + 4 * size]
        else:
            raw = w.raw[(w.starts + p)[:, None] + np.arange(4 * size)]
        return np.ascontiguousarray(raw).view("<f4").astype(np.float32).reshape(shape)
    begin = w.starts + p
    return _int64_values(w, begin, begin + payload, size).reshape(shape)


def _bytes_places(record: bytes, p: int, end: int, size: int) -> list[tuple[int, int]]:
    """(offset, length) of each value of the BytesList whose values start at p."""
    places = []
    while p < end:
        length, value_at = _varint_at(record, p + 1)
        places.append((value_at, length))
        p = value_at + length
    if len(places) != size:
        raise _Layout
    return places


def _same_layout_big(records: list[bytes], specs: Sequence[Any]) -> list[np.ndarray] | None:
    """_same_layout for large records: the structure bytes and the values are sliced out of
    each record, so the payloads are copied once (into the values), not joined first."""
    if any(s.variable or s.dtype not in _TAG for s in specs):
        return None
    first = records[0]
    if any(len(r) != len(first) for r in records):
        return None
    keys = [s.key.encode() for s in specs]
    try:
        structure, found = _layout(first, keys)
    except _Layout:
        return None
    want = b"".join(first[a:b] for a, b in structure)
    for r in records:
        if b"".join(r[a:b] for a, b in structure) != want:
            return None
    n = len(records)
    out = []
    for spec, (offset, size) in zip(specs, found):
        if offset < 0:
            if spec.default is None:
                return None
            np_dtype = object if spec.dtype == dtypes.string else spec.dtype.as_numpy_dtype
            column = np.empty((n, spec.default.size), dtype=np_dtype)
            column[:] = spec.default.reshape(-1)
            out.append(column.reshape((n, *spec.fixed_shape)))
            continue
        try:
            if spec.dtype == dtypes.string:
                count = int(np.prod(spec.fixed_shape, dtype=np.int64))
                if first[offset] != _BYTES_LIST:
                    return None
                list_len, p = _varint_at(first, offset + 1)
                if p + list_len != offset + size:
                    return None
                column = np.empty((n, count), dtype=object)
                for j, (o, length) in enumerate(_bytes_places(first, p, offset + size, count)):
                    column[:, j] = [r[o : o + length] for r in records]
                out.append(column.reshape((n, *spec.fixed_shape)))
            else:
                # Numbers are small: their Features are read as a batch of their own.
                pieces = [r[offset : offset + size] for r in records]
                out.append(_same_place_column(_Wire(pieces), pieces[0], spec, 0, size))
        except _Layout:
            return None
    return out


# ---- the general walk ----------------------------------------------------------------------
def _walk(w: _Wire, specs: Sequence[Any]) -> list[np.ndarray]:
    n = len(w.starts)
    starts, ends = w.starts, w.ends
    if (ends == starts).any():
        raise _Layout  # an empty Example has no features at all
    pos = w.expect(starts, 0x0A)  # Example.features
    length, pos = w.varint(pos)
    if not (pos + length == ends).all():
        raise _Layout
    keys = [s.key.encode() for s in specs]
    found = [np.full(n, -1, dtype=np.int64) for _ in specs]  # Feature value position
    found_len = [np.zeros(n, dtype=np.int64) for _ in specs]
    live = np.flatnonzero(pos < ends)
    while live.size:
        p = w.expect(pos[live], 0x0A)  # a map entry
        entry_len, p = w.varint(p)
        entry_end = p + entry_len
        p = w.expect(p, 0x0A)  # its key
        key_len, p = w.varint(p)
        key_at = p
        p = p + key_len
        p = w.expect(p, 0x12)  # its value, a Feature
        value_len, p = w.varint(p)
        if not (p + value_len == entry_end).all():
            raise _Layout
        for k, hit in _matches(w, keys, key_at, key_len):
            rows = live[hit]
            if (found[k][rows] >= 0).any():
                raise _Layout  # a key twice: protobuf keeps the last one
            found[k][rows] = p[hit]
            found_len[k][rows] = value_len[hit]
        pos[live] = entry_end
        live = live[entry_end < ends[live]]
    return [_column(w, spec, found[k], found_len[k]) for k, spec in enumerate(specs)]


def _matches(
    w: _Wire, keys: list[bytes], key_at: np.ndarray, key_len: np.ndarray
) -> list[tuple[int, np.ndarray]]:
    """(spec index, rows whose key is that spec's) for the keys read at one entry."""
    width = int(key_len[0])
    if (key_len == width).all():
        got = w.raw[key_at[:, None] + np.arange(width)]
        if (got == got[0]).all():
            # The usual case: every example has the same key at this entry.
            key = w.data[int(key_at[0]) : int(key_at[0]) + width]
            return [
                (k, np.ones(len(key_at), dtype=bool)) for k, want in enumerate(keys) if want == key
            ]
    out = []
    for k, key in enumerate(keys):
        hit = key_len == len(key)
        if hit.any():
            cand = np.flatnonzero(hit)
            got = w.raw[key_at[cand, None] + np.arange(len(key))]
            same = (got == np.frombuffer(key, dtype=np.uint8)).all(axis=1)
            hit = np.zeros_like(hit)
            hit[cand[same]] = True
            if hit.any():
                out.append((k, hit))
    return out


def _column(w: _Wire, spec: Any, at: np.ndarray, length: np.ndarray) -> np.ndarray:
    n = len(at)
    size = 1
    for d in spec.fixed_shape:
        size *= d
    missing = at < 0
    present = np.flatnonzero(~missing)
    if missing.any() and (spec.default is None or spec.default.size != size):
        raise _Layout
    values = _values(w, spec, at[present], length[present], size) if present.size else None
    shape = (n, *spec.fixed_shape)
    if not missing.any():
        assert values is not None
        return values.reshape(shape)
    np_dtype = object if spec.dtype == dtypes.string else spec.dtype.as_numpy_dtype
    out = np.empty((n, size), dtype=np_dtype)
    out[missing] = spec.default.reshape(-1)
    if values is not None:
        out[present] = values
    return out.reshape(shape)


def _values(w: _Wire, spec: Any, at: np.ndarray, length: np.ndarray, size: int) -> np.ndarray:
    """(rows, size) values of the Features at `at` (each `length` bytes long)."""
    p = w.expect(at, _TAG[spec.dtype])
    list_len, p = w.varint(p)
    if not (p + list_len == at + length).all():
        raise _Layout
    if spec.dtype == dtypes.string:
        return _bytes_values(w, p, p + list_len, size)
    p = w.expect(p, 0x0A)  # the packed values
    payload, p = w.varint(p)
    if not (p + payload == at + length).all():
        raise _Layout
    if spec.dtype == dtypes.float32:
        if not (payload == 4 * size).all():
            raise _Layout
        raw = w.raw[p[:, None] + np.arange(4 * size)]
        return np.ascontiguousarray(raw).view("<f4").astype(np.float32).reshape(len(p), size)
    return _int64_values(w, p, p + payload, size)


def _bytes_values(w: _Wire, p: np.ndarray, end: np.ndarray, size: int) -> np.ndarray:
    out = np.empty((len(p), size), dtype=object)
    data = w.data
    for j in range(size):
        p = w.expect(p, 0x0A)
        length, p = w.varint(p)
        stop = p + length
        out[:, j] = [data[a:b] for a, b in zip(p.tolist(), stop.tolist())]
        p = stop
    if not (p == end).all():
        raise _Layout
    return out


def _int64_values(w: _Wire, p: np.ndarray, end: np.ndarray, size: int) -> np.ndarray:
    if size <= _STEPWISE_INT64:
        cols = []
        for _ in range(size):
            value, p = _varint64(w, p)
            cols.append(value)
        if not (p == end).all():
            raise _Layout
        return np.stack(cols, axis=1) if cols else np.zeros((len(p), 0), np.int64)
    from tfcluster.lib.io.example_parser import _varints

    data = w.data
    joined = b"".join(data[a:b] for a, b in zip(p.tolist(), end.tolist()))
    values = _varints(joined)
    if len(values) != len(p) * size:
        raise _Layout
    return values.reshape(len(p), size)


def _varint64(w: _Wire, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int64 values (two's complement varints of up to 10 bytes) at each position."""
    b0 = w.raw[pos]
    if (b0 < 0x80).all():  # small non-negative values (labels, ids): one byte each
        return b0.astype(np.int64), pos + 1
    b = w.raw[pos[:, None] + np.arange(10)].astype(np.uint64)
    more = b >= 0x80
    if more.all(axis=1).any():
        raise _Layout
    size = np.argmin(more, axis=1) + 1
    keep = np.arange(10) < size[:, None]
    shifts = (7 * np.arange(10)).astype(np.uint64)
    value = ((b & np.uint64(0x7F)) << shifts) * keep
    return np.bitwise_or.reduce(value, axis=1).view(np.int64), pos + size
