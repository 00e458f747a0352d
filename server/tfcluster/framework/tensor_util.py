"""numpy <-> TensorProto, and static values of constant tensors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors, memory_budget
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.protos import tensor_pb2


def to_numpy(value: Any, dtype: dtypes.DType | None = None) -> np.ndarray:
    """A Python/numpy value as an ndarray of the TF dtype (strings: object arrays of bytes)."""
    if dtype is not None and dtype.base_dtype is dtypes.string:
        return _as_bytes_array(value)
    if dtype is None:
        arr = np.asarray(value)
        if arr.dtype.kind in ("U", "S", "O"):
            return _as_bytes_array(value)
        # TF's defaults: Python floats are float32, Python ints int32 when they fit.
        if arr.dtype == np.float64 and not isinstance(value, np.ndarray | np.generic):
            arr = arr.astype(np.float32)
        elif (
            arr.dtype == np.int64
            and not isinstance(value, np.ndarray | np.generic)
            and (arr.size == 0 or (arr.min() >= -(2**31) and arr.max() < 2**31))
        ):
            arr = arr.astype(np.int32)
        return arr
    want = np.dtype(dtype.base_dtype.as_numpy_dtype)
    arr = np.asarray(value)
    if arr.dtype.kind in ("U", "S", "O") and arr.size:
        raise TypeError(f"Expected {dtype.base_dtype.name}, got {value!r} of type str instead.")
    if arr.dtype != want:
        if want.kind in "iu" and arr.dtype.kind == "f" and not np.all(np.mod(arr, 1) == 0):
            raise TypeError(
                f"Expected {dtype.base_dtype.name}, got {value!r} of type "
                f"'{type(value).__name__}' instead."
            )
        if want.kind == "b" and arr.dtype.kind != "b":
            raise TypeError(
                f"Expected bool, got {value!r} of type '{type(value).__name__}' instead."
            )
        arr = arr.astype(want)
    return arr


def _as_bytes_array(value: Any) -> np.ndarray:
    arr = np.asarray(value, dtype=object)
    flat = [v.encode() if isinstance(v, str) else bytes(v) for v in arr.reshape(-1)]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(arr.shape)


# The dtypes TF's Python writes as tensor_content when a tensor has more than one value.
_CONTENT_TYPES = frozenset(
    (
        dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint8, dtypes.int16, dtypes.int8,
        dtypes.int64, dtypes.qint8, dtypes.quint8, dtypes.qint16, dtypes.quint16, dtypes.qint32,
        dtypes.uint32, dtypes.uint64,
    )
)  # fmt: skip


def make_tensor_proto(
    values: Any,
    dtype: Any = None,
    shape: Any = None,
    verify_shape: bool = False,
    allow_broadcast: bool = False,
) -> tensor_pb2.TensorProto:
    """A TensorProto as TF's Python writes one (tf.make_tensor_proto, a graph's Const values):
    tensor_content for several values of a plain numeric dtype, otherwise the typed value
    fields, and one value only for a tensor filled from one value (a shape larger than the
    values, or a broadcast view such as tf.constant(0., shape=[2, 3]) holds)."""
    dt = dtypes.as_dtype(dtype) if dtype is not None else None
    # A broadcast view (every stride 0) is a tensor filled from its one value.
    filled = isinstance(values, np.ndarray) and values.size > 1 and not any(values.strides)
    arr = to_numpy(values.reshape(-1)[:1] if filled else values, dt)
    dt = dtypes.as_dtype(arr.dtype) if dt is None else dt.base_dtype
    if shape is None:
        dims = list(values.shape) if filled else list(arr.shape)
        same_size = not filled
    else:
        given: Any = shape.as_list() if isinstance(shape, TensorShape) else shape
        dims = [int(d) for d in given]
        n = math.prod(dims)
        same_size = n == arr.size
        if allow_broadcast:
            if arr.shape not in ((1,), ()) and not same_size:
                raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, got {arr.shape}.")
        else:
            if verify_shape and arr.shape != tuple(dims):
                raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, got {arr.shape}.")
            if arr.size > n:
                raise ValueError(
                    f"Too many elements provided. Needed at most {n}, but received {arr.size}"
                )
    proto = tensor_pb2.TensorProto(
        dtype=dt.as_datatype_enum, tensor_shape=TensorShape(dims).as_proto()
    )
    if same_size and dt in _CONTENT_TYPES and arr.size > 1:
        proto.tensor_content = np.ascontiguousarray(arr).tobytes()
    else:
        _append_values(proto, dt, arr.reshape(-1))
    return proto


def _append_values(proto: tensor_pb2.TensorProto, dt: dtypes.DType, flat: np.ndarray) -> None:
    """Values into the typed field TF reads for the dtype (halves as their 16 bits, complex
    numbers as real/imaginary pairs, quantized values as their integers)."""
    if dt is dtypes.string:
        proto.string_val.extend(flat.tolist())
    elif dt in (dtypes.float16, dtypes.bfloat16):
        proto.half_val.extend(flat.view(np.uint16).tolist())
    elif dt.is_complex:
        pairs = np.stack([flat.real, flat.imag], axis=-1).reshape(-1)
        field = proto.scomplex_val if dt is dtypes.complex64 else proto.dcomplex_val
        field.extend(pairs.tolist())
    else:
        field = {
            dtypes.float32: proto.float_val,
            dtypes.float64: proto.double_val,
            dtypes.int64: proto.int64_val,
            dtypes.uint32: proto.uint32_val,
            dtypes.uint64: proto.uint64_val,
            dtypes.bool_: proto.bool_val,
        }.get(dt, proto.int_val)
        if flat.dtype.fields:
            flat = flat.view(dt._storage())
        if field is proto.int_val and flat.dtype.kind not in "iub":
            raise TypeError(f"Element type not supported in TensorProto: {dt.name}")
        field.extend(flat.tolist())


def as_proto_tensor_content(value: Any, dtype: Any = None) -> tensor_pb2.TensorProto:
    """A TensorProto as TF's C++ Tensor::AsProtoTensorContent writes one (SerializeTensor,
    tensors on the wire): every value in tensor_content, strings in string_val."""
    dt = dtypes.as_dtype(dtype) if dtype is not None else None
    if dt is dtypes.variant or (dt is None and holds_tensors(value)):
        return _variant_proto(value)
    arr = to_numpy(value, dt)
    dt = dtypes.as_dtype(arr.dtype) if dt is None else dt.base_dtype
    proto = tensor_pb2.TensorProto(
        dtype=dt.as_datatype_enum, tensor_shape=TensorShape(arr.shape).as_proto()
    )
    if dt is dtypes.string:
        proto.string_val.extend(arr.reshape(-1).tolist())
    else:
        proto.tensor_content = np.ascontiguousarray(arr).tobytes()
    return proto


# What TF's variant holding one tensor calls itself (a dataset's boxed SparseTensor parts).
TENSOR_IN_VARIANT = "tensorflow::Tensor"


def holds_tensors(value: Any) -> bool:
    """A variant tensor whose elements are tensors: an object array of arrays."""
    return (
        isinstance(value, np.ndarray)
        and value.dtype == object
        and value.size > 0
        and isinstance(value.reshape(-1)[0], np.ndarray)
    )


def _variant_proto(value: Any) -> tensor_pb2.TensorProto:
    """A DT_VARIANT TensorProto of tensors, each element as TF encodes a tensor in a variant."""
    arr = np.asarray(value, dtype=object)
    proto = tensor_pb2.TensorProto(
        dtype=dtypes.variant.as_datatype_enum, tensor_shape=TensorShape(arr.shape).as_proto()
    )
    for element in arr.reshape(-1):
        if not isinstance(element, np.ndarray):
            raise errors.InvalidArgumentError(
                None, None, f"A variant tensor holds a {type(element).__name__}: no encoding"
            )
        proto.variant_val.add(type_name=TENSOR_IN_VARIANT).tensors.append(held_tensor(element))
    return proto


def held_tensor(element: np.ndarray) -> tensor_pb2.TensorProto:
    """The TensorProto of one tensor a variant holds (object arrays as strings)."""
    kind = dtypes.string if element.dtype.kind in ("O", "U", "S") else None
    return as_proto_tensor_content(element, kind)


def _variant_ndarray(proto: tensor_pb2.TensorProto, shape: tuple[int, ...]) -> np.ndarray:
    n = math.prod(shape)
    if len(proto.variant_val) != n:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"A variant tensor of shape {list(shape)} holds {len(proto.variant_val)} values",
        )
    out = np.empty(n, dtype=object)
    for i, value in enumerate(proto.variant_val):
        if value.type_name != TENSOR_IN_VARIANT or len(value.tensors) != 1:
            raise errors.UnimplementedError(
                None, None, f"Cannot decode a variant holding {value.type_name or 'nothing'}"
            )
        out[i] = make_ndarray(value.tensors[0])
    return out.reshape(shape)


def _numpy_dtype(dt: dtypes.DType) -> np.dtype[Any]:
    try:
        return np.dtype(dt.as_numpy_dtype)
    except TypeError:
        return np.dtype(object)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data):
            raise errors.DataLossError(None, None, "A string tensor's content is truncated")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def strings_as_content(values: np.ndarray) -> bytes:
    """A string tensor's tensor_content as TF's Tensor::AsProtoTensorContent writes it: every
    length as a varint, then every string's bytes."""
    flat = [bytes(v) for v in values.reshape(-1)]
    head = bytearray()
    for s in flat:
        n = len(s)
        while n >= 0x80:
            head.append((n & 0x7F) | 0x80)
            n >>= 7
        head.append(n)
    return bytes(head) + b"".join(flat)


