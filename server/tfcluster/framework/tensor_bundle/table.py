"""The sorted string table of a checkpoint's `.index` file: LevelDB's table format, as
TensorFlow's tensorflow/core/lib/io/table_builder writes it.

A table is data blocks of key/value entries (keys sorted bytewise, each key stored as the
bytes it does not share with the previous one, with a full key every `restart_interval`
entries), an empty metaindex block, an index block with one entry per data block (a key
between that block's last key and the next block's first, and the block's offset and size),
and a 48-byte footer holding the two blocks' handles and the table's magic number. Every
block is followed by a type byte (0: stored as is) and the masked crc32c of block + type.
"""

from __future__ import annotations

from collections.abc import Iterator

from tfcluster.framework import errors
from tfcluster.framework.tensor_bundle import checksum
from tfcluster.framework.tensor_bundle.varint import fixed32, get_fixed32, get_varint, put_varint

MAGIC = 0xDB4775248B80FB57
BLOCK_TRAILER_SIZE = 5
MAX_HANDLE_LENGTH = 20  # two varint64s
FOOTER_SIZE = 2 * MAX_HANDLE_LENGTH + 8
NO_COMPRESSION = 0
SNAPPY_COMPRESSION = 1
DEFAULT_BLOCK_SIZE = 262144
DEFAULT_RESTART_INTERVAL = 16


class _BlockBuilder:
    def __init__(self, restart_interval: int) -> None:
        self._restart_interval = restart_interval
        self.reset()

    def reset(self) -> None:
        self._buffer = bytearray()
        self._restarts = [0]
        self._counter = 0
        self._last_key = b""

    @property
    def empty(self) -> bool:
        return not self._buffer

    def size_estimate(self) -> int:
        return len(self._buffer) + 4 * len(self._restarts) + 4

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self._counter < self._restart_interval:
            limit = min(len(self._last_key), len(key))
            while shared < limit and self._last_key[shared] == key[shared]:
                shared += 1
        else:
            self._restarts.append(len(self._buffer))
            self._counter = 0
        put_varint(self._buffer, shared)
        put_varint(self._buffer, len(key) - shared)
        put_varint(self._buffer, len(value))
        self._buffer += key[shared:]
        self._buffer += value
        self._last_key = key
        self._counter += 1

    def finish(self) -> bytes:
        out = bytearray(self._buffer)
        for r in self._restarts:
            out += fixed32(r)
        out += fixed32(len(self._restarts))
        return bytes(out)


def _handle(offset: int, size: int) -> bytes:
    out = bytearray()
    put_varint(out, offset)
    put_varint(out, size)
    return bytes(out)


