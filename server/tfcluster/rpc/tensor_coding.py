"""numpy <-> raw bytes for RPCs, and the framing that keeps tensor bytes out of protobuf.

A message that carries tensors describes them with TensorMeta entries and holds their bytes,
concatenated, in its field 15 (`tensor_payload`). We write that field FIRST:

    0x7a <varint length> <tensor bytes ...> <the other fields, serialized by protobuf>

which is still a valid protobuf encoding of the same message (fields may come in any order),
so any protobuf client can talk to us; but a receiver finds the tensor bytes at a fixed offset
and wraps them with np.frombuffer without copying, and a sender copies each tensor once (the
join). Large payloads go over a stream: the first message holds all fields and a first chunk,
the following ones only more tensor_payload bytes, which the receiver copies into one
preallocated, writable buffer as they arrive.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np
from google.protobuf.message import DecodeError

from tfcluster.framework import dtypes, errors, memory_budget, tensor_util
from tfcluster.protos import named_tensor_pb2, tensor_pb2
from tfcluster.rpc import shm

PAYLOAD_TAG = 0x7A  # field 15, wire type 2 (length-delimited)
_TAG_BYTES = bytes([PAYLOAD_TAG])
# Payloads at least this big go over the streaming RPCs (gRPC moves big single messages slowly).
STREAM_THRESHOLD = 1 << 20
CHUNK_BYTES = 2 << 20

M = TypeVar("M")


def _physical_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 1 << 40


# A request may not make us allocate more than this for its tensors.
MAX_PAYLOAD_BYTES = _physical_memory()

_UNSENDABLE = {0, dtypes.resource.as_datatype_enum}
_VARIANT = dtypes.variant.as_datatype_enum


# ---- encoding ------------------------------------------------------------------------------
def fill_meta(
    meta: named_tensor_pb2.TensorMeta,
    value: Any,
    shm_ok: bool = False,
    shm_min: int = shm.THRESHOLD,
) -> list[Any]:
    """Describes `value` in `meta`; returns the buffers that hold its bytes (no copies). With
    `shm_ok` (the receiver shares our /dev/shm) a tensor of `shm_min` bytes or more goes to a
    shared-memory file (shm.min_size: smaller over TLS)."""
    arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    if arr.dtype.kind in ("O", "U", "S"):
        if tensor_util.holds_tensors(arr):
            return _fill_variant_meta(meta, arr)
        return _fill_string_meta(meta, arr)
    enum = _ENUM_BY_NP.get(arr.dtype)
    if enum is None:
        try:
            enum = _ENUM_BY_NP[arr.dtype] = dtypes.as_dtype(arr.dtype).as_datatype_enum
        except TypeError:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot send a tensor of numpy dtype {arr.dtype}: no TensorFlow dtype"
            ) from None
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    meta.dtype = enum
    meta.dim.extend(arr.shape)
    meta.content_length = arr.nbytes
    if arr.nbytes == 0:
        return []
    if shm_ok and arr.nbytes >= shm_min:
        exported = shm.export(arr)
        if exported is not None:
            meta.shm_name, meta.shm_key = exported
            return []
    return [arr.data.cast("B")]


def _string_bytes(x: Any) -> bytes:
    if isinstance(x, str):
        return x.encode()
    if isinstance(x, (bytes, bytearray, memoryview, np.bytes_)):
        return bytes(x)
    # A resource (an iterator, a queue, a variable's handle) lives in its task: it has no bytes
    # to send.
    raise errors.InvalidArgumentError(
        None,
        None,
        f"Cannot send a value of type {type(x).__name__} between processes: only tensors of "
        "TensorFlow dtypes travel (a resource handle stays in the task that holds it)",
    )


def _fill_string_meta(meta: named_tensor_pb2.TensorMeta, arr: np.ndarray) -> list[Any]:
    flat = [_string_bytes(x) for x in arr.reshape(-1)]
    meta.dtype = dtypes.string.as_datatype_enum
    meta.dim.extend(arr.shape)
    meta.string_length.extend(len(x) for x in flat)
    data = b"".join(flat)
    meta.content_length = len(data)
    return [data] if data else []


def _tensor_bytes(x: Any) -> bytes:
    if not isinstance(x, np.ndarray):
        return _string_bytes(x)  # its error: what cannot travel
    return tensor_util.held_tensor(x).SerializeToString()


def _fill_variant_meta(meta: named_tensor_pb2.TensorMeta, arr: np.ndarray) -> list[Any]:
    """Each element as a serialized TensorProto, as TF encodes a variant holding a tensor."""
    flat = [_tensor_bytes(x) for x in arr.reshape(-1)]
    meta.dtype = dtypes.variant.as_datatype_enum
    meta.dim.extend(arr.shape)
    meta.string_length.extend(len(x) for x in flat)
    data = b"".join(flat)
    meta.content_length = len(data)
    return [data] if data else []


def fill_named(
    field: Any,
    names: Iterable[str],
    values: Iterable[Any],
    shm_ok: bool = False,
    shm_min: int = shm.THRESHOLD,
) -> list[Any]:
    """Appends a NamedTensorMeta per (name, value) to the repeated `field`; returns buffers."""
    buffers: list[Any] = []
    for name, value in zip(names, values):
        entry = field.add()
        entry.name = name
        buffers.extend(fill_meta(entry.tensor, value, shm_ok, shm_min))
    return buffers


def payload_size(buffers: Sequence[Any]) -> int:
    return sum(len(b) if isinstance(b, bytes) else b.nbytes for b in buffers)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def frame(header: bytes, buffers: Sequence[Any]) -> bytes:
    """One message: the payload field first, then the serialized other fields."""
    if not buffers:
        return header
    total = payload_size(buffers)
    return b"".join([_TAG_BYTES, _varint(total), *buffers, header])


class Pieces(list[Any]):
    """One message held as several buffers (not joined): a direct stream writes them with one
    scatter-gather system call; anything else joins them first (see `joined`)."""


def joined(msg: Any) -> Any:
    return b"".join(msg) if isinstance(msg, Pieces) else msg


def frame_stream(
    header: bytes, buffers: Sequence[Any], chunk: int = CHUNK_BYTES, scatter: bool = False
) -> Iterator[Any]:
    """The same message split for a streaming RPC: chunks of at most `chunk` payload bytes.
    With `scatter`, each chunk is Pieces viewing the tensors (no copy) instead of bytes."""
    pieces: list[Any] = []
    size = 0
    first = True

    def message() -> Any:
        parts = Pieces([_TAG_BYTES, _varint(size), *pieces])
        if first:
            parts.append(header)
        return parts if scatter else b"".join(parts)

    for buf in buffers:
        view = memoryview(buf).cast("B") if not isinstance(buf, bytes) else memoryview(buf)
        pos = 0
        while pos < len(view):
            take = min(chunk - size, len(view) - pos)
            pieces.append(view[pos : pos + take])
            size += take
            pos += take
            if size == chunk:
                yield message()
                first = False
                pieces, size = [], 0
    if size:
        yield message()
    elif first:
        yield header


# ---- decoding ------------------------------------------------------------------------------
def split(data: Any) -> tuple[memoryview, memoryview]:
    """(other fields, payload) of a framed message; payload is empty if it is not first."""
    view = memoryview(data)
    if not len(view) or view[0] != PAYLOAD_TAG:
        return view, view[:0]
    length, pos = read_varint(view, 1)
    end = pos + length
    if end > len(view):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Truncated message: tensor_payload says {length} bytes, {len(view) - pos} present",
        )
    return view[end:], view[pos:end]


def read_varint(view: memoryview, pos: int) -> tuple[int, int]:
    """(value, position after it) of the protobuf varint at `pos`."""
    value = 0
    shift = 0
    while True:
        if pos >= len(view) or shift > 63:
            raise errors.InvalidArgumentError(None, None, "Malformed message: bad varint")
        byte = view[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def parse(cls: Callable[[Any], M], data: Any, what: str) -> M:
    """cls.FromString, with a clear InvalidArgumentError for malformed bytes."""
    try:
        return cls(data)
    except Exception as e:  # DecodeError, and RuntimeError for bad nesting in upb
        raise errors.InvalidArgumentError(
            None, None, f"Malformed {what}: {type(e).__name__}: {e}"
        ) from None


def payload_of(msg: Any, payload: memoryview) -> memoryview:
    """The tensor bytes, also when a plain protobuf client put tensor_payload elsewhere."""
    if not len(payload) and msg.tensor_payload:
        return memoryview(msg.tensor_payload)
    return payload


# Every message looks these up for each tensor: remembered once per DataType / numpy dtype.
_NP_BY_ENUM: dict[int, np.dtype[Any] | None] = {}
_ENUM_BY_NP: dict[np.dtype[Any], int] = {}


def _np_dtype(meta: named_tensor_pb2.TensorMeta) -> np.dtype[Any] | None:
    """numpy dtype for a numeric meta, None for strings; InvalidArgument for the rest."""
    enum = meta.dtype
    try:
        return _NP_BY_ENUM[enum]
    except KeyError:
        found = _np_dtype_of(enum)
        _NP_BY_ENUM[enum] = found
        return found


def _np_dtype_of(enum: int) -> np.dtype[Any] | None:
    if enum in _UNSENDABLE or enum >= 100:
        raise errors.InvalidArgumentError(None, None, f"Cannot receive a tensor of DataType {enum}")
    try:
        dtype = dtypes.as_dtype(enum)
    except TypeError:
        raise errors.InvalidArgumentError(None, None, f"Unknown DataType {enum}") from None
    if dtype is dtypes.string or dtype is dtypes.variant:
        return None  # elements of their own lengths
    return np.dtype(dtype.as_numpy_dtype)


def _num_elements(meta: named_tensor_pb2.TensorMeta) -> int:
    for d in meta.dim:
        if d < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Tensor dimension {d} is negative: shape {list(meta.dim)}"
            )
    return math.prod(meta.dim)


def expected_bytes(meta: named_tensor_pb2.TensorMeta) -> int:
    """Validates a meta's dtype/shape/length; returns its content length."""
    n = _num_elements(meta)
    np_dtype = _np_dtype(meta)
    if np_dtype is None:
        if len(meta.string_length) != n:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"String tensor of shape {list(meta.dim)} has "
                f"{len(meta.string_length)} element lengths",
            )
        if any(x < 0 for x in meta.string_length) or sum(meta.string_length) != (
            meta.content_length
        ):
            raise errors.InvalidArgumentError(
                None, None, "String tensor's element lengths do not add up to its content"
            )
    elif n * np_dtype.itemsize != meta.content_length:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Tensor of shape {list(meta.dim)} and dtype {np_dtype} needs "
            f"{n * np_dtype.itemsize} bytes, the message says {meta.content_length}",
        )
    return int(meta.content_length)


