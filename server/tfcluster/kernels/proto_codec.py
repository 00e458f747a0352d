"""DecodeProtoV2 / EncodeProto: fields of protobuf messages to tensors and back, through the
protobuf library's descriptors (CPU only).

Message types come from the process's descriptor pool ('local://': every message tfcluster
or the program has imported; TF's `tensorflow.X` names find tfcluster's own copies, which keep
TF's field numbers) or from a FileDescriptorSet file given as descriptor_source."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import Any

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError

from tfcluster.framework import dtypes, errors
from tfcluster.kernels.common import Compute, host_array, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel

_FD = FieldDescriptor
# Field type -> the tensor dtypes its values may be read as (TF's CheckOutputType; tfcluster
# has no uint32/uint64 tensors, so unsigned fields read as int64 only).
_ALLOWED = {
    _FD.TYPE_DOUBLE: (dtypes.float64,),
    _FD.TYPE_FLOAT: (dtypes.float32, dtypes.float64),
    _FD.TYPE_INT64: (dtypes.int64,),
    _FD.TYPE_SINT64: (dtypes.int64,),
    _FD.TYPE_SFIXED64: (dtypes.int64,),
    _FD.TYPE_UINT64: (dtypes.int64,),
    _FD.TYPE_FIXED64: (dtypes.int64,),
    _FD.TYPE_INT32: (dtypes.int32, dtypes.int64),
    _FD.TYPE_SINT32: (dtypes.int32, dtypes.int64),
    _FD.TYPE_SFIXED32: (dtypes.int32, dtypes.int64),
    _FD.TYPE_UINT32: (dtypes.int64,),
    _FD.TYPE_FIXED32: (dtypes.int64,),
    _FD.TYPE_ENUM: (dtypes.int32,),
    _FD.TYPE_BOOL: (dtypes.bool_,),
    _FD.TYPE_STRING: (dtypes.string,),
    _FD.TYPE_BYTES: (dtypes.string,),
    _FD.TYPE_MESSAGE: (dtypes.string,),
    _FD.TYPE_GROUP: (dtypes.string,),
}
_NESTED = (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@functools.cache
def _file_pool(path: str) -> descriptor_pool.DescriptorPool:
    files = descriptor_pb2.FileDescriptorSet()
    try:
        with open(path, "rb") as f:
            files.ParseFromString(f.read())
    except (OSError, DecodeError) as e:
        raise invalid(f"Could not read a FileDescriptorSet from {path}: {e}") from None
    pool = descriptor_pool.DescriptorPool()
    for proto in files.file:
        pool.Add(proto)
    return pool


def find_message(name: str, source: str) -> Descriptor:
    """The descriptor of message type `name` ('tensorflow.X' also finds tfcluster.X)."""
    pool = descriptor_pool.Default() if source in ("", "local://") else _file_pool(source)
    candidates = [name]
    if name.startswith("tensorflow."):
        candidates.append("tfcluster." + name[len("tensorflow.") :])
    for attempt in range(2):
        for candidate in candidates:
            try:
                return pool.FindMessageTypeByName(candidate)
            except KeyError:
                continue
        if attempt == 0 and pool is descriptor_pool.Default():
            _load_tfcluster_protos()
    raise invalid(f"No descriptor found for message type {name}")


@functools.cache
def _load_tfcluster_protos() -> None:
    """Every message of tfcluster.protos in the default pool (they load when imported)."""
    import tfcluster.protos as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name.endswith("_pb2"):
            importlib.import_module(f"{package.__name__}.{info.name}")


def _fields(
    desc: Descriptor, shown: str, names: list[str], types: list[dtypes.DType]
) -> list[FieldDescriptor]:
    """The named fields; each must be readable as its dtype (`shown`: the type's name as the
    program gave it)."""
    out = []
    for name, dtype in zip(names, types):
        field = desc.fields_by_name.get(name)
        if field is None:
            raise invalid(f"Unknown field: {name} in message type {shown}")
        if dtype not in _ALLOWED.get(field.type, ()):
            raise invalid(
                f"Unexpected output type for {shown}.{name}: field type {field.type} "
                f"cannot be read as {dtype.name}"
            )
        out.append(field)
    return out


def _zero(field: FieldDescriptor) -> Any:
    if field.type in _NESTED or field.type in (_FD.TYPE_STRING, _FD.TYPE_BYTES):
        return b""
    if not field.is_repeated and field.has_default_value:
        value = field.default_value
        return value.encode() if isinstance(value, str) else value
    return False if field.type == _FD.TYPE_BOOL else 0


def _values_of(message: Any, field: FieldDescriptor) -> list[Any]:
    value = getattr(message, field.name)
    if field.is_repeated:
        items = list(value)
    elif any(f is field for f, _ in message.ListFields()):
        items = [value]
    else:
        items = []
    if field.type in _NESTED:
        return [m.SerializeToString() for m in items]
    if field.type == _FD.TYPE_STRING:
        return [s.encode() for s in items]
    return items


@kernel("DecodeProtoV2", devices=CPU_ONLY)
def decode_proto(node: Any, xp: Any) -> Compute:
    names = [_text(n) for n in node.attrs["field_names"]]
    types = [dtypes.as_dtype(t) for t in node.attrs["output_types"]]
    source = _text(node.attrs.get("descriptor_source", "local://"))
    text = _text(node.attrs.get("message_format", "binary")) == "text"
    shown = _text(node.attrs["message_type"])
    desc = find_message(shown, source)
    fields = _fields(desc, shown, names, types)
    cls = message_factory.GetMessageClass(desc)

    def parse(data: bytes) -> Any:
        message = cls()
        try:
            if text:
                text_format.Parse(data.decode("utf-8", "replace"), message)
            else:
                message.ParseFromString(data)
        except (DecodeError, text_format.ParseError) as e:
            raise errors.DataLossError(
                None, None, f"Unable to parse a {shown} message: {e}"
            ) from None
        return message

    def compute(ctx: Any, ins: list[Any]) -> list[Any]:
        raw = np.asarray(host_array(ins[0]), dtype=object)
        batch = raw.shape
        messages = [parse(v if isinstance(v, bytes) else bytes(v)) for v in raw.reshape(-1)]
        per_field = [[_values_of(m, f) for m in messages] for f in fields]
        sizes = np.zeros((len(messages), len(fields)), dtype=np.int32)
        values = []
        for j, (field, dtype, rows) in enumerate(zip(fields, types, per_field)):
            counts = [len(r) for r in rows]
            sizes[:, j] = counts
            width = max(counts, default=0) if field.is_repeated else 1
            np_type = object if dtype == dtypes.string else dtype.as_numpy_dtype
            out = np.empty((len(messages), width), dtype=np_type)
            out[...] = _zero(field)
            for i, r in enumerate(rows):
                out[i, : len(r)] = r
            values.append(out.reshape(*batch, width))
        return [sizes.reshape(*batch, len(fields)), *values]

    return compute


def _python_value(field: FieldDescriptor, value: Any) -> Any:
    if field.type == _FD.TYPE_STRING:
        return value.decode("utf-8") if isinstance(value, bytes) else str(value)
    if field.type == _FD.TYPE_BYTES:
        return value if isinstance(value, bytes) else bytes(value)
    if field.type == _FD.TYPE_BOOL:
        return bool(value)
    if field.type in (_FD.TYPE_FLOAT, _FD.TYPE_DOUBLE):
        return float(value)
    return int(value)


@kernel("EncodeProto", devices=CPU_ONLY)
def encode_proto(node: Any, xp: Any) -> Compute:
    names = [_text(n) for n in node.attrs["field_names"]]
    types = [dtypes.as_dtype(t) for t in node.attrs["Tinput_types"]]
    source = _text(node.attrs.get("descriptor_source", "local://"))
    shown = _text(node.attrs["message_type"])
    desc = find_message(shown, source)
    fields = _fields(desc, shown, names, types)
    cls = message_factory.GetMessageClass(desc)
    # Fields are written in field-number order, as protobuf serializes a whole message.
    order = sorted(range(len(fields)), key=lambda j: fields[j].number)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        sizes = np.asarray(host_array(ins[0]), dtype=np.int64)
        values = [np.asarray(host_array(v)) for v in ins[1:]]
        if sizes.ndim < 1 or sizes.shape[-1] != len(fields):
            raise invalid(
                f"sizes should be batch_size + [len(field_names)], got shape {list(sizes.shape)}"
            )
        batch = sizes.shape[:-1]
        flat_sizes = sizes.reshape(-1, len(fields))
        flat_values = [v.reshape(flat_sizes.shape[0], -1) for v in values]
        out = np.empty(flat_sizes.shape[0], dtype=object)
        for i in range(flat_sizes.shape[0]):
            parts = []
            for j in order:
                field = fields[j]
                n = int(flat_sizes[i, j])
                if n > flat_values[j].shape[1]:
                    raise invalid(
                        "Size to write must not be larger than value tensor; but saw: "
                        f"{n} > {flat_values[j].shape[1]} at message {i} field {j}"
                    )
                if not field.is_repeated and n > 1:
                    raise invalid(
                        f"Field {field.name} of {shown} is not repeated, but got {n} values at "
                        f"message {i}"
                    )
                parts.append(_field_bytes(cls, field, flat_values[j][i, :n].tolist()))
            out[i] = b"".join(parts)
        return (out.reshape(batch),)

    return compute


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field_bytes(cls: Any, field: FieldDescriptor, items: list[Any]) -> bytes:
    """One field's wire bytes. A message field's values are written as given (TF does not
    parse them); other fields go through the library's serializer."""
    if field.type in _NESTED:
        tag = _varint((field.number << 3) | 2)
        return b"".join(
            tag + _varint(len(data)) + data
            for data in (d if isinstance(d, bytes) else bytes(d) for d in items)
        )
    message = cls()
    converted = [_python_value(field, v) for v in items]
    if field.is_repeated:
        getattr(message, field.name).extend(converted)
    elif converted:
        setattr(message, field.name, converted[0])
    return message.SerializeToString()
