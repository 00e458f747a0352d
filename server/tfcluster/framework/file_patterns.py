"""TensorFlow 1.15's local file system rules, shared by tf.gfile and the checkpoint files:
the error class TF gives each errno, and its file matching (GetMatchingPaths), where a
pattern is fnmatch's with FNM_PATHNAME and '\\' escapes the next character, so a path with a
backslash in it ("logs\\model.ckpt") does not match itself."""

from __future__ import annotations

import errno
import os
import re
from typing import NoReturn

from tfcluster.framework import errors

_E = errors
CLASS_OF_ERRNO: dict[int, type[errors.OpError]] = {}
for _cls, _names in (
    (
        _E.InvalidArgumentError,
        "EINVAL ENAMETOOLONG E2BIG EDESTADDRREQ EDOM EFAULT EILSEQ ENOPROTOOPT ENOSTR "
        "ENOTSOCK ENOTTY EPROTOTYPE ESPIPE",
    ),
    (_E.DeadlineExceededError, "ETIMEDOUT ETIME"),
    (_E.NotFoundError, "ENODEV ENOENT ENXIO ESRCH"),
    (_E.AlreadyExistsError, "EEXIST EADDRNOTAVAIL EALREADY"),
    (_E.PermissionDeniedError, "EPERM EACCES EROFS"),
    (
        _E.FailedPreconditionError,
        "ENOTEMPTY EISDIR ENOTDIR EADDRINUSE EBADF EBUSY ECHILD EISCONN ENOTBLK ENOTCONN "
        "EPIPE ESHUTDOWN ETXTBSY",
    ),
    (
        _E.ResourceExhaustedError,
        "ENOSPC EDQUOT EMFILE EMLINK ENFILE ENOBUFS ENODATA ENOMEM ENOSR EUSERS",
    ),
    (_E.OutOfRangeError, "EFBIG EOVERFLOW ERANGE"),
    (
        _E.UnimplementedError,
        "ENOSYS ENOTSUP EAFNOSUPPORT EPFNOSUPPORT EPROTONOSUPPORT ESOCKTNOSUPPORT EXDEV",
    ),
    (
        _E.UnavailableError,
        "EAGAIN ECONNREFUSED ECONNABORTED ECONNRESET EINTR EHOSTDOWN EHOSTUNREACH ENETDOWN "
        "ENETRESET ENETUNREACH ENOLCK ENOLINK ENONET",
    ),
    (_E.AbortedError, "EDEADLK ESTALE"),
    (_E.CancelledError, "ECANCELED"),
):
    for _name in _names.split():
        if hasattr(errno, _name):
            CLASS_OF_ERRNO.setdefault(getattr(errno, _name), _cls)


def raise_os_error(e: OSError, context: str) -> NoReturn:
    """TF's IOError(context, errno): its class for the errno, "<context>; <strerror>"."""
    if e.errno is None:
        raise errors.UnknownError(None, None, f"{context}; {e}") from e
    cls = CLASS_OF_ERRNO.get(e.errno, errors.UnknownError)
    raise cls(None, None, f"{context}; {os.strerror(e.errno)}") from e


def join_path(parent: str, item: str) -> str:
    if item.startswith(os.sep):
        return os.path.join(parent, "") + item
    return os.path.join(parent, item)


# --------------------------------------------------------------------------------------------
# Glob: TensorFlow's patterns are fnmatch's with FNM_PATHNAME ('*', '?' and brackets never
# match '/'; a leading '.' is matched like any character; '\\' escapes), one path component at
# a time.


def component_regex(pattern: str) -> re.Pattern[str]:
    out = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i < n:
            out.append(re.escape(pattern[i]))
            i += 1
        elif c == "[":
            end, body = _bracket(pattern, i)
            if end < 0:
                out.append(re.escape(c))
            else:
                out.append(body)
                i = end
        else:
            out.append(re.escape(c))
    return re.compile("".join(out), re.DOTALL)


def _bracket(pattern: str, i: int) -> tuple[int, str]:
    """(index after the closing ']', regex class) for a bracket opened before i; (-1, '') when
    it does not close."""
    negate = i < len(pattern) and pattern[i] in "!^"
    if negate:
        i += 1
    members: list[str] = []
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            cls = "".join(members)
            return i + 1, f"[^/{cls}]" if negate else f"(?!/)[{cls}]"
        if c == "\\" and i + 1 < len(pattern):
            i += 1
            c = pattern[i]
        if i + 2 < len(pattern) and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            hi = pattern[i + 2]
            members.append(f"{re.escape(c)}-{re.escape(hi)}")
            i += 3
        else:
            members.append(re.escape(c))
            i += 1
        first = False
    return -1, ""


WILDCARDS = re.compile(r"[*?\[\\]")


def matching_paths(local: str, uri_prefix: str = "") -> list[str]:
    """The paths TF 1.15's GetMatchingPaths gives for a local pattern (uri_prefix, e.g.
    "file://host", is put back on the results and on the failing directory's name)."""
    spelled_base = _tf_dirname(_fixed_part(local))
    # Repeated and trailing separators name the same paths (as TF's glob has them).
    local = re.sub("/+", "/", local)
    if len(local) > 1:
        local = local.rstrip("/")
    wildcard = WILDCARDS.search(local)
    fixed = local if wildcard is None else local[: wildcard.start()]
    base = os.path.dirname(fixed)
    if not base:
        base, local = ".", os.path.join(".", local)
    tail = local[len(base) :]
    if base != "/":
        tail = tail[1:]
    found = [base]
    # TF 1.15's GetMatchingPaths fails with the first directory it cannot list (a missing base
    # is NotFoundError "<dir>; No such file or directory", a file FailedPrecondition), except
    # one it may not read, which it skips; matches that are not directories are not descended
    # into. (TF 2.x returns [] for these.)
    failure: OSError | None = None
    failed_dir = ""
    for part in tail.split("/"):
        regex = component_regex(part)
        matched: list[str] = []
        for parent in found:
            try:
                children = os.listdir(parent)
            except PermissionError:
                continue
            except OSError as e:
                if failure is None and (parent is base or os.path.isdir(parent)):
                    failure, failed_dir = e, parent
                continue
            matched.extend(join_path(parent, c) for c in children if regex.fullmatch(c))
        found = matched
    if failure is not None:
        if failed_dir is base and _same_directory(spelled_base, base):
            # TF names the directory as the pattern spells it ("a//b", "a/b/").
            failed_dir = spelled_base
        raise_os_error(failure, uri_prefix + failed_dir)
    return [uri_prefix + p for p in found]


def _fixed_part(pattern: str) -> str:
    wildcard = WILDCARDS.search(pattern)
    return pattern if wildcard is None else pattern[: wildcard.start()]


def _tf_dirname(path: str) -> str:
    """TF's io::Dirname: all before the last '/' ("/" for a root child), unnormalized."""
    pos = path.rfind("/")
    if pos < 0:
        return ""
    return "/" if pos == 0 else path[:pos]


def _same_directory(spelled: str, base: str) -> bool:
    normal = re.sub("/+", "/", spelled)
    if len(normal) > 1:
        normal = normal.rstrip("/")
    return normal == base
