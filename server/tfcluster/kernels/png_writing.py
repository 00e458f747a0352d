"""PNG files written as TF 1.15's EncodePng writes them (libpng 1.6 with zlib): byte for byte.

Each row is filtered by the filter libpng's heuristic picks: of None, Sub, Up, Average and
Paeth (in that order, the previous row of the image, zeros above the first), the one whose
filtered bytes have the smallest sum of magnitudes (a byte of 128 or more counted as
256 - byte), the first of equal sums. The filtered rows are deflated with TF's settings (its
compression level, zlib's default 6 for -1, memory level 9) and libpng's (the Z_FILTERED
strategy; a window narrowed to the smallest power of two over the data plus 262 bytes, for
data of at most 16 KiB, and the zlib header's window size then lowered to the data's
size), and the stream is cut into IDAT chunks of 8192 bytes (libpng's buffer). No other
chunks than IHDR, IDAT and IEND.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# libpng's zlib output buffer: one IDAT chunk each time it fills.
IDAT_BYTES = 8192
# TF's png_set_compression_mem_level(MAX_MEM_LEVEL).
MEM_LEVEL = 9
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _filtered(rows: np.ndarray, bpp: int) -> np.ndarray:
    """Every row filtered by the heuristic's choice: (height, 1 + rowbytes) uint8, the filter
    type first."""
    cur = rows.astype(np.int16)
    above = np.zeros_like(cur)
    above[1:] = cur[:-1]
    left = np.zeros_like(cur)
    left[:, bpp:] = cur[:, :-bpp]
    upper_left = np.zeros_like(cur)
    upper_left[:, bpp:] = above[:, :-bpp]
    p = left + above - upper_left
    pa, pb, pc = np.abs(p - left), np.abs(p - above), np.abs(p - upper_left)
    paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, above, upper_left))
    candidates = np.stack(
        [cur, cur - left, cur - above, cur - ((left + above) >> 1), cur - paeth]
    ).astype(np.uint8)  # (5, height, rowbytes), modulo 256
    wide = candidates.astype(np.int64)
    sums = np.where(wide < 128, wide, 256 - wide).sum(axis=2)  # (5, height)
    choice = np.argmin(sums, axis=0)  # the first of equal sums
    height = rows.shape[0]
    out = np.empty((height, rows.shape[1] + 1), np.uint8)
    out[:, 0] = choice
    out[:, 1:] = candidates[choice, np.arange(height)]
    return out


def _window_bits(data_size: int) -> int:
    bits = 15
    half = 1 << (bits - 1)
    if data_size <= 16384:
        while data_size + 262 <= half:
            half >>= 1
            bits -= 1
    return bits


def _narrowed_header(data: bytes, data_size: int) -> bytes:
    """libpng's optimize_cmf: for data of at most 16 KiB, the zlib header's window size
    (CINFO) lowered to the smallest power of two of at least the data's size, and its check
    bits made again (the stream is deflated with a wider window than that)."""
    cmf = data[0]
    if data_size > 16384 or cmf & 0x0F != 8 or cmf & 0xF0 > 0x70:
        return data
    cinfo = cmf >> 4
    half = 1 << (cinfo + 7)
    if data_size > half:
        return data
    while True:
        half >>= 1
        cinfo -= 1
        if not (cinfo > 0 and data_size <= half):
            break
    cmf = (cinfo << 4) | 8
    flg = data[1] & 0xE0
    flg += 0x1F - ((cmf << 8) + flg) % 0x1F
    return bytes([cmf, flg]) + data[2:]


def encode(image: np.ndarray, level: int) -> bytes:
    """The PNG of an (height, width, channels) uint8 or uint16 image, 1 to 4 channels, at a
    zlib level from 0 to 9."""
    height, width, channels = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    samples = image.astype(">u2") if depth == 16 else image.astype(np.uint8, copy=False)
    rows = np.ascontiguousarray(samples).reshape(height, -1).view(np.uint8)
    bpp = channels * depth // 8
    raw = _filtered(rows, bpp).tobytes() if height and width else b""
    rowbytes = width * bpp
    packer = zlib.compressobj(
        level,
        zlib.DEFLATED,
        _window_bits((rowbytes + 1) * height),
        MEM_LEVEL,
        zlib.Z_FILTERED,
    )
    data = _narrowed_header(packer.compress(raw) + packer.flush(), (rowbytes + 1) * height)
    header = struct.pack(">IIBBBBB", width, height, depth, _COLOR_TYPES[channels], 0, 0, 0)
    parts = [PNG_MAGIC, _chunk(b"IHDR", header)]
    parts += [_chunk(b"IDAT", data[i : i + IDAT_BYTES]) for i in range(0, len(data), IDAT_BYTES)]
    parts.append(_chunk(b"IEND", b""))
    return b"".join(parts)
