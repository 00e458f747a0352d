"""tf.resource_loader: data files found relative to the calling program's file (or, for
load_resource, to the tfcluster package, as TF's are to the tensorflow package)."""

from __future__ import annotations

import inspect
import os
import sys

_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _caller_dir(depth: int) -> str:
    return os.path.dirname(inspect.getfile(sys._getframe(depth + 1)))


def load_resource(path: str) -> bytes:
    """The bytes of the file at path, relative to the tfcluster package; OSError if missing."""
    with open(os.path.abspath(os.path.join(_PACKAGE_ROOT, path)), "rb") as f:
        return f.read()


def get_data_files_path() -> str:
    """The directory of the file that calls this."""
    return _caller_dir(1)


def get_root_dir_with_all_resources() -> str:
    """The root of a Bazel runfiles tree this module runs from, else this module's directory
    (what TF does for the tensorflow package)."""
    script_dir = os.path.dirname(os.path.abspath(__file__))
    directories = [script_dir]
    while True:
        candidate = directories[-1]
        if ".runfiles" in os.path.basename(candidate):
            return directories[-2] if len(directories) > 1 else script_dir
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return script_dir
        directories.append(parent)


def get_path_to_datafile(path: str) -> str:
    """path, relative to the directory of the file that calls this."""
    return os.path.join(_caller_dir(1), path)


def readahead_file_path(path: str, readahead: str = "128M") -> str:
    """TF's open-source build has no readahead file system: the path, unchanged."""
    del readahead
    return path
