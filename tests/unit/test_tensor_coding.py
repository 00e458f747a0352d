"""Tensor framing: raw payloads first in the message, streamed chunks, strict validation."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.protos import master_pb2, named_tensor_pb2, worker_pb2
from tfcluster.rpc import tensor_coding as coding
from tfcluster.rpc.direct import wire

ROOT = Path(__file__).resolve().parents[2]

VALUES = [
    np.arange(12, dtype=np.float32).reshape(3, 4),
    np.array(2.5, dtype=np.float64),
    np.array([[1, -2]], dtype=np.int64),
    np.array([True, False, True]),
    np.array([1 + 2j], dtype=np.complex64),
    np.zeros((0, 3), dtype=np.int32),
    np.arange(6, dtype=np.int16).reshape(2, 3).T,  # not C-contiguous
    np.array([b"ab", b"", b"cde"], dtype=object),
    np.array(b"scalar", dtype=object),
    np.float32(7.0),
    np.array([3, 4], dtype=np.uint8),
    np.array([1.5], dtype=np.float16),
]


def _request(values: list[object]) -> tuple[master_pb2.RunStepRequest, list[object]]:
    req = master_pb2.RunStepRequest(session_handle="h", fetch=["a:0"])
    buffers = coding.fill_named(req.feed, [f"t{i}" for i in range(len(values))], values)
    return req, buffers


def _assert_same(got: object, want: object) -> None:
    want_arr = np.asarray(want)
    got_arr = np.asarray(got)
    assert got_arr.shape == want_arr.shape
    if want_arr.dtype == object:
        assert got_arr.dtype == object
        assert got_arr.tolist() == want_arr.tolist()
    else:
        assert got_arr.dtype == want_arr.dtype
        np.testing.assert_array_equal(got_arr, want_arr)


def test_frame_round_trip_every_dtype() -> None:
    req, buffers = _request(VALUES)
    data = coding.frame(req.SerializeToString(), buffers)
    head, payload = coding.split(data)
    parsed = master_pb2.RunStepRequest.FromString(head)
    assert parsed.session_handle == "h"
    assert [f.name for f in parsed.feed] == [f"t{i}" for i in range(len(VALUES))]
    out = coding.decode([f.tensor for f in parsed.feed], payload)
    for got, want in zip(out, VALUES):
        _assert_same(got, want)
    # Zero copies on the way in: the arrays view the message's bytes.
    assert not out[0].flags.writeable
    assert all(v.flags.writeable for v in coding.writable(out) if isinstance(v, np.ndarray))


def test_framed_message_is_valid_protobuf() -> None:
    """Any protobuf client can read our frames and write messages we read."""
    value = np.arange(5, dtype=np.int32)
    req, buffers = _request([value])
    data = coding.frame(req.SerializeToString(), buffers)
    plain = master_pb2.RunStepRequest.FromString(data)
    assert plain.tensor_payload == value.tobytes()
    assert plain.feed[0].tensor.dim == [5]
    # A plain protobuf message (payload serialized last) decodes the same way.
    head, payload = coding.split(plain.SerializeToString())
    parsed = master_pb2.RunStepRequest.FromString(head)
    got = coding.decode([parsed.feed[0].tensor], coding.payload_of(parsed, payload))
    _assert_same(got[0], value)


def test_no_payload_frames_are_plain_headers() -> None:
    req = master_pb2.RunStepRequest(session_handle="h")
    data = coding.frame(req.SerializeToString(), [])
    assert data == req.SerializeToString()
    head, payload = coding.split(data)
    assert len(payload) == 0 and bytes(head) == data


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
def test_stream_round_trip(chunk: int) -> None:
    req, buffers = _request(VALUES)
    messages = list(coding.frame_stream(req.SerializeToString(), buffers, chunk=chunk))
    total = coding.payload_size(buffers)
    assert len(messages) == max(1, -(-total // chunk))
    parsed, payload = coding.read_stream(
        messages, master_pb2.RunStepRequest.FromString, lambda r: [f.tensor for f in r.feed]
    )
    out = coding.decode([f.tensor for f in parsed.feed], payload)
    for got, want in zip(out, VALUES):
        _assert_same(got, want)
    # Split payloads are reassembled into one writable buffer; a single message is viewed.
    assert out[0].flags.writeable == (len(messages) > 1)


def test_frames_follow_each_other_on_one_stream() -> None:
    """A long-lived stream carries messages back to back; each is read as its header says."""
    values = [[np.arange(10, dtype=np.int64)], [], [np.array([b"x" * 50], dtype=object)]]
    stream: list[bytes] = []
    for vals in values:
        req, buffers = _request(vals)
        stream.extend(coding.frame_stream(req.SerializeToString(), buffers, chunk=16))
    it = iter(stream)
    for vals in values:
        frame = coding.read_frame(
            it, master_pb2.RunStepRequest.FromString, lambda r: [f.tensor for f in r.feed]
        )
        assert frame is not None
        header, payload = frame
        out = coding.decode([f.tensor for f in header.feed], payload)
        for got, want in zip(out, vals):
            _assert_same(got, want)
    assert coding.read_frame(it, master_pb2.RunStepRequest.FromString, lambda r: []) is None


def test_stream_of_an_empty_payload_is_one_message() -> None:
    req = worker_pb2.RunGraphResponse()
    messages = list(coding.frame_stream(req.SerializeToString(), []))
    assert messages == [b""]


def _meta(**kw: object) -> named_tensor_pb2.TensorMeta:
    return named_tensor_pb2.TensorMeta(**kw)  # type: ignore[arg-type]


_BAD_DESCRIPTIONS = [
    (
        _meta(dtype=1, dim=[2], content_length=8),
        b"\0" * 4,
        tf.errors.InvalidArgumentError,
        "payload has 4 bytes",
    ),
    (
        _meta(dtype=1, dim=[3], content_length=8),
        b"\0" * 8,
        tf.errors.InvalidArgumentError,
        "needs 12 bytes",
    ),
    (
        _meta(dtype=1, dim=[-1], content_length=0),
        b"",
        tf.errors.InvalidArgumentError,
        "negative",
    ),
    (
        _meta(dtype=99, dim=[1], content_length=1),
        b"\0",
        tf.errors.InvalidArgumentError,
        "DataType 99",
    ),
    (
        _meta(dtype=101, dim=[1], content_length=4),
        b"\0" * 4,
        tf.errors.InvalidArgumentError,
        "DataType 101",
    ),
    (
        _meta(dtype=20, dim=[], content_length=0),
        b"",
        tf.errors.InvalidArgumentError,
        "DataType 20",
    ),
    (
        _meta(dtype=7, dim=[2], content_length=2, string_length=[1]),
        b"ab",
        tf.errors.InvalidArgumentError,
        "element lengths",
    ),
    (
        _meta(dtype=7, dim=[1], content_length=2, string_length=[5]),
        b"ab",
        tf.errors.InvalidArgumentError,
        "do not add up",
    ),
    (
        _meta(dtype=1, dim=[1 << 40], content_length=4 << 40),
        b"",
        tf.errors.ResourceExhaustedError,
        "accepts at most",
    ),
]


@pytest.mark.parametrize(("meta", "payload", "error", "message"), _BAD_DESCRIPTIONS)
def test_decode_rejects_bad_descriptions(
    meta: named_tensor_pb2.TensorMeta, payload: bytes, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        coding.decode([meta], memoryview(payload))


@pytest.mark.parametrize(("meta", "payload", "error", "message"), _BAD_DESCRIPTIONS[1:])
def test_read_frame_rejects_bad_descriptions_before_any_decoding(
    meta: named_tensor_pb2.TensorMeta, payload: bytes, error: type, message: str
) -> None:
    """Receivers decode what read_frame gives without checking the descriptions again."""
    resp = worker_pb2.RecvTensorResponse(request_id=3)
    resp.tensor.CopyFrom(meta)
    framed = coding.frame(resp.SerializeToString(), [payload] if payload else [])
    with pytest.raises(error, match=message):
        coding.read_frame(
            iter([framed]), worker_pb2.RecvTensorResponse.FromString, lambda r: [r.tensor]
        )


def test_decode_checked_gives_what_decode_gives() -> None:
    vals = [np.arange(6, dtype=np.float32).reshape(2, 3), np.array([b"ab", b""], dtype=object)]
    req = master_pb2.RunStepRequest()
    buffers = coding.fill_named(req.feed, ["a", "b"], vals)
    frame = coding.read_frame(
        iter([coding.frame(req.SerializeToString(), buffers)]),
        master_pb2.RunStepRequest.FromString,
        lambda r: [f.tensor for f in r.feed],
    )
    assert frame is not None
    header, payload = frame
    metas = [f.tensor for f in header.feed]
    for got, want in zip(coding.decode_checked(metas, payload), coding.decode(metas, payload)):
        _assert_same(got, want)


def test_stream_refuses_huge_declarations_before_allocating() -> None:
    req = master_pb2.RunStepRequest()
    req.feed.add(name="x").tensor.CopyFrom(_meta(dtype=1, dim=[1 << 40], content_length=4 << 40))
    with pytest.raises(tf.errors.ResourceExhaustedError):
        coding.read_stream(
            [req.SerializeToString()],
            master_pb2.RunStepRequest.FromString,
            lambda r: [f.tensor for f in r.feed],
        )


def test_stream_rejects_short_long_and_odd_streams() -> None:
    value = np.arange(16, dtype=np.uint8)
    req, buffers = _request([value])
    messages = list(coding.frame_stream(req.SerializeToString(), buffers, chunk=4))

    def read(msgs: list[bytes]) -> object:
        return coding.read_stream(
            msgs, master_pb2.RunStepRequest.FromString, lambda r: [f.tensor for f in r.feed]
        )

    with pytest.raises(tf.errors.InvalidArgumentError, match="ended after 12 of 16"):
        read(messages[:-1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than the"):
        read([*messages, messages[-1]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="only carry tensor_payload"):
        read([*messages[:-1], messages[0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Empty message stream"):
        read([])


def test_split_rejects_truncated_payloads_and_bad_varints() -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match="Truncated"):
        coding.split(b"\x7a\x10abc")
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad varint"):
        coding.split(b"\x7a\xff\xff")


def test_parse_reports_malformed_bytes() -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match="Malformed RunStepRequest"):
        coding.parse(master_pb2.RunStepRequest.FromString, b"\x0a\xff\x01", "RunStepRequest")


def test_unsendable_values() -> None:
    meta = named_tensor_pb2.TensorMeta()
    with pytest.raises(tf.errors.InvalidArgumentError, match="numpy dtype datetime64"):
        coding.fill_meta(meta, np.array([1], dtype="datetime64[s]"))


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64, np.complex128])
def test_wide_unsigned_and_complex128_values_are_sent(dtype: Any) -> None:
    meta = named_tensor_pb2.TensorMeta()
    coding.fill_meta(meta, np.array([1, 2], dtype=dtype))
    assert meta.dtype == tf.as_dtype(dtype).as_datatype_enum


def test_generated_protos_are_current() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_protos.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


def test_scattered_frames_are_the_joined_frames_and_cross_a_socket_whole() -> None:
    """frame_stream(scatter=True) holds each message as Pieces viewing the tensors; joined
    they are the very bytes of the plain frames, and a direct Wire sends them as they are."""
    arrays = [np.arange(300_000, dtype=np.float32), np.arange(7, dtype=np.int64)]
    buffers = [coding.fill_meta(named_tensor_pb2.TensorMeta(), a)[0] for a in arrays]
    header = b"\x08\x01"
    plain = list(coding.frame_stream(header, buffers, chunk=1 << 19))
    scattered = list(coding.frame_stream(header, buffers, chunk=1 << 19, scatter=True))
    assert all(isinstance(m, coding.Pieces) for m in scattered)
    assert [coding.joined(m) for m in scattered] == plain
    assert len(plain) == 3  # 1.2 MB in chunks of 512 KiB

    listener = socket.create_server(("127.0.0.1", 0))
    left = socket.create_connection(listener.getsockname())
    right, _ = listener.accept()
    listener.close()
    # A small send buffer: sendmsg takes part of the pieces at a time.
    left.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16384)
    got: list[bytes] = []
    incoming = wire.Wire(right)
    reader = threading.Thread(target=lambda: got.extend(bytes(incoming.read()) for _ in plain))
    reader.start()
    wire.Wire(left).write(scattered)
    reader.join(30)
    assert got == plain
    left.close()
    right.close()


def _boxed_rows() -> np.ndarray:
    rows = np.empty((2, 3), dtype=object)
    rows[0] = [np.array([[0]], np.int64), np.array([b"a"], dtype=object), np.array([4], np.int64)]
    rows[1] = [np.zeros((0, 1), np.int64), np.array([], dtype=object), np.array([2], np.int64)]
    return rows


def test_a_variant_tensor_holding_tensors_travels_as_their_tensor_protos() -> None:
    """A dataset's boxed SparseTensors ([n, 3] variants) cross between tasks, each element
    a serialized TensorProto, as TF encodes a variant that holds a tensor."""
    meta = named_tensor_pb2.TensorMeta()
    payload = b"".join(bytes(b) for b in coding.fill_meta(meta, _boxed_rows()))
    assert meta.dtype == tf.variant.as_datatype_enum
    (got,) = coding.decode([meta], memoryview(payload))
    assert got.shape == (2, 3)
    for mine, sent in zip(got.reshape(-1), _boxed_rows().reshape(-1)):
        assert mine.dtype == sent.dtype and mine.shape == sent.shape
        assert mine.tolist() == sent.tolist()


def _variant_meta(element: bytes) -> named_tensor_pb2.TensorMeta:
    meta = named_tensor_pb2.TensorMeta(
        dtype=tf.variant.as_datatype_enum, content_length=len(element)
    )
    meta.dim.append(1)
    meta.string_length.append(len(element))
    return meta


def test_a_variant_element_that_is_not_a_whole_tensor_is_refused() -> None:
    """One value may not fill a huge shape, and bytes that are no TensorProto are refused:
    InvalidArgument, nothing allocated."""
    lone = tf.make_tensor_proto(1.0)
    lone.tensor_shape.dim.add().size = 10**9
    for element in (lone.SerializeToString(), b"\xff\xff\xff"):
        with pytest.raises(tf.errors.InvalidArgumentError, match="variant tensor"):
            coding.decode([_variant_meta(element)], memoryview(element))


def test_a_variant_tensor_proto_holds_each_tensor_as_tf_encodes_it() -> None:
    """DT_VARIANT TensorProtos (a file cache of boxed SparseTensors): each value is
    type_name "tensorflow::Tensor" holding that tensor, read back as it was."""
    from tfcluster.framework import tensor_util

    proto = tensor_util.as_proto_tensor_content(_boxed_rows())
    assert proto.dtype == tf.variant.as_datatype_enum
    assert {v.type_name for v in proto.variant_val} == {"tensorflow::Tensor"}
    back = tensor_util.make_ndarray(proto)
    assert [x.tolist() for x in back.reshape(-1)] == [x.tolist() for x in _boxed_rows().reshape(-1)]
    proto.variant_val[0].type_name = "tensorflow::data::Dataset"
    with pytest.raises(tf.errors.UnimplementedError, match="Dataset"):
        tensor_util.make_ndarray(proto)
