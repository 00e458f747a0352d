"""16-bit colour PNGs, which Pillow reads only at 8 bits: the image data inflated with zlib
and its rows unfiltered here (PNG's five filters; Avg and Paeth depend on the pixel to their
left, so those rows go one pixel at a time, every channel at once)."""

from __future__ import annotations

import struct
import zlib

import numpy as np

_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    out = []
    pos = 8
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        out.append((kind, data[pos + 8 : pos + 8 + length]))
        pos += 12 + length
        if kind == b"IEND":
            break
    return out


def _paeth(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def _unfilter(kind: int, raw: np.ndarray, prev: np.ndarray, bpp: int) -> np.ndarray:
    if kind == 0:
        return raw
    if kind == 2:
        return (raw + prev) & 0xFF
    if kind == 1:
        lanes = raw.reshape(-1, bpp)
        return (np.cumsum(lanes, axis=0) & 0xFF).reshape(-1)
    if kind not in (3, 4):
        raise ValueError(f"unknown PNG filter type {kind}")
    out = np.empty_like(raw)
    left = np.zeros(bpp, np.int64)
    upleft = np.zeros(bpp, np.int64)
    for start in range(0, raw.size, bpp):
        up = prev[start : start + bpp]
        if kind == 3:
            pred = (left + up) // 2
        else:
            pred = _paeth(left, up, upleft)
        left = (raw[start : start + bpp] + pred) & 0xFF
        out[start : start + bpp] = left
        upleft = up
    return out


def decode_png_rows(data: bytes) -> np.ndarray:
    """[height, width, channels] uint16 pixels of a non-interlaced 16-bit gray/colour PNG."""
    chunks = _chunks(data)
    if not chunks or chunks[0][0] != b"IHDR":
        raise ValueError("PNG without IHDR")
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if depth != 16 or color not in _CHANNELS:
        raise ValueError(f"not a 16-bit gray/colour PNG (depth {depth}, colour type {color})")
    if interlace:
        raise ValueError("interlaced 16-bit PNGs are not supported")
    channels = _CHANNELS[color]
    stream = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    stride = width * channels * 2
    rows = np.frombuffer(stream, np.uint8)[: height * (stride + 1)].reshape(height, stride + 1)
    out = np.empty((height, stride), np.int64)
    prev = np.zeros(stride, np.int64)
    for y in range(height):
        prev = _unfilter(int(rows[y, 0]), rows[y, 1:].astype(np.int64), prev, channels * 2)
        out[y] = prev
    pixels = out.astype(np.uint8).reshape(height, width * channels, 2)
    values = (pixels[..., 0].astype(np.uint16) << 8) | pixels[..., 1]
    return values.reshape(height, width, channels)