def check_total(metas: Sequence[named_tensor_pb2.TensorMeta]) -> int:
    """Validates every description; returns the bytes they take in tensor_payload."""
    total = sum(expected_bytes(m) for m in metas if not m.shm_name)
    for m in metas:
        if m.shm_name:
            expected_bytes(m)
            if _np_dtype(m) is None:
                raise errors.InvalidArgumentError(
                    None, None, "String tensors do not travel in shared memory"
                )
    if total > MAX_PAYLOAD_BYTES:
        raise errors.ResourceExhaustedError(
            None,
            None,
            f"Tensors of {total} bytes requested; this task accepts at most "
            f"{MAX_PAYLOAD_BYTES} bytes per message",
        )
    memory_budget.check(total, "the tensors of a message")
    return total


def decode(metas: Sequence[named_tensor_pb2.TensorMeta], payload: memoryview) -> list[Any]:
    """Arrays for `metas`, viewing `payload` (read-only if payload is)."""
    total = check_total(metas)
    if total != len(payload):
        raise errors.InvalidArgumentError(
            None, None, f"Tensor payload has {len(payload)} bytes, the tensors need {total}"
        )
    return decode_checked(metas, payload)


def decode_checked(metas: Sequence[named_tensor_pb2.TensorMeta], payload: memoryview) -> list[Any]:
    """decode() of what read_frame or read_head gave: they validated the descriptions and
    sized the payload already (each check reads every field of every description again)."""
    out: list[Any] = []
    offset = 0
    for meta in metas:
        np_dtype = _np_dtype(meta)
        size = int(meta.content_length)
        shape = tuple(meta.dim)
        if meta.shm_name:
            assert np_dtype is not None  # checked by check_total
            out.append(shm.load(meta.shm_name, meta.shm_key, size, np_dtype, shape))
            continue
        if np_dtype is None:
            strings = _decode_strings(meta, payload[offset : offset + size], shape)
            out.append(_decode_tensors(strings) if meta.dtype == _VARIANT else strings)
        else:
            arr = np.frombuffer(payload, np_dtype, math.prod(shape), offset)
            out.append(arr.reshape(shape))
        offset += size
    return out


