"""Python structures <-> StructuredValue protos (TF's nested_structure_coder): how a SavedModel's
object graph records a function's argument spec, input signature and output structure."""

from __future__ import annotations

import collections
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.framework.type_spec import TensorSpec
from tfcluster.protos import struct_pb2


def encode(value: Any) -> struct_pb2.StructuredValue:
    """The StructuredValue of a nest of None, bool, int, float, str, lists, tuples, dicts,
    namedtuples, TensorShapes, DTypes and TensorSpecs; ValueError for anything else."""
    out = struct_pb2.StructuredValue()
    if value is None:
        out.none_value.SetInParent()
    elif isinstance(value, bool):
        out.bool_value = value
    elif isinstance(value, int):
        out.int64_value = value
    elif isinstance(value, float):
        out.float64_value = value
    elif isinstance(value, str):
        out.string_value = value
    elif isinstance(value, TensorSpec):
        out.tensor_spec_value.shape.CopyFrom(value.shape.as_proto())
        out.tensor_spec_value.dtype = value.dtype.as_datatype_enum  # type: ignore[assignment]
        if value.name:
            out.tensor_spec_value.name = value.name
    elif isinstance(value, TensorShape):
        out.tensor_shape_value.CopyFrom(value.as_proto())
    elif isinstance(value, dtypes.DType):
        out.tensor_dtype_value = value.as_datatype_enum  # type: ignore[assignment]
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        out.named_tuple_value.name = type(value).__name__
        for field, item in zip(value._fields, value):
            out.named_tuple_value.values.add(key=field, value=encode(item))
    elif isinstance(value, tuple):
        out.tuple_value.SetInParent()
        out.tuple_value.values.extend(encode(v) for v in value)
    elif isinstance(value, list):
        out.list_value.SetInParent()
        out.list_value.values.extend(encode(v) for v in value)
    elif isinstance(value, dict):
        out.dict_value.SetInParent()
        for key in sorted(value):
            out.dict_value.fields[str(key)].CopyFrom(encode(value[key]))
    else:
        raise ValueError(f"No encoder for object [{value}] of type [{type(value)}].")
    return out


def decode(proto: struct_pb2.StructuredValue) -> Any:
    """The Python structure a StructuredValue records (a namedtuple comes back as a namedtuple
    class of the same name and fields)."""
    kind = proto.WhichOneof("kind")
    if kind in (None, "none_value"):
        return None
    if kind in ("bool_value", "int64_value", "float64_value", "string_value"):
        return getattr(proto, kind)
    if kind == "tensor_spec_value":
        spec = proto.tensor_spec_value
        return TensorSpec(
            TensorShape(spec.shape),
            dtypes.as_dtype(spec.dtype),
            spec.name or None,
        )
    if kind == "tensor_shape_value":
        return TensorShape(proto.tensor_shape_value)
    if kind == "tensor_dtype_value":
        return dtypes.as_dtype(proto.tensor_dtype_value)
    if kind == "list_value":
        return [decode(v) for v in proto.list_value.values]
    if kind == "tuple_value":
        return tuple(decode(v) for v in proto.tuple_value.values)
    if kind == "dict_value":
        return {k: decode(v) for k, v in proto.dict_value.fields.items()}
    if kind == "named_tuple_value":
        pairs = [(p.key, decode(p.value)) for p in proto.named_tuple_value.values]
        cls = collections.namedtuple(  # type: ignore[misc]
            proto.named_tuple_value.name, [k for k, _ in pairs]
        )
        return cls(*(v for _, v in pairs))
    raise ValueError(f"No decoder for a StructuredValue holding {kind}")
