"""TF errors <-> gRPC status (the codes are the same numbers), and servicer method wrappers.

Every handler takes the raw request bytes and parses them itself, so a malformed request gets
INVALID_ARGUMENT with a clear message instead of gRPC's generic deserialization failure, and no
exception escapes a handler: the server keeps serving whatever a client sends.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import grpc

from tfcluster.framework import errors

log = logging.getLogger("tfcluster.rpc")

_BY_CODE: dict[int, grpc.StatusCode] = {c.value[0]: c for c in grpc.StatusCode}
# gRPC sends details in a header: keep them well under the default 8 KiB metadata limit.
_MAX_DETAILS = 4000
# Codes a transport produces by itself: their messages get the call's context appended.
_TRANSPORT_CODES = {
    errors.UNAVAILABLE,
    errors.DEADLINE_EXCEEDED,
    errors.CANCELLED,
    errors.UNKNOWN,
    errors.INTERNAL,
    errors.RESOURCE_EXHAUSTED,
}


def status_code(code: int) -> grpc.StatusCode:
    return _BY_CODE.get(code, grpc.StatusCode.UNKNOWN)


def as_op_error(err: BaseException) -> errors.OpError:
    """Any exception a handler raised, as the TF error the client should see."""
    if isinstance(err, errors.OpError):
        return err
    if isinstance(err, MemoryError):
        return errors.ResourceExhaustedError(None, None, f"Out of memory: {err}")
    log.exception("unexpected error in a handler", exc_info=err)
    return errors.InternalError(None, None, f"{type(err).__name__}: {err}")


def abort(context: grpc.ServicerContext, err: BaseException) -> NoReturn:
    op_err = as_op_error(err)
    message = op_err.message
    if len(message) > _MAX_DETAILS:
        message = message[:_MAX_DETAILS] + "... (truncated)"
    context.abort(status_code(op_err.error_code), message)
    raise AssertionError("unreachable: context.abort raises")  # pragma: no cover


def from_rpc_error(err: grpc.RpcError, where: str) -> errors.OpError:
    """The TF error for a failed call; transport failures say which call and peer failed."""
    code_obj = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    code = code_obj.value[0] if code_obj is not None else errors.UNKNOWN
    details = (err.details() if hasattr(err, "details") else None) or str(code_obj)
    if code == errors.CANCELLED and _ended_by_peer_transport(details):
        # The peer's gRPC ended a call this process did not cancel, with no TF error of its own:
        # the task is stopping (its server cancels what it serves), which callers must see as
        # a task going away, not as a cancel (a TF CancelledError a server sends keeps its text).
        return errors.UnavailableError(
            None, None, f"{where}: the task ended the call ({details}): stopping or restarting"
        )
    if code in _TRANSPORT_CODES:
        details = f"{details} ({where})"
    return errors.exception_for_code(code)(None, None, details)


def _ended_by_peer_transport(details: str) -> bool:
    text = details.strip()
    return text.lower() in ("cancelled", "canceled", "statuscode.cancelled") or text.startswith(
        "Received RST_STREAM"
    )


def unary(fn: Callable[[bytes, grpc.ServicerContext], bytes]) -> grpc.RpcMethodHandler:
    """A unary-unary handler on raw bytes."""

    def handler(data: bytes, context: grpc.ServicerContext) -> bytes:
        try:
            return fn(data, context)
        except Exception as e:
            abort(context, e)

    return grpc.unary_unary_rpc_method_handler(handler)


def unary_stream(
    fn: Callable[[bytes, grpc.ServicerContext], Iterator[bytes]],
) -> grpc.RpcMethodHandler:
    def handler(data: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        try:
            yield from fn(data, context)
        except Exception as e:
            abort(context, e)

    return grpc.unary_stream_rpc_method_handler(handler)


def stream_stream(
    fn: Callable[[Iterator[bytes], grpc.ServicerContext], Iterator[bytes]],
) -> grpc.RpcMethodHandler:
    def handler(messages: Iterator[bytes], context: grpc.ServicerContext) -> Iterator[bytes]:
        try:
            yield from fn(messages, context)
        except grpc.RpcError:
            return  # reading the requests failed: the client went away, the call is over
        except Exception as e:
            abort(context, e)

    return grpc.stream_stream_rpc_method_handler(handler)


def deadline_of(context: grpc.ServicerContext) -> float | None:
    """The call's deadline as a time.monotonic() value (None: the caller set none)."""
    left = context.time_remaining()
    if left is None or left > 1e8:
        return None
    return time.monotonic() + max(0.0, left)


def timeout_until(deadline: float | None) -> float | None:
    if deadline is None:
        return None
    return max(0.001, deadline - time.monotonic())


def passthrough(x: Any) -> Any:
    return x