def _decode_strings(
    meta: named_tensor_pb2.TensorMeta, data: memoryview, shape: tuple[int, ...]
) -> np.ndarray:
    out = np.empty(len(meta.string_length), dtype=object)
    pos = 0
    for i, n in enumerate(meta.string_length):
        out[i] = bytes(data[pos : pos + n])
        pos += n
    return out.reshape(shape)


def _decode_tensors(serialized: np.ndarray) -> np.ndarray:
    """A variant tensor's elements from their serialized TensorProtos."""
    out = np.empty(serialized.shape, dtype=object)
    flat = out.reshape(-1)
    for i, data in enumerate(serialized.reshape(-1)):
        proto = tensor_pb2.TensorProto()
        try:
            proto.ParseFromString(data)
            _check_whole(proto)
            flat[i] = tensor_util.make_ndarray(proto)
        except (DecodeError, TypeError, ValueError, errors.OpError) as e:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot decode element {i} of a variant tensor: {e}"
            ) from None
    return out


def _check_whole(proto: tensor_pb2.TensorProto) -> None:
    """An element must carry every value its shape asks for (as the sender writes them: all
    in tensor_content, strings in string_val): one value may not fill a huge shape."""
    n = math.prod(d.size for d in proto.tensor_shape.dim)
    if proto.dtype == dtypes.string.as_datatype_enum:
        have = len(proto.string_val)
    else:
        itemsize = np.dtype(dtypes.as_dtype(proto.dtype).as_numpy_dtype).itemsize
        have = len(proto.tensor_content) // itemsize if itemsize else 0
        if have * itemsize != len(proto.tensor_content):
            have = -1
    if have != n:
        raise ValueError(f"it holds {have} of the {n} values its shape has")