def _strings_from_content(content: bytes, n: int) -> np.ndarray:
    lengths, pos = [], 0
    for _ in range(n):
        length, pos = _varint(content, pos)
        lengths.append(length)
    out = np.empty(n, dtype=object)
    for i, length in enumerate(lengths):
        if pos + length > len(content):
            raise errors.DataLossError(None, None, "A string tensor's content is truncated")
        out[i] = content[pos : pos + length]
        pos += length
    return out


def _checked_shape(proto: tensor_pb2.TensorProto) -> tuple[int, ...]:
    """The proto's shape, refused when a dimension is negative or the values would not fit
    the memory budget (the shape is the sender's word: one value may be asked to fill
    terabytes)."""
    shape = tuple(int(d.size) for d in proto.tensor_shape.dim)
    if any(d < 0 for d in shape):
        raise errors.InvalidArgumentError(
            None, None, f"A tensor's shape has a negative dimension: {list(shape)}"
        )
    memory_budget.check_shape(shape, _numpy_dtype(dtypes.as_dtype(proto.dtype)), "a tensor")
    return shape


def make_ndarray(tensor: tensor_pb2.TensorProto) -> np.ndarray:
    proto = tensor  # TF's parameter name
    dt = dtypes.as_dtype(proto.dtype)
    shape = _checked_shape(proto)
    n = math.prod(shape)
    if dt is dtypes.variant:
        return _variant_ndarray(proto, shape)
    if dt is dtypes.string:
        if proto.tensor_content:
            return _strings_from_content(proto.tensor_content, n).reshape(shape)
        vals = list(proto.string_val)
        out = np.empty(n, dtype=object)
        if len(vals) == n:
            out[:] = vals
        else:
            # One shared value, no n-long list: the array is all the memory it takes.
            out.fill(vals[-1] if vals else b"")
            if len(vals) < n:
                out[: len(vals)] = vals
        return out.reshape(shape)
    np_dtype = np.dtype(dt.as_numpy_dtype)
    if proto.tensor_content:
        return np.frombuffer(proto.tensor_content, dtype=np_dtype).copy().reshape(shape)
    field = {
        dtypes.float32: proto.float_val,
        dtypes.float64: proto.double_val,
        dtypes.int64: proto.int64_val,
        dtypes.bool_: proto.bool_val,
        dtypes.float16: proto.half_val,
        dtypes.bfloat16: proto.half_val,
        dtypes.complex64: proto.scomplex_val,
        dtypes.complex128: proto.dcomplex_val,
        dtypes.uint32: proto.uint32_val,
        dtypes.uint64: proto.uint64_val,
    }.get(dt, proto.int_val)
    vals = list(field)
    if dt in (dtypes.float16, dtypes.bfloat16):
        arr = np.array(vals, dtype=np.uint16).view(np_dtype)
    elif dt.is_complex:
        pairs = np.array(vals, dtype=dt.real_dtype.as_numpy_dtype).reshape(-1, 2)
        arr = (pairs[:, 0] + 1j * pairs[:, 1]).astype(np_dtype)
    elif np_dtype.fields:
        # Quantized values travel in int_val as plain integers.
        arr = np.array(vals, dtype=dt._storage()).astype(np_dtype)
    else:
        arr = np.array(vals, dtype=np_dtype)
    if arr.size == n:
        return arr.reshape(shape)
    out = np.zeros(n, dtype=np_dtype)
    if arr.size:
        out[: arr.size] = arr
        out[arr.size :] = arr[-1]
    return out.reshape(shape)


