"""Python attr values <-> AttrValue protos (scalars, strings, dtypes, shapes, tensors, lists)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.protos import attr_value_pb2, tensor_pb2, tensor_shape_pb2


def to_proto(value: Any) -> attr_value_pb2.AttrValue:
    attr = attr_value_pb2.AttrValue()
    if isinstance(value, (list, tuple)):
        lst = attr.list
        lst.SetInParent()
        for item in value:
            if isinstance(item, bool):
                lst.b.append(item)
            elif isinstance(item, (int, np.integer)):
                lst.i.append(int(item))
            elif isinstance(item, (float, np.floating)):
                lst.f.append(float(item))
            elif isinstance(item, (bytes, str)):
                lst.s.append(item.encode() if isinstance(item, str) else item)
            elif isinstance(item, dtypes.DType):
                lst.type.append(item.as_datatype_enum)
            elif isinstance(item, TensorShape):
                lst.shape.append(item.as_proto())
            elif isinstance(item, np.ndarray):
                lst.tensor.append(tensor_util.make_tensor_proto(item))
            elif isinstance(item, attr_value_pb2.NameAttrList):
                lst.func.append(item)
            else:
                raise TypeError(f"Unsupported list attr item {item!r}")
        return attr
    if isinstance(value, (bool, np.bool_)):
        attr.b = bool(value)
    elif isinstance(value, (int, np.integer)):
        attr.i = int(value)
    elif isinstance(value, (float, np.floating)):
        attr.f = float(value)
    elif isinstance(value, str):
        attr.s = value.encode()
    elif isinstance(value, bytes):
        attr.s = value
    elif isinstance(value, dtypes.DType):
        attr.type = value.as_datatype_enum
    elif isinstance(value, TensorShape):
        attr.shape.CopyFrom(value.as_proto())
    elif isinstance(value, np.ndarray):
        attr.tensor.CopyFrom(tensor_util.make_tensor_proto(value))
    elif isinstance(value, tensor_pb2.TensorProto):
        attr.tensor.CopyFrom(value)
    elif isinstance(value, tensor_shape_pb2.TensorShapeProto):
        attr.shape.CopyFrom(value)
    elif isinstance(value, attr_value_pb2.NameAttrList):
        attr.func.CopyFrom(value)
    else:
        raise TypeError(f"Unsupported attr value {value!r} of type {type(value).__name__}")
    return attr


_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "func")


def public_value(attr: attr_value_pb2.AttrValue) -> Any:
    """TF 1.15's Operation.get_attr reading of an AttrValue: the proto's own field (bytes,
    int, float, bool, TensorShapeProto, TensorProto, NameAttrList), a DType for a type, and
    for a list the first non-empty field as a Python list ([] when all are empty)."""
    kind = attr.WhichOneof("value")
    if kind is None:
        return []
    if kind == "list":
        for field in _FIELDS:
            items = getattr(attr.list, field)
            if items:
                if field == "type":
                    return [dtypes.as_dtype(t) for t in items]
                return list(items)
        return []
    if kind == "type":
        return dtypes.as_dtype(attr.type)
    if kind not in _FIELDS:
        raise ValueError(f"Unsupported field type in {attr}")
    return getattr(attr, kind)


# String-valued attrs are kept as str in Python; these are byte strings (colocation, etc.).
_BYTES_ATTRS = {"_class"}


def from_proto(name: str, attr: attr_value_pb2.AttrValue) -> Any:
    kind = attr.WhichOneof("value")
    if kind == "s":
        return attr.s if name in _BYTES_ATTRS else attr.s.decode("utf-8", "surrogateescape")
    if kind == "i":
        return int(attr.i)
    if kind == "f":
        return float(attr.f)
    if kind == "b":
        return bool(attr.b)
    if kind == "type":
        return dtypes.as_dtype(attr.type)
    if kind == "shape":
        return TensorShape(attr.shape)
    if kind == "tensor":
        return tensor_util.make_attr_ndarray(attr.tensor)
    if kind == "func":
        return attr.func
    if kind == "list":
        lst = attr.list
        if lst.s:
            return [
                s if name in _BYTES_ATTRS else s.decode("utf-8", "surrogateescape") for s in lst.s
            ]
        if lst.i:
            return [int(i) for i in lst.i]
        if lst.f:
            return [float(f) for f in lst.f]
        if lst.b:
            return [bool(b) for b in lst.b]
        if lst.type:
            return [dtypes.as_dtype(t) for t in lst.type]
        if lst.shape:
            return [TensorShape(s) for s in lst.shape]
        if lst.tensor:
            return [tensor_util.make_attr_ndarray(t) for t in lst.tensor]
        if lst.func:  # Case's branches
            return list(lst.func)
        return []
    if kind == "placeholder":
        return attr.placeholder
    raise ValueError(f"attr '{name}' has no value")
