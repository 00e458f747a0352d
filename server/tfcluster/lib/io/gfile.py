"""tf.gfile / tf.io.gfile on the local file system, with TF 1.15's semantics and error classes.

Failures carry the class TensorFlow gives the same errno (TF's posix ErrnoToCode: ENOENT is
NotFoundError, EEXIST AlreadyExistsError, EISDIR/ENOTDIR/ENOTEMPTY FailedPreconditionError,
...), with TF's "<path>; <strerror>" messages. Paths may be str, bytes, os.PathLike or
file:// URIs; any other scheme (gs://, hdfs://, s3://, ...) raises UnimplementedError naming
it, as TensorFlow does for a file system it was built without.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from tfcluster.framework import errors
from tfcluster.framework.file_patterns import join_path as _join
from tfcluster.framework.file_patterns import matching_paths
from tfcluster.framework.file_patterns import raise_os_error as _raise_os_error
from tfcluster.lib import compat

__all__ = [
    "Copy",
    "DeleteRecursively",
    "Exists",
    "FastGFile",
    "FileStatistics",
    "GFile",
    "Glob",
    "IsDirectory",
    "ListDirectory",
    "MakeDirs",
    "MkDir",
    "Open",
    "Remove",
    "Rename",
    "Stat",
    "Walk",
    "copy",
    "exists",
    "glob",
    "isdir",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]


_URI = re.compile(r"^([a-zA-Z][0-9a-zA-Z.]*)://(.*)$", re.DOTALL)


def _local(path: Any) -> str:
    """The local file system path of path (str, bytes, PathLike or file:// URI)."""
    path = compat.path_to_str(path)
    if isinstance(path, bytes | bytearray):
        path = compat.as_str(bytes(path))
    if not isinstance(path, str):
        raise TypeError(f"Expected a path (str, bytes or os.PathLike), got {path!r}")
    uri = _URI.match(path)
    if uri is None:
        return path
    scheme, rest = uri.groups()
    if scheme != "file":
        raise errors.UnimplementedError(
            None,
            None,
            f"File system scheme '{scheme}' not implemented (file: '{path}'): tfcluster's "
            "gfile reads and writes local files only",
        )
    # file://host/path: the host is ignored, as TensorFlow's local file system does.
    slash = rest.find("/")
    return rest[slash:] if slash >= 0 else ""


def _display(path: Any) -> str:
    """The path as TF's messages show it."""
    return compat.as_str_any(compat.path_to_str(path))


# --------------------------------------------------------------------------------------------
# Queries


def exists(path: Any) -> bool:
    """True when path names a file or a directory."""
    return os.path.exists(_local(path))


def isdir(path: Any) -> bool:
    return os.path.isdir(_local(path))


@dataclass
class FileStatistics:
    """What tf.gfile.Stat returns: size in bytes, modification time in nanoseconds (whole
    seconds, as TF's posix file system gives it) and whether it is a directory."""

    length: int
    mtime_nsec: int
    is_directory: bool


def stat(path: Any) -> FileStatistics:
    local = _local(path)
    try:
        st = os.stat(local)
    except OSError as e:
        _raise_os_error(e, _display(path))
    return FileStatistics(
        length=st.st_size,
        mtime_nsec=int(st.st_mtime) * 1_000_000_000,
        is_directory=os.path.isdir(local),
    )


def listdir(path: Any) -> list[str]:
    """The entries of a directory (no '.' or '..'), in the file system's order."""
    local = _local(path)
    if not os.path.isdir(local):
        raise errors.NotFoundError(None, None, f"Could not find directory {_display(path)}")
    try:
        return os.listdir(local)
    except OSError as e:
        _raise_os_error(e, _display(path))


def walk(
    top: Any, topdown: bool = True, onerror: Callable[[errors.OpError], Any] | None = None
) -> Iterator[tuple[str, list[str], list[str]]]:
    """(directory, subdirectories, files) for top and every directory under it; a top that is
    not a directory yields nothing (onerror, if given, is called with the NotFoundError)."""
    top = compat.as_str_any(compat.path_to_str(top))
    try:
        listing = listdir(top)
    except errors.NotFoundError as err:
        if onerror is not None:
            onerror(err)
        return
    subdirs: list[str] = []
    files: list[str] = []
    for item in listing:
        (subdirs if isdir(_join(top, item)) else files).append(item)
    here = (top, subdirs, files)
    if topdown:
        yield here
    for subdir in subdirs:
        yield from walk(_join(top, subdir), topdown, onerror)
    if not topdown:
        yield here


def _glob_one(pattern: str) -> list[str]:
    if not pattern:
        return []
    local = _local(pattern)
    uri_prefix = pattern[: len(pattern) - len(local)]  # "file://host", kept on the results
    return matching_paths(local, uri_prefix)


def glob(pattern: Any) -> list[str]:
    """The paths that match pattern (or any of a list of patterns)."""
    if isinstance(pattern, str | bytes) or hasattr(pattern, "__fspath__"):
        return _glob_one(_display(pattern))
    return [p for single in pattern for p in _glob_one(_display(single))]


# --------------------------------------------------------------------------------------------
# Changes


def mkdir(path: Any) -> None:
    """Creates one directory; its parent must exist. A path that exists already is left as
    it is (TF ignores AlreadyExists here, even for a file)."""
    try:
        os.mkdir(_local(path), 0o755)
    except FileExistsError:
        return
    except OSError as e:
        _raise_os_error(e, _display(path))


def makedirs(path: Any) -> None:
    """Creates a directory and its missing parents; a directory that exists is left as it is,
    and an existing path on the way that is not a directory is FailedPreconditionError."""
    remaining = _local(path)
    missing: list[str] = []
    while remaining:
        if os.path.exists(remaining):
            if not os.path.isdir(remaining):
                raise errors.FailedPreconditionError(None, None, f"{remaining} is not a directory")
            break
        if not remaining.endswith("/"):
            missing.append(os.path.basename(remaining))
        parent = os.path.dirname(remaining)
        if parent == remaining:
            break
        remaining = parent
    built = remaining
    for name in reversed(missing):
        built = os.path.join(built, name) if built else name
        try:
            os.mkdir(built, 0o755)
        except FileExistsError:
            continue
        except OSError as e:
            _raise_os_error(e, built)


def remove(path: Any) -> None:
    """Deletes a file."""
    try:
        os.unlink(_local(path))
    except OSError as e:
        _raise_os_error(e, _display(path))


def rmtree(path: Any) -> None:
    """Deletes a directory and everything under it (or a single file)."""
    local = _local(path)
    if not os.path.lexists(local):
        raise errors.NotFoundError(None, None, f"{_display(path)} not found")
    if not os.path.isdir(local) or os.path.islink(local):
        remove(path)
        return
    try:
        shutil.rmtree(local)
    except OSError as e:
        _raise_os_error(e, e.filename or _display(path))


def copy(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Copies the file src to dst; dst must not exist unless overwrite."""
    local_src, local_dst = _local(src), _local(dst)
    if not overwrite and os.path.exists(local_dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    if os.path.isdir(local_src):  # TF's copy of a directory fails writing dst (EINVAL)
        raise errors.InvalidArgumentError(None, None, f"{_display(dst)}; Invalid argument")
    try:
        with open(local_src, "rb") as fin:
            try:
                with open(local_dst, "wb") as fout:
                    shutil.copyfileobj(fin, fout, 1 << 20)
            except OSError as e:
                _raise_os_error(e, _display(dst))
    except OSError as e:
        _raise_os_error(e, _display(src))


def rename(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Renames (moves) a file or directory; dst must not exist unless overwrite."""
    local_src, local_dst = _local(src), _local(dst)
    if not overwrite and os.path.exists(local_dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        os.rename(local_src, local_dst)
    except OSError as e:
        _raise_os_error(e, _display(src))


# --------------------------------------------------------------------------------------------
# Files

_MODES = ("r", "w", "a", "r+", "w+", "a+")


class GFile:
    """A file, as TF's FileIO: opened for reading on the first read and for writing on the
    first write (a file opened with "w" and never written is not created). Text modes read
    str (UTF-8, lines kept as they are) and binary modes bytes; either writes str or bytes.
    read(n) counts bytes."""

    def __init__(self, name: Any, mode: str = "r") -> None:
        self._name = name
        self._mode = mode
        self._binary = "b" in mode
        base = mode.replace("b", "")
        if base not in _MODES:
            raise errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'"
            )
        self._readable = base in ("r", "r+", "a+", "w+")
        self._writable = base in ("a", "w", "r+", "a+", "w+")
        self._append = "a" in base
        self._path = _local(name)
        self._reader: IO[bytes] | None = None
        self._writer: IO[bytes] | None = None

    @property
    def name(self) -> Any:
        return self._name

    @property
    def mode(self) -> str:
        return self._mode

    def _read_handle(self) -> IO[bytes]:
        if self._reader is None:
            if not self._readable:
                raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
            try:
                self._reader = open(self._path, "rb")  # noqa: SIM115 (closed by close())
            except OSError as e:
                _raise_os_error(e, _display(self._name))
        return self._reader

    def _write_handle(self) -> IO[bytes]:
        if self._writer is None:
            if not self._writable:
                raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
            try:
                self._writer = open(self._path, "ab" if self._append else "wb")  # noqa: SIM115
            except OSError as e:
                _raise_os_error(e, _display(self._name))
        return self._writer

    def _value(self, data: bytes) -> bytes | str:
        return data if self._binary else compat.as_str_any(data)

    def _io(self, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except OSError as e:
            _raise_os_error(e, _display(self._name))

    def size(self) -> int:
        return stat(self._name).length

    def write(self, file_content: Any) -> None:
        data = compat.as_bytes(file_content)
        handle = self._write_handle()
        self._io(lambda: handle.write(data))

    def read(self, n: int = -1) -> bytes | str:
        handle = self._read_handle()
        return self._value(self._io(lambda: handle.read(-1 if n is None else n)))

    def readline(self) -> bytes | str:
        handle = self._read_handle()
        return self._value(self._io(handle.readline))

    def readlines(self) -> list[bytes | str]:
        lines = []
        while line := self.readline():
            lines.append(line)
        return lines

    def seek(self, offset: int | None = None, whence: int = 0, position: int | None = None) -> None:
        handle = self._read_handle()
        if offset is None and position is None:
            raise TypeError("seek(): offset argument required")
        if offset is not None and position is not None:
            raise TypeError("seek(): offset and position may not be set simultaneously.")
        target = offset if offset is not None else position
        assert target is not None
        if whence == 1:
            target += handle.tell()
        elif whence == 2:
            target += self.size()
        elif whence != 0:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid whence argument: {whence}. Valid values are 0, 1, or 2."
            )
        if target < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Seeking to a negative position: {target}"
            )
        end = self._io(lambda: os.fstat(handle.fileno()).st_size)
        self._io(lambda: handle.seek(min(target, end)))
        if target > end:  # TF stops at the end of the file and says so
            raise errors.OutOfRangeError(None, None, "reached end of file")

    def tell(self) -> int:
        if self._readable:
            return self._read_handle().tell()
        return self._write_handle().tell()

    def flush(self) -> None:
        if self._writer is not None:
            handle = self._writer
            self._io(handle.flush)

    def close(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.close()
        writer, self._writer = self._writer, None
        if writer is not None:
            self._io(writer.close)

    def seekable(self) -> bool:
        return True

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> GFile:
        return self

    def __next__(self) -> bytes | str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__


class FastGFile(GFile):
    """TF1's deprecated alias of GFile."""


Open = GFile


# TF1's names (tf.gfile) for the functions above (tf.io.gfile's names), with TF1's parameter
# names (filename, dirname, oldpath, ...), which callers may pass by keyword.
def Exists(filename: Any) -> bool:
    return exists(filename)


def IsDirectory(dirname: Any) -> bool:
    return isdir(dirname)


def Stat(filename: Any) -> FileStatistics:
    return stat(filename)


def ListDirectory(dirname: Any) -> list[str]:
    return listdir(dirname)


def Glob(filename: Any) -> list[str]:
    return glob(filename)


def MkDir(dirname: Any) -> None:
    mkdir(dirname)


def MakeDirs(dirname: Any) -> None:
    makedirs(dirname)


def Remove(filename: Any) -> None:
    remove(filename)


def DeleteRecursively(dirname: Any) -> None:
    rmtree(dirname)


def Copy(oldpath: Any, newpath: Any, overwrite: bool = False) -> None:
    copy(oldpath, newpath, overwrite)


def Rename(oldname: Any, newname: Any, overwrite: bool = False) -> None:
    rename(oldname, newname, overwrite)


def Walk(top: Any, in_order: bool = True) -> Iterator[tuple[str, list[str], list[str]]]:
    """TF1's walk: in_order=True lists a directory before those under it."""
    return walk(top, topdown=in_order)