# The fields a TensorProto stores typed values in (one complex value is two entries).
_VALUE_FIELDS = (
    "half_val", "float_val", "double_val", "int_val", "string_val", "scomplex_val",
    "dcomplex_val", "bool_val", "int64_val", "uint32_val", "uint64_val",
)  # fmt: skip


def make_attr_ndarray(proto: tensor_pb2.TensorProto) -> np.ndarray:
    """A tensor attr's value as a graph keeps it: a tensor stored as one value filling its
    shape (TF's tf.constant(0, shape=[3]), written as int_val: 0) stays a broadcast view of
    that value, so the graph writes it back as one value, as TF keeps an imported NodeDef."""
    stored = sum(len(getattr(proto, f)) for f in _VALUE_FIELDS)
    if dtypes.as_dtype(proto.dtype).is_complex:
        stored //= 2
    shape = _checked_shape(proto)
    if proto.tensor_content or stored != 1 or math.prod(shape) <= 1:
        return make_ndarray(proto)
    # The one value, read from a copy without the shape (not every value made first).
    one = tensor_pb2.TensorProto()
    one.CopyFrom(proto)
    one.ClearField("tensor_shape")
    return np.broadcast_to(make_ndarray(one), shape)


def constant_value(tensor: Any) -> np.ndarray | None:
    """The value of a tensor that is known at graph-construction time, or None."""
    if not isinstance(tensor, Tensor):
        return None
    op = tensor.op
    if op.type == "Const":
        return np.asarray(op._get_attr("value"))
    if op.type == "Shape":
        shape = op.inputs[0].shape
        if shape.is_fully_defined():
            return np.array(shape.as_list(), dtype=op._get_attr("out_type").as_numpy_dtype)
        return None
    if op.type == "Size":
        n = op.inputs[0].shape.num_elements()
        return None if n is None else np.array(n, dtype=np.int32)
    if op.type == "Rank":
        r = op.inputs[0].shape.ndims
        return None if r is None else np.array(r, dtype=np.int32)
    if op.type in ("Identity", "StopGradient"):
        return constant_value(op.inputs[0])
    if op.type == "Pack":
        vals = [constant_value(t) for t in op.inputs]
        if any(v is None for v in vals):
            return None
        return np.stack(vals, axis=op._get_attr("axis"))  # type: ignore[arg-type]
    if op.type == "ConcatV2":
        *parts, axis = (constant_value(t) for t in op.inputs)
        if axis is None or any(v is None for v in parts):
            return None
        return np.concatenate(parts, axis=int(axis))  # type: ignore[arg-type]
    if op.type == "Range":
        start, limit, delta = (constant_value(t) for t in op.inputs)
        if start is None or limit is None or delta is None:
            return None
        dtype = op._get_attr("Tidx").as_numpy_dtype
        return np.arange(start.item(), limit.item(), delta.item(), dtype=dtype)
    if op.type == "Cast":
        v = constant_value(op.inputs[0])
        return None if v is None else v.astype(op._get_attr("DstT").as_numpy_dtype)
    if op.type == "ExpandDims":
        v, dim = constant_value(op.inputs[0]), constant_value(op.inputs[1])
        return None if v is None or dim is None else np.expand_dims(v, int(dim))
    if op.type == "ConcatV2":
        parts = [constant_value(t) for t in op.inputs[:-1]]
        axis = constant_value(op.inputs[-1])
        if axis is None or any(v is None for v in parts):
            return None
        return np.concatenate(parts, axis=int(axis))  # type: ignore[arg-type]
    if op.type == "StridedSlice":
        return _strided_slice_of_vector(op)
    return None


