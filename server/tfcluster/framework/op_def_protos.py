"""Operation.op_def as TF 1.15 gives it: an OpDef proto, made from TF's recorded op signature
(op_signatures; the recording keeps no summaries or descriptions, so those are empty)."""

from __future__ import annotations

import functools
from typing import Any

from tfcluster.framework import attr_values, dtypes, op_signatures
from tfcluster.protos import attr_value_pb2, op_def_pb2


def _arg(proto: Any, sig: op_signatures.ArgSig) -> None:
    proto.name = sig.name
    if sig.type is not None:
        proto.type = dtypes.as_dtype(sig.type).as_datatype_enum
    proto.type_attr = sig.type_attr or ""
    proto.number_attr = sig.number_attr or ""
    proto.type_list_attr = sig.type_list_attr or ""
    proto.is_ref = sig.is_ref


def _allowed(kind: str, allowed: tuple[Any, ...]) -> attr_value_pb2.AttrValue:
    item = kind[5:-1] if kind.startswith("list(") else kind
    value = attr_value_pb2.AttrValue()
    value.list.SetInParent()
    if item == "type":
        value.list.type.extend(dtypes.as_dtype(t).as_datatype_enum for t in allowed)
    else:
        value.list.s.extend(str(s).encode() for s in allowed)
    return value


@functools.cache
def _op_def(op_type: str) -> op_def_pb2.OpDef | None:
    sig = op_signatures.lookup(op_type)
    if sig is None:
        return None
    proto = op_def_pb2.OpDef(
        name=sig.name,
        is_stateful=sig.stateful,
        is_commutative=sig.commutative,
        is_aggregate=sig.aggregate,
        allows_uninitialized_input=sig.allows_uninitialized_input,
    )
    for arg in sig.inputs:
        _arg(proto.input_arg.add(), arg)
    for arg in sig.outputs:
        _arg(proto.output_arg.add(), arg)
    for attr in sig.attrs:
        a = proto.attr.add(name=attr.name, type=attr.type)
        if attr.has_default:
            a.default_value.CopyFrom(
                attr_values.to_proto(op_signatures.attr_value(attr.type, attr.default))
            )
        if attr.minimum is not None:
            a.has_minimum = True
            a.minimum = attr.minimum
        if attr.allowed is not None:
            a.allowed_values.CopyFrom(_allowed(attr.type, attr.allowed))
    if sig.deprecation_version:
        proto.deprecation.version = sig.deprecation_version
        proto.deprecation.explanation = sig.deprecation_explanation
    return proto


def op_def(op_type: str) -> op_def_pb2.OpDef | None:
    """A fresh copy of TF 1.15's OpDef of the op type (callers may change it), or None for a
    type TF has no op for."""
    cached = _op_def(op_type)
    if cached is None:
        return None
    copy = op_def_pb2.OpDef()
    copy.CopyFrom(cached)
    return copy


def shared_op_def(op_type: str) -> op_def_pb2.OpDef | None:
    """TF 1.15's OpDef of the op type, shared (callers must not change it), or None."""
    return _op_def(op_type)