def read_frame(
    messages: Iterator[bytes],
    parse_header: Callable[[memoryview], M],
    metas_of: Callable[[M], Sequence[named_tensor_pb2.TensorMeta]],
) -> tuple[M, memoryview] | None:
    """Reads one (possibly split) message from a stream: (header, writable payload), or None
    when the stream ended before it. Continuation messages are read as the descriptions say."""
    try:
        first = next(messages)
    except StopIteration:
        return None
    return read_rest(first, messages, parse_header, metas_of)


def read_rest(
    first: Any,
    messages: Iterator[bytes],
    parse_header: Callable[[memoryview], M],
    metas_of: Callable[[M], Sequence[named_tensor_pb2.TensorMeta]],
) -> tuple[M, memoryview]:
    """read_frame of a message whose first part, `first`, was read already."""
    header_view, piece = split(first)
    header = parse_header(header_view)
    total = check_total(metas_of(header))
    if len(piece) == total:
        return header, piece  # the common case: one message, no copy
    buf = np.empty(total, np.uint8)
    view = buf.data
    filled = 0
    # A direct call reads continuation payloads straight into the buffer (no copy here).
    read_into: Callable[[memoryview], int] | None = getattr(messages, "read_payload_into", None)
    while True:
        end = filled + len(piece)
        if end > total:
            raise errors.InvalidArgumentError(
                None, None, f"Message stream carries more than the {total} payload bytes declared"
            )
        view[filled:end] = piece
        filled = end
        if filled == total:
            return header, view
        if read_into is not None:
            filled += read_into(view[filled:])
            piece = view[:0]
            continue
        try:
            msg = next(messages)
        except StopIteration:
            raise errors.InvalidArgumentError(
                None, None, f"Message stream ended after {filled} of {total} payload bytes"
            ) from None
        rest, piece = split(msg)
        if len(rest) or not len(piece):
            raise errors.InvalidArgumentError(
                None, None, "A continuation message of a stream may only carry tensor_payload"
            )


