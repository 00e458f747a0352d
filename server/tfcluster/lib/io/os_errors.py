"""OSError -> TensorFlow's error class, with TF's message shape ("<path>; <reason>")."""

from __future__ import annotations

import errno

from tfcluster.framework import errors

_BY_ERRNO: dict[int, type[errors.OpError]] = {
    errno.ENOENT: errors.NotFoundError,
    errno.ENOTDIR: errors.NotFoundError,
    errno.EACCES: errors.PermissionDeniedError,
    errno.EPERM: errors.PermissionDeniedError,
    errno.EEXIST: errors.AlreadyExistsError,
    errno.ENOSPC: errors.ResourceExhaustedError,
    errno.EISDIR: errors.FailedPreconditionError,
}


def as_tf_error(e: OSError, path: str) -> errors.OpError:
    cls = _BY_ERRNO.get(e.errno or 0, errors.UnknownError)
    reason = e.strerror or str(e)
    return cls(None, None, f"{path}; {reason}")