def _strided_slice_of_vector(op: Any) -> np.ndarray | None:
    """A StridedSlice of a known vector by one known (begin, end, stride): the slices of
    shape vectors that gradients and shape arithmetic make (shape[1:], shape[:axis], shape[i])."""
    value, begin, end, strides = (constant_value(t) for t in op.inputs)
    if value is None or begin is None or end is None or strides is None:
        return None
    attrs = op.attrs
    if value.ndim != 1 or begin.size != 1 or attrs.get("ellipsis_mask", 0):
        return None
    if attrs.get("new_axis_mask", 0):
        return None
    start = None if attrs.get("begin_mask", 0) & 1 else int(begin.reshape(-1)[0])
    stop = None if attrs.get("end_mask", 0) & 1 else int(end.reshape(-1)[0])
    step = int(strides.reshape(-1)[0])
    if attrs.get("shrink_axis_mask", 0) & 1:
        i = int(begin.reshape(-1)[0])
        return value[i] if -value.size <= i < value.size else None
    return value[start:stop:step]


def constant_value_as_shape(tensor: Any) -> TensorShape:
    """A shape tensor's static value, with unknown entries where only parts are known."""
    value = constant_value(tensor)
    if value is not None:
        return TensorShape([None if d < 0 else int(d) for d in np.asarray(value).reshape(-1)])
    if isinstance(tensor, Tensor):
        if tensor.op.type in ("Shape", "ShapeN"):  # as TF's shape refiner reads them
            return tensor.op.inputs[tensor.value_index].shape
        if tensor.op.type == "Pack":
            dims: list[int | None] = []
            for t in tensor.op.inputs:
                v = constant_value(t)
                dims.append(None if v is None or int(v) < 0 else int(v))
            return TensorShape(dims)
        if tensor.op.type == "ConcatV2" and constant_value(tensor.op.inputs[-1]) == 0:
            parts = [constant_value_as_shape(t) for t in tensor.op.inputs[:-1]]
            if all(p.ndims is not None for p in parts):
                shape = TensorShape([])
                for part in parts:
                    shape = shape.concatenate(part)
                return shape
        if tensor.shape.ndims == 1 and tensor.shape[0].value is not None:
            return TensorShape([None] * int(tensor.shape[0].value))
    return TensorShape(None)