def shortest_separator(start: bytes, limit: bytes) -> bytes:
    """A short key >= start and < limit (TF's FindShortestSeparator)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i >= n:
        return start  # one is a prefix of the other
    byte = start[i]
    if byte < 0xFF and byte + 1 < limit[i]:
        return start[:i] + bytes([byte + 1])
    return start


def short_successor(key: bytes) -> bytes:
    """A short key >= key (TF's FindShortSuccessor)."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


class TableBuilder:
    """Builds a table in memory from entries added in increasing key order."""

    def __init__(
        self,
        block_size: int = DEFAULT_BLOCK_SIZE,
        restart_interval: int = DEFAULT_RESTART_INTERVAL,
    ) -> None:
        self._block_size = block_size
        self._out = bytearray()
        self._data = _BlockBuilder(restart_interval)
        self._index = _BlockBuilder(1)
        self._last_key: bytes | None = None
        self._pending_handle: bytes | None = None

    def add(self, key: bytes, value: bytes) -> None:
        if self._last_key is not None and key <= self._last_key:
            raise ValueError(f"table keys must be added in increasing order: {key!r}")
        if self._pending_handle is not None:
            assert self._last_key is not None
            self._index.add(shortest_separator(self._last_key, key), self._pending_handle)
            self._pending_handle = None
        self._last_key = key
        self._data.add(key, value)
        if self._data.size_estimate() >= self._block_size:
            self._flush()

    def _flush(self) -> None:
        if self._data.empty:
            return
        self._pending_handle = self._write_block(self._data)

    def _write_block(self, block: _BlockBuilder) -> bytes:
        contents = block.finish()
        block.reset()
        handle = _handle(len(self._out), len(contents))
        kind = bytes([NO_COMPRESSION])
        crc = checksum.value(kind, checksum.value(contents))
        self._out += contents + kind + fixed32(checksum.mask(crc))
        return handle

    def finish(self) -> bytes:
        self._flush()
        metaindex_handle = self._write_block(_BlockBuilder(DEFAULT_RESTART_INTERVAL))
        if self._pending_handle is not None:
            assert self._last_key is not None
            self._index.add(short_successor(self._last_key), self._pending_handle)
            self._pending_handle = None
        index_handle = self._write_block(self._index)
        footer = (metaindex_handle + index_handle).ljust(2 * MAX_HANDLE_LENGTH, b"\0")
        self._out += footer + fixed32(MAGIC & 0xFFFFFFFF) + fixed32(MAGIC >> 32)
        return bytes(self._out)


class _Corrupt(Exception):
    pass


def _read_block(buf: bytes, offset: int, size: int) -> bytes:
    end = offset + size
    if end + BLOCK_TRAILER_SIZE > len(buf):
        raise _Corrupt("truncated block read")
    contents = buf[offset:end]
    kind = buf[end]
    stored = get_fixed32(buf, end + 1)
    actual = checksum.value(buf[end : end + 1], checksum.value(contents))
    if checksum.unmask(stored) != actual:
        raise _Corrupt("block checksum mismatch")
    if kind == SNAPPY_COMPRESSION:
        raise _Corrupt("snappy-compressed blocks are not supported (TF writes none since 1.2)")
    if kind != NO_COMPRESSION:
        raise _Corrupt(f"bad block type {kind}")
    return contents


def _block_entries(block: bytes) -> Iterator[tuple[bytes, bytes]]:
    if len(block) < 4:
        raise _Corrupt("bad block contents")
    num_restarts = get_fixed32(block, len(block) - 4)
    limit = len(block) - 4 - 4 * num_restarts
    if limit < 0:
        raise _Corrupt("bad block contents")
    pos = 0
    key = b""
    while pos < limit:
        try:
            shared, pos = get_varint(block, pos, limit)
            non_shared, pos = get_varint(block, pos, limit)
            value_len, pos = get_varint(block, pos, limit)
        except ValueError:
            raise _Corrupt("bad entry in block") from None
        if shared > len(key) or pos + non_shared + value_len > limit:
            raise _Corrupt("bad entry in block")
        key = key[:shared] + block[pos : pos + non_shared]
        pos += non_shared
        yield key, block[pos : pos + value_len]
        pos += value_len


def _decode_handle(value: bytes) -> tuple[int, int]:
    try:
        offset, pos = get_varint(value, 0)
        size, _ = get_varint(value, pos)
    except ValueError:
        raise _Corrupt("bad block handle") from None
    return offset, size


def read_table(buf: bytes, filename: str) -> list[tuple[bytes, bytes]]:
    """Every entry of the table in `buf`, in key order; a damaged table is DataLossError."""
    try:
        if len(buf) < FOOTER_SIZE:
            raise _Corrupt("file is too short to be an sstable")
        footer = buf[-FOOTER_SIZE:]
        magic = get_fixed32(footer, FOOTER_SIZE - 8) | (get_fixed32(footer, FOOTER_SIZE - 4) << 32)
        if magic != MAGIC:
            raise _Corrupt("not an sstable (bad magic number)")
        _, pos = get_varint(footer, 0)  # the metaindex handle (TF's tables have no filter)
        _, pos = get_varint(footer, pos)
        index_offset, pos = get_varint(footer, pos)
        index_size, _ = get_varint(footer, pos)
        index = _read_block(buf, index_offset, index_size)
        entries: list[tuple[bytes, bytes]] = []
        for _, handle in _block_entries(index):
            offset, size = _decode_handle(handle)
            entries.extend(_block_entries(_read_block(buf, offset, size)))
    except (_Corrupt, ValueError) as e:
        raise errors.DataLossError(
            None, None, f"Unable to read checkpoint index {filename}: {e or 'corrupt table'}"
        ) from None
    return entries
