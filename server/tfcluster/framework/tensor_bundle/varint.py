"""LEB128 varints and little-endian fixed-width integers, as LevelDB's coding writes them."""

from __future__ import annotations

import struct


def put_varint(out: bytearray, v: int) -> None:
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


def get_varint(
    buf: bytes | bytearray | memoryview, pos: int, limit: int | None = None
) -> tuple[int, int]:
    """(value, next position); ValueError when the varint runs past `limit` or 64 bits."""
    end = len(buf) if limit is None else limit
    result = 0
    shift = 0
    while pos < end and shift <= 63:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
    raise ValueError("bad varint")


def fixed32(v: int) -> bytes:
    return struct.pack("<I", v)


def get_fixed32(buf: bytes | bytearray | memoryview, pos: int) -> int:
    return int(struct.unpack_from("<I", buf, pos)[0])
