"""tf.io.decode_proto / encode_proto: fields of serialized protobuf messages as tensors
(DecodeProtoV2) and messages built from tensors (EncodeProto)."""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op

DecodeProtoV2 = collections.namedtuple("DecodeProtoV2", ["sizes", "values"])


def _decode_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    batch = inputs[0].shape
    n = len(attrs["field_names"])
    dims = None if batch.ndims is None else batch.as_list()
    sizes = TensorShape(None if dims is None else [*dims, n])
    value = TensorShape(None if dims is None else [*dims, None])
    return [(dtypes.int32, sizes)] + [(dtypes.as_dtype(t), value) for t in attrs["output_types"]]


def _encode_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    sizes = inputs[0].shape
    dims = None if sizes.ndims is None else sizes.as_list()[:-1]
    return [(dtypes.string, TensorShape(dims))]


op_def_registry.register("DecodeProtoV2", _decode_infer)
op_def_registry.register("EncodeProto", _encode_infer)


def decode_proto(
    bytes: Any,  # TF's argument name
    message_type: str,
    field_names: Sequence[str],
    output_types: Sequence[Any],
    descriptor_source: str = "local://",
    message_format: str = "binary",
    sanitize: bool = False,
    name: str | None = None,
) -> DecodeProtoV2:
    """(sizes [..., len(field_names)], [values of each field, [..., its largest count]])."""
    if message_format not in ("binary", "text"):
        raise ValueError(f"message_format must be 'binary' or 'text', got {message_format!r}")
    with name_scope(name, "DecodeProtoV2", [bytes]) as scope:
        t = convert_to_tensor(bytes, dtype=dtypes.string, name="bytes")
        attrs = {
            "message_type": message_type,
            "field_names": list(field_names),
            "output_types": [dtypes.as_dtype(d) for d in output_types],
            "descriptor_source": descriptor_source,
            "message_format": message_format,
            "sanitize": bool(sanitize),
        }
        op = make_op("DecodeProtoV2", [t], attrs, name=scope)
    return DecodeProtoV2(op.outputs[0], list(op.outputs[1:]))


def encode_proto(
    sizes: Any,
    values: Sequence[Any],
    field_names: Sequence[str],
    message_type: str,
    descriptor_source: str = "local://",
    name: str | None = None,
) -> Tensor:
    """Serialized messages with the first sizes[..., i] entries of values[i] in field i."""
    with name_scope(name, "EncodeProto", [sizes, *values]) as scope:
        s = convert_to_tensor(sizes, dtype=dtypes.int32, name="sizes")
        vals = [convert_to_tensor(v, name="values") for v in values]
        attrs = {
            "field_names": list(field_names),
            "message_type": message_type,
            "descriptor_source": descriptor_source,
            "Tinput_types": [v.dtype.base_dtype for v in vals],
        }
        return make_op("EncodeProto", [s, *vals], attrs, name=scope).outputs[0]


__all__: list[str] = []
