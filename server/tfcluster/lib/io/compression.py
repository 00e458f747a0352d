"""ZLIB and GZIP streams as TensorFlow writes and reads them (tf.io.TFRecordOptions' zlib
settings), for TFRecord files and tf.io.decode_compressed."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import BinaryIO

from tfcluster.framework import errors

NONE = ""
ZLIB = "ZLIB"
GZIP = "GZIP"
KINDS = (NONE, ZLIB, GZIP)


@dataclass(frozen=True)
class ZlibSettings:
    """TF's ZlibCompressionOptions; window_bits is the raw zlib value (8..15): the stream
    kind adds the GZIP wrapper."""

    compression_level: int = zlib.Z_DEFAULT_COMPRESSION
    window_bits: int = zlib.MAX_WBITS
    mem_level: int = 9
    compression_strategy: int = zlib.Z_DEFAULT_STRATEGY
    flush_mode: int = zlib.Z_NO_FLUSH

    def wbits(self, kind: str) -> int:
        return self.window_bits + 16 if kind == GZIP else self.window_bits


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise errors.InvalidArgumentError(
            None, None, f"Unsupported compression_type: {kind!r} (expected '', 'ZLIB' or 'GZIP')"
        )
    return kind


class InflatingReader:
    """A read-only binary stream of the uncompressed bytes of a ZLIB or GZIP file. Several
    concatenated GZIP members read as one stream, as gzip itself does."""

    def __init__(self, raw: BinaryIO, kind: str, path: str, chunk: int = 1 << 20) -> None:
        self._raw = raw
        self._kind = kind
        self._path = path
        self._chunk = chunk
        self._wbits = ZlibSettings().wbits(kind)
        self._inflater = zlib.decompressobj(self._wbits)
        self._pending = b""
        self._raw_eof = False

    def _inflate(self, data: bytes) -> bytes:
        try:
            out = self._inflater.decompress(data)
            while self._inflater.eof and self._inflater.unused_data:
                rest = self._inflater.unused_data
                self._inflater = zlib.decompressobj(self._wbits)
                out += self._inflater.decompress(rest)
        except zlib.error as e:
            raise errors.DataLossError(
                None, None, f"{self._path}: corrupt {self._kind} compressed data ({e})"
            ) from None
        return out

    def read(self, n: int) -> bytes:
        """Up to n bytes; fewer only at the end of the stream."""
        parts = [self._pending] if self._pending else []
        have = len(self._pending)
        while have < n and not self._raw_eof:
            data = self._raw.read(self._chunk)
            if not data:
                self._raw_eof = True
                break
            out = self._inflate(data)
            if out:
                parts.append(out)
                have += len(out)
        joined = b"".join(parts)
        self._pending = joined[n:]
        return joined[:n]

    def close(self) -> None:
        self._raw.close()


class DeflatingWriter:
    """A write-only binary stream that compresses into `raw` (ZLIB or GZIP)."""

    def __init__(self, raw: BinaryIO, kind: str, settings: ZlibSettings) -> None:
        self._raw = raw
        self._flush_mode = settings.flush_mode
        self._deflater = zlib.compressobj(
            settings.compression_level,
            zlib.DEFLATED,
            settings.wbits(kind),
            settings.mem_level,
            settings.compression_strategy,
        )

    def write(self, data: bytes) -> None:
        self._raw.write(self._deflater.compress(data))
        if self._flush_mode != zlib.Z_NO_FLUSH:
            self._raw.write(self._deflater.flush(self._flush_mode))

    def flush(self) -> None:
        self._raw.write(self._deflater.flush(zlib.Z_SYNC_FLUSH))
        self._raw.flush()

    def close(self) -> None:
        self._raw.write(self._deflater.flush(zlib.Z_FINISH))
        self._raw.close()


def decompress(data: bytes, kind: str) -> bytes:
    """The whole uncompressed content of `data` ('' returns it unchanged)."""
    if kind == NONE:
        return data
    reader = zlib.decompressobj(ZlibSettings().wbits(kind))
    try:
        out = reader.decompress(data)
        while reader.eof and reader.unused_data:
            rest = reader.unused_data
            reader = zlib.decompressobj(ZlibSettings().wbits(kind))
            out += reader.decompress(rest)
    except zlib.error as e:
        raise errors.DataLossError(None, None, f"corrupt {kind} compressed data: {e}") from None
    if not reader.eof:
        raise errors.DataLossError(None, None, f"truncated {kind} compressed data")
    return out
