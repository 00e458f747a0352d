"""CollectiveJoin's protos <-> the transport-free Part of distributed/collective_meeting."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.protos import collective_pb2
from tfcluster.runtime.collective_meeting import Part


def request_of(part: Part) -> collective_pb2.CollectiveJoinRequest:
    req = collective_pb2.CollectiveJoinRequest(
        kind=part.kind,
        group_key=part.group_key,
        group_size=part.group_size,
        instance_key=part.instance_key,
        device=part.device,
        merge_op=part.merge_op,
        final_op=part.final_op,
        attempt=part.attempt,
    )
    if part.value is not None:
        req.value.CopyFrom(tensor_util.as_proto_tensor_content(np.asarray(part.value)))
        req.has_value = True
    if part.shape is not None:
        req.shape.CopyFrom(TensorShape(list(part.shape)).as_proto())
    if part.dtype is not None:
        req.dtype = dtypes.as_dtype(np.dtype(part.dtype)).as_datatype_enum
    return req


def part_of(req: collective_pb2.CollectiveJoinRequest) -> Part:
    shape: tuple[int | None, ...] | None = None
    if req.HasField("shape"):
        shape = tuple(TensorShape(req.shape).as_list())
    dtype: Any = None
    if req.dtype:
        dtype = dtypes.as_dtype(req.dtype).as_numpy_dtype
    return Part(
        kind=req.kind,
        group_key=req.group_key,
        group_size=req.group_size,
        instance_key=req.instance_key,
        device=req.device,
        value=tensor_util.make_ndarray(req.value) if req.has_value else None,
        merge_op=req.merge_op,
        final_op=req.final_op,
        shape=shape,
        dtype=dtype,
        attempt=req.attempt,
    )


def response_of(value: np.ndarray) -> bytes:
    resp = collective_pb2.CollectiveJoinResponse()
    resp.value.CopyFrom(tensor_util.as_proto_tensor_content(np.asarray(value)))
    return resp.SerializeToString()


def value_of(data: bytes) -> np.ndarray:
    resp = collective_pb2.CollectiveJoinResponse.FromString(data)
    return tensor_util.make_ndarray(resp.value)
