"""SerializeSparse writes its TensorProtos directly: the bytes are those the proto library
writes for the same TensorProto (dtype, shape, tensor_content), for every shape and dtype."""

from __future__ import annotations

import numpy as np
import pytest
from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels.sparse_serialization import content_proto
from tfcluster.protos import tensor_pb2

ARRAYS = [
    np.zeros((0, 2), np.int64),
    np.array(7, np.int64),
    np.arange(300, dtype=np.int64).reshape(150, 2),
    np.array([1.5, -2.0], np.float32),
    np.zeros((3, 0, 2), np.float64),
    np.array([2**40, 5], np.int64),
    np.array([True, False]),
]


def _library_bytes(values: np.ndarray, dt: dtypes.DType) -> bytes:
    proto = tensor_pb2.TensorProto(
        dtype=dt.as_datatype_enum, tensor_shape=TensorShape(values.shape).as_proto()
    )
    if values.size:
        proto.tensor_content = (
            tensor_util.strings_as_content(values)
            if dt is dtypes.string
            else np.ascontiguousarray(values).tobytes()
        )
    return proto.SerializeToString()


@pytest.mark.parametrize("index", range(len(ARRAYS)))
def test_numeric_tensor_protos_are_the_proto_librarys_bytes(index: int) -> None:
    values = ARRAYS[index]
    dt = dtypes.as_dtype(values.dtype)
    assert content_proto(values, dt) == _library_bytes(values, dt)


def test_string_tensor_protos_are_the_proto_librarys_bytes() -> None:
    values = np.array([b"", b"a", b"x" * 200], dtype=object)
    assert content_proto(values, dtypes.string) == _library_bytes(values, dtypes.string)
    empty = np.array([], dtype=object)
    assert content_proto(empty, dtypes.string) == _library_bytes(empty, dtypes.string)


def test_written_protos_read_back() -> None:
    for values in ARRAYS:
        proto = tensor_pb2.TensorProto.FromString(
            content_proto(values, dtypes.as_dtype(values.dtype))
        )
        np.testing.assert_array_equal(tensor_util.make_ndarray(proto), values)
