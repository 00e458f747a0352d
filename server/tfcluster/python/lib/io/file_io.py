"""tensorflow.python.lib.io.file_io: TF's file functions under their module-level names
(file_exists, get_matching_files, read_file_to_string, ...), which Cloud ML-era programs import
directly (`from tensorflow.python.lib.io import file_io`). Each is tfcluster's tf.io.gfile
function with TF 1.15's parameter names; FileIO is tf.gfile.GFile's class."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

from tfcluster.framework import errors
from tfcluster.lib.io import gfile as _g

FileIO = _g.GFile
FileStatistics = _g.FileStatistics


def file_exists(filename: Any) -> bool:
    return _g.exists(filename)


def file_exists_v2(path: Any) -> bool:
    return _g.exists(path)


def delete_file(filename: Any) -> None:
    _g.remove(filename)


def delete_file_v2(path: Any) -> None:
    _g.remove(path)


def read_file_to_string(filename: Any, binary_mode: bool = False) -> str | bytes:
    """The whole file: str (UTF-8) by default, bytes with binary_mode."""
    with FileIO(filename, mode="rb" if binary_mode else "r") as f:
        return f.read()


def write_string_to_file(filename: Any, file_content: str | bytes) -> None:
    with FileIO(filename, mode="w") as f:
        f.write(file_content)


def get_matching_files(filename: Any) -> list[str]:
    return get_matching_files_v2(filename)


def get_matching_files_v2(pattern: Any) -> list[str]:
    """The paths matching a pattern, or matching any of a list of patterns (each pattern's
    matches in turn, as TF concatenates them)."""
    if isinstance(pattern, (list, tuple)):
        return [path for single in pattern for path in _g.glob(single)]
    return _g.glob(pattern)


def create_dir(dirname: Any) -> None:
    _g.mkdir(dirname)


def create_dir_v2(path: Any) -> None:
    _g.mkdir(path)


def recursive_create_dir(dirname: Any) -> None:
    _g.makedirs(dirname)


def recursive_create_dir_v2(path: Any) -> None:
    _g.makedirs(path)


def copy(oldpath: Any, newpath: Any, overwrite: bool = False) -> None:
    _g.copy(oldpath, newpath, overwrite)


def copy_v2(src: Any, dst: Any, overwrite: bool = False) -> None:
    _g.copy(src, dst, overwrite)


def rename(oldname: Any, newname: Any, overwrite: bool = False) -> None:
    _g.rename(oldname, newname, overwrite)


def rename_v2(src: Any, dst: Any, overwrite: bool = False) -> None:
    _g.rename(src, dst, overwrite)


def atomic_write_string_to_file(
    filename: Any, contents: str | bytes, overwrite: bool = True
) -> None:
    """Writes a temporary file beside filename and renames it into place, so readers never see
    a partly written file; the temporary file is removed if the rename fails."""
    temp = f"{filename}.tmp{uuid.uuid4().hex}"
    write_string_to_file(temp, contents)
    try:
        rename(temp, filename, overwrite)
    except errors.OpError:
        delete_file(temp)
        raise


def delete_recursively(dirname: Any) -> None:
    _g.rmtree(dirname)


def delete_recursively_v2(path: Any) -> None:
    _g.rmtree(path)


def is_directory(dirname: Any) -> bool:
    return _g.isdir(dirname)


def is_directory_v2(path: Any) -> bool:
    return _g.isdir(path)


def list_directory(dirname: Any) -> list[str]:
    return _g.listdir(dirname)


def list_directory_v2(path: Any) -> list[str]:
    return _g.listdir(path)


def walk(top: Any, in_order: bool = True) -> Iterator[tuple[str, list[str], list[str]]]:
    return _g.walk(top, topdown=in_order)


def walk_v2(
    top: Any, topdown: bool = True, onerror: Callable[[errors.OpError], Any] | None = None
) -> Iterator[tuple[str, list[str], list[str]]]:
    return _g.walk(top, topdown, onerror)


def stat(filename: Any) -> FileStatistics:
    return _g.stat(filename)


def stat_v2(path: Any) -> FileStatistics:
    return _g.stat(path)
