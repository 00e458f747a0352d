"""TF error classes <-> gRPC status codes, both ways (the numbers are the same)."""

from __future__ import annotations

import grpc
import pytest
import tfcluster as tf
from tfcluster.framework import errors
from tfcluster.rpc import status

CLASSES = [
    (tf.errors.CancelledError, grpc.StatusCode.CANCELLED),
    (tf.errors.UnknownError, grpc.StatusCode.UNKNOWN),
    (tf.errors.InvalidArgumentError, grpc.StatusCode.INVALID_ARGUMENT),
    (tf.errors.DeadlineExceededError, grpc.StatusCode.DEADLINE_EXCEEDED),
    (tf.errors.NotFoundError, grpc.StatusCode.NOT_FOUND),
    (tf.errors.AlreadyExistsError, grpc.StatusCode.ALREADY_EXISTS),
    (tf.errors.PermissionDeniedError, grpc.StatusCode.PERMISSION_DENIED),
    (tf.errors.ResourceExhaustedError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (tf.errors.FailedPreconditionError, grpc.StatusCode.FAILED_PRECONDITION),
    (tf.errors.AbortedError, grpc.StatusCode.ABORTED),
    (tf.errors.OutOfRangeError, grpc.StatusCode.OUT_OF_RANGE),
    (tf.errors.UnimplementedError, grpc.StatusCode.UNIMPLEMENTED),
    (tf.errors.InternalError, grpc.StatusCode.INTERNAL),
    (tf.errors.UnavailableError, grpc.StatusCode.UNAVAILABLE),
    (tf.errors.DataLossError, grpc.StatusCode.DATA_LOSS),
    (tf.errors.UnauthenticatedError, grpc.StatusCode.UNAUTHENTICATED),
]


class _Failed(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


@pytest.mark.parametrize(("cls", "code"), CLASSES)
def test_both_ways(cls: type[errors.OpError], code: grpc.StatusCode) -> None:
    err = cls(None, None, "what went wrong")
    assert status.status_code(err.error_code) is code
    assert code.value[0] == err.error_code
    back = status.from_rpc_error(_Failed(code, "what went wrong"), "RunStep on master x")
    assert type(back) is cls
    assert back.message.startswith("what went wrong")


def test_a_call_the_peer_ended_while_stopping_is_unavailable() -> None:
    """gRPC's own CANCELLED (a server that stops cancels what it serves) means the task went
    away; a TF CancelledError the server sent keeps its class and text."""
    ended = status.from_rpc_error(
        _Failed(grpc.StatusCode.CANCELLED, "CANCELLED"), "RecvTensors on ps"
    )
    assert isinstance(ended, tf.errors.UnavailableError)
    assert "RecvTensors on ps" in ended.message and "stopping or restarting" in ended.message
    sent = status.from_rpc_error(
        _Failed(grpc.StatusCode.CANCELLED, "Step was cancelled by Session.close()"), "RunStep"
    )
    assert type(sent) is tf.errors.CancelledError


def test_transport_failures_name_the_call_and_peer() -> None:
    err = status.from_rpc_error(
        _Failed(grpc.StatusCode.UNAVAILABLE, "failed to connect"), "RunGraph on /job:w/task:1"
    )
    assert isinstance(err, tf.errors.UnavailableError)
    assert err.message == "failed to connect (RunGraph on /job:w/task:1)"
    # A TF error the server raised keeps its message exactly.
    err = status.from_rpc_error(
        _Failed(grpc.StatusCode.FAILED_PRECONDITION, "Attempting to use uninitialized value v"),
        "RunStep",
    )
    assert err.message == "Attempting to use uninitialized value v"


def test_unexpected_exceptions_become_internal_or_resource_exhausted() -> None:
    assert isinstance(status.as_op_error(MemoryError("big")), tf.errors.ResourceExhaustedError)
    internal = status.as_op_error(ZeroDivisionError("oops"))
    assert isinstance(internal, tf.errors.InternalError)
    assert internal.message == "ZeroDivisionError: oops"
    same = tf.errors.NotFoundError(None, None, "x")
    assert status.as_op_error(same) is same
