"""Slices of partitioned tensors: the `shape_and_slices` spec strings of SaveV2/RestoreV2
("10 4 0,5:-"), TensorSliceProto, and the table keys slices are stored under (TensorFlow's
EncodeTensorNameSlice, built from OrderedCode's order-preserving encodings)."""

from __future__ import annotations

from collections.abc import Sequence

from tfcluster.protos import tensor_slice_pb2

# One (start, length) per dimension; length -1 is the whole dimension.
Extents = tuple[tuple[int, int], ...]


def parse_shape_and_slice(spec: str) -> tuple[list[int], Extents] | None:
    """'10 4 0,5:-' -> ([10, 4], ((0, 5), (0, -1))); '' (the whole tensor) -> None."""
    spec = spec.strip()
    if not spec:
        return None
    parts = spec.split(" ")
    ndims = len(parts) - 1
    try:
        shape = [int(p) for p in parts[:ndims]]
        extents: list[tuple[int, int]] = []
        for ext in parts[ndims].split(":"):
            if ext == "-":
                extents.append((0, -1))
            else:
                start, _, length = ext.partition(",")
                extents.append((int(start), int(length)))
    except ValueError:
        raise ValueError(f"Can't parse shape_and_slice spec {spec!r}") from None
    if len(extents) != ndims:
        raise ValueError(f"shape_and_slice spec {spec!r} has {len(extents)} extents, not {ndims}")
    return shape, tuple(extents)


def slice_spec_string(full_shape: Sequence[int], extents: Extents) -> str:
    dims = " ".join(str(d) for d in full_shape)
    parts = ["-" if length < 0 else f"{start},{length}" for start, length in extents]
    return f"{dims} {':'.join(parts)}"


def is_full(full_shape: Sequence[int], extents: Extents) -> bool:
    return all(
        length < 0 or (start == 0 and length == dim)
        for (start, length), dim in zip(extents, full_shape)
    )


def to_proto(extents: Extents) -> tensor_slice_pb2.TensorSliceProto:
    proto = tensor_slice_pb2.TensorSliceProto()
    for start, length in extents:
        ext = proto.extent.add()
        ext.start = start
        if length >= 0:
            ext.length = length
    return proto


def from_proto(proto: tensor_slice_pb2.TensorSliceProto) -> Extents:
    return tuple((e.start, e.length if e.WhichOneof("has_length") else -1) for e in proto.extent)


def index(full_shape: Sequence[int], extents: Extents) -> tuple[slice, ...]:
    """The numpy index of the slice in the full tensor."""
    return tuple(
        slice(0, dim) if length < 0 else slice(start, start + length)
        for (start, length), dim in zip(extents, full_shape)
    )


def _num_increasing(v: int) -> bytes:
    body = v.to_bytes((v.bit_length() + 7) // 8, "big") if v else b""
    return bytes([len(body)]) + body


def _string(s: bytes) -> bytes:
    """Bytes 0x00 and 0xff escaped (as 00 ff and ff 00), then the terminator 00 01."""
    out = bytearray()
    for byte in s:
        out.append(byte)
        if byte == 0x00:
            out.append(0xFF)
        elif byte == 0xFF:
            out.append(0x00)
    return bytes(out) + b"\x00\x01"


# Header bits of the first two bytes of a signed number encoded in n bytes.
_HEADER = [(0, 0), (0x80, 0), (0xC0, 0), (0xE0, 0), (0xF0, 0), (0xF8, 0), (0xFC, 0),
           (0xFE, 0), (0xFF, 0), (0xFF, 0x80), (0xFF, 0xC0)]  # fmt: skip


def _signed_num_increasing(v: int) -> bytes:
    x = ~v if v < 0 else v
    if x < 64:
        return bytes([(0x80 ^ v) & 0xFF])
    n = (x.bit_length() + 7) // 7
    raw = bytearray(v.to_bytes(10, "big", signed=True)[10 - n :])
    raw[0] ^= _HEADER[n][0]
    raw[1] ^= _HEADER[n][1]
    return bytes(raw)


def encode_key(name: str, extents: Extents) -> bytes:
    """The table key a slice of tensor `name` is stored under."""
    out = bytearray(_num_increasing(0))
    out += _string(name.encode())
    out += _num_increasing(len(extents))
    for start, length in extents:
        out += _signed_num_increasing(start)
        out += _signed_num_increasing(length)
    return bytes(out)
