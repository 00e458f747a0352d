"""TensorFlow's error classes, with their canonical gRPC status codes."""

from __future__ import annotations

import warnings as _warnings
from typing import Any, Literal

from tfcluster.framework import error_interpolation

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation a graph tensor cannot do (bool(), iteration): TF 1.15's class, a
    TypeError, outside the public tf.errors of its v1 API."""


def disallowed_in_graph(task: str) -> OperatorNotAllowedInGraphError:
    """TF 1.15's error for `task` on a graph tensor outside autograph (Tensor's
    _disallow_in_graph_mode)."""
    return OperatorNotAllowedInGraphError(
        f"{task} is not allowed in Graph execution. Use Eager execution or decorate this "
        "function with @tf.function."
    )


class OpError(Exception):
    """The base class of runtime errors; carries the failing node and a status code."""

    error_code = UNKNOWN

    def __init__(self, node_def: Any, op: Any, message: str, error_code: int | None = None) -> None:
        # TF requires error_code; its subclasses fill it in. tfcluster's type hints see every
        # error class as OpError, so the default keeps (node_def, op, message) calls typed.
        # As TF's, the exception's args are empty (repr `CancelledError()`); str() is the
        # message.
        super().__init__()
        self._node_def = node_def
        self._op = op
        self._message = message
        if error_code is not None:
            self.error_code = error_code

    @property
    def message(self) -> str:
        return self._message

    @property
    def op(self) -> Any:
        return self._op

    @property
    def node_def(self) -> Any:
        return self._node_def

    def __str__(self) -> str:
        # As TF 1.15: an error about an op of the program ends with the op's creation stack.
        if self._op is not None and hasattr(self._op, "traceback"):
            return (
                f"{self._message}\n\nOriginal stack trace for {self._op.name!r}:\n"
                + error_interpolation.creation_stack(self._op)
            )
        return self._message

    def __reduce__(self) -> Any:
        return (_rebuild, (self.error_code, self._message))


def _rebuild(code: int, message: str) -> OpError:
    return exception_for_code(code)(None, None, message)


def _subclass(name: str, code: int) -> type[OpError]:
    """An error class taking TF's (node_def, op, message); UnknownError also TF's error_code."""
    if code == UNKNOWN:

        def __init__(
            self: OpError, node_def: Any, op: Any, message: str, error_code: int = UNKNOWN
        ) -> None:
            OpError.__init__(self, node_def, op, message, error_code)

    else:

        def __init__(self: OpError, node_def: Any, op: Any, message: str) -> None:  # type: ignore[misc]
            OpError.__init__(self, node_def, op, message, code)

    return type(name, (OpError,), {"__init__": __init__, "error_code": code})


CancelledError = _subclass("CancelledError", CANCELLED)
UnknownError = _subclass("UnknownError", UNKNOWN)
InvalidArgumentError = _subclass("InvalidArgumentError", INVALID_ARGUMENT)
DeadlineExceededError = _subclass("DeadlineExceededError", DEADLINE_EXCEEDED)
NotFoundError = _subclass("NotFoundError", NOT_FOUND)
AlreadyExistsError = _subclass("AlreadyExistsError", ALREADY_EXISTS)
PermissionDeniedError = _subclass("PermissionDeniedError", PERMISSION_DENIED)
ResourceExhaustedError = _subclass("ResourceExhaustedError", RESOURCE_EXHAUSTED)
FailedPreconditionError = _subclass("FailedPreconditionError", FAILED_PRECONDITION)
AbortedError = _subclass("AbortedError", ABORTED)
OutOfRangeError = _subclass("OutOfRangeError", OUT_OF_RANGE)
UnimplementedError = _subclass("UnimplementedError", UNIMPLEMENTED)
InternalError = _subclass("InternalError", INTERNAL)
UnavailableError = _subclass("UnavailableError", UNAVAILABLE)
DataLossError = _subclass("DataLossError", DATA_LOSS)
UnauthenticatedError = _subclass("UnauthenticatedError", UNAUTHENTICATED)

_BY_CODE: dict[int, type[OpError]] = {
    cls.error_code: cls
    for cls in (
        CancelledError,
        UnknownError,
        InvalidArgumentError,
        DeadlineExceededError,
        NotFoundError,
        AlreadyExistsError,
        PermissionDeniedError,
        ResourceExhaustedError,
        FailedPreconditionError,
        AbortedError,
        OutOfRangeError,
        UnimplementedError,
        InternalError,
        UnavailableError,
        DataLossError,
        UnauthenticatedError,
    )
}


def exception_for_code(code: int) -> type[OpError]:
    return _BY_CODE.get(code, UnknownError)


def error_from_code(code: int, message: str) -> OpError:
    return exception_for_code(code)(None, None, message)


def exception_type_from_error_code(error_code: int) -> type[OpError]:
    """The error class of a status code (KeyError for codes that have none, as TF's)."""
    return _BY_CODE[error_code]


def error_code_from_exception_type(cls: Any) -> Any:
    """The status code of an error class; for another class, TF's answer: a warning and an
    UnknownError instance."""
    for code, known in _BY_CODE.items():
        if known is cls:
            return code
    _warnings.warn("Unknown class exception", stacklevel=2)
    return UnknownError(None, None, "Unknown class exception")


class _Status:
    """What raise_exception_on_not_ok_status hands out: a code (OK until set) and a message."""

    def __init__(self) -> None:
        self.code = OK
        self.message = ""

    def set(self, code: int, message: str) -> None:
        self.code = int(code)
        self.message = str(message)


class raise_exception_on_not_ok_status:  # TF's name (a class used as a context manager)
    """Context manager: yields a Status; on leaving, a Status set to a code other than OK is
    raised as that code's error class with its message."""

    def __enter__(self) -> _Status:
        self.status = _Status()
        return self.status

    def __exit__(self, *exc: Any) -> Literal[False]:
        try:
            if self.status.code != OK:
                raise error_from_code(self.status.code, self.status.message)
        finally:
            del self.status
        return False