def read_head(
    messages: Iterator[bytes],
    parse_header: Callable[[memoryview], M],
    metas_of: Callable[[M], Sequence[named_tensor_pb2.TensorMeta]],
) -> Forwarded | None:
    """Reads the first message of a (possibly split) message: its header now, the rest of its
    payload as the verbatim continuation messages, to relay or materialize later (in order)."""
    try:
        first = next(messages)
    except StopIteration:
        return None
    header_view, piece = split(first)
    header = parse_header(header_view)
    metas = list(metas_of(header))
    total = check_total(metas)
    if len(piece) > total:
        raise errors.InvalidArgumentError(
            None, None, f"Message carries more than the {total} payload bytes declared"
        )

    return Forwarded(header, metas, piece, total, _Rest(messages, len(piece), total))


class _Rest:
    """The continuation messages of one message, validated as they are read. Thread-safe: a
    relay may read them in one thread while the stream's owner drains them in another."""

    def __init__(self, messages: Iterator[bytes], got: int, total: int) -> None:
        self._messages = messages
        self._got = got
        self._total = total
        self._lock = threading.Lock()

    def __iter__(self) -> _Rest:
        return self

    def __next__(self) -> bytes:
        with self._lock:
            if self._got >= self._total:
                raise StopIteration
            try:
                msg = next(self._messages)
            except StopIteration:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Message stream ended after {self._got} of {self._total} payload bytes",
                ) from None
            head, part = split(msg)
            if len(head) or not len(part):
                raise errors.InvalidArgumentError(
                    None, None, "A continuation message of a stream may only carry tensor_payload"
                )
            self._got += len(part)
            if self._got > self._total:
                raise errors.InvalidArgumentError(
                    None, None, f"Message stream carries more than the {self._total} bytes declared"
                )
            return msg


class Forwarded:
    """A message read up to its header: the payload bytes so far, and the continuation
    messages still to come, verbatim (relayed as they are, or materialized)."""

    def __init__(
        self,
        header: Any,
        metas: list[named_tensor_pb2.TensorMeta],
        first: memoryview,
        total: int,
        rest: Iterator[bytes],
    ) -> None:
        self.header = header
        self.metas = metas
        self.first = first
        self.total = total
        self.rest = rest

    def uses_shm(self) -> bool:
        return any(m.shm_name for m in self.metas)

    @property
    def complete(self) -> bool:
        """All the payload came with the header."""
        return len(self.first) == self.total

    def payload(self) -> memoryview:
        """Every payload byte, in one buffer (copied only if it came in several messages)."""
        if self.complete:
            return self.first
        buf = np.empty(self.total, np.uint8)
        view = buf.data
        view[: len(self.first)] = self.first
        filled = len(self.first)
        for msg in self.rest:
            _, piece = split(msg)
            view[filled : filled + len(piece)] = piece
            filled += len(piece)
        return view

    def materialize(self) -> list[Any]:
        return decode_checked(self.metas, self.payload())

    def signatures(self) -> list[tuple[Any, tuple[int, ...]]]:
        return [(_np_dtype(m) or np.dtype(object), tuple(m.dim)) for m in self.metas]

    def drain(self) -> None:
        for _ in self.rest:
            pass

    def nbytes(self) -> int:
        return sum(m.content_length for m in self.metas)

    def messages(self, header: bytes) -> Iterator[bytes]:
        """The message again, with another header (same tensors, same order): the payload
        that came with the old header is copied, the continuation messages are not."""
        if len(self.first):
            yield b"".join([_TAG_BYTES, _varint(len(self.first)), self.first, header])
        else:
            yield header
        yield from self.rest


def read_stream(
    messages: Iterable[bytes],
    parse_header: Callable[[memoryview], M],
    metas_of: Callable[[M], Sequence[named_tensor_pb2.TensorMeta]],
) -> tuple[M, memoryview]:
    """Reassembles a stream that carries exactly one message."""
    it = iter(messages)
    frame = read_frame(it, parse_header, metas_of)
    if frame is None:
        raise errors.InvalidArgumentError(None, None, "Empty message stream")
    for _ in it:
        raise errors.InvalidArgumentError(
            None, None, "Message stream carries more than the payload bytes declared"
        )
    return frame


def writable(values: list[Any]) -> list[Any]:
    """Copies the arrays that view a read-only buffer (what users get must be writable)."""
    return [v.copy() if isinstance(v, np.ndarray) and not v.flags.writeable else v for v in values]
