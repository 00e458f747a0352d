"""crc32c as TensorFlow stores it: masked, so that a checksum of data holding checksums
stays well distributed (LevelDB's rotate-and-add)."""

from __future__ import annotations

import crc32c as _crc32c

_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF


def value(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """crc32c of `data`, extending `crc` (the crc of the bytes before it)."""
    return _crc32c.crc32c(data, value=crc)


def mask(crc: int) -> int:
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & _U32


def unmask(masked: int) -> int:
    rot = (masked - _MASK_DELTA) & _U32
    return ((rot >> 17) | (rot << 15)) & _U32
