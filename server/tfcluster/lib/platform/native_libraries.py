"""tf.load_op_library, tf.load_library and tf.load_file_system_library.

tfcluster's kernels are Python over numpy/cupy registered in tfcluster.kernels: a C++ op
library registers its ops and kernels with TensorFlow's C++ runtime, which tfcluster does not
have, so nothing it holds could run here. These behave as TF 1.15 up to that point (a missing
path is NotFoundError / FileNotFoundError with TF's words, a file the dynamic loader refuses
is NotFoundError with the loader's message) and then raise UnimplementedError saying why."""

from __future__ import annotations

import ctypes
import errno
import os
from typing import Any

from tfcluster.framework import errors

_WHY = (
    "{name}({path!r}): the library loaded, but tfcluster runs Python kernels (numpy/cupy) "
    "and has no TensorFlow C++ runtime for a C++ op or file-system library to register "
    "with; write the op as a tfcluster kernel (tfcluster.kernels.registry) instead"
)


def _dlopen(path: str) -> None:
    """Loads the file as TF's TF_LoadLibrary does; the loader's error as NotFoundError."""
    if not os.path.exists(path):
        raise errors.NotFoundError(
            None, None, f"{path}: cannot open shared object file: No such file or directory"
        )
    try:
        ctypes.CDLL(path, mode=os.RTLD_LOCAL | os.RTLD_NOW)
    except OSError as e:
        raise errors.NotFoundError(None, None, str(e)) from None


def load_op_library(library_filename: str) -> Any:
    _dlopen(library_filename)
    raise errors.UnimplementedError(
        None, None, _WHY.format(name="tf.load_op_library", path=library_filename)
    )


def load_file_system_library(library_filename: str) -> None:
    _dlopen(library_filename)
    raise errors.UnimplementedError(
        None, None, _WHY.format(name="tf.load_file_system_library", path=library_filename)
    )


def load_library(library_location: str) -> None:
    """A file, or every library file in a folder, as TF 1.15."""
    if not os.path.exists(library_location):
        raise OSError(
            errno.ENOENT,
            "The file or folder to load kernel libraries from does not exist.",
            library_location,
        )
    if os.path.isdir(library_location):
        paths = [
            os.path.join(library_location, f)
            for f in sorted(os.listdir(library_location))
            if _is_shared_object(f)
        ]
    else:
        paths = [library_location]
    for path in paths:
        _dlopen(path)
    if not paths:
        return  # a folder without libraries loads nothing, as in TF
    raise errors.UnimplementedError(
        None, None, _WHY.format(name="tf.load_library", path=library_location)
    )


def _is_shared_object(filename: str) -> bool:
    """TF's Linux rule: name.so, or name.so.<digit>..."""
    if filename.endswith(".so"):
        return True
    index = filename.rfind(".so.")
    return index != -1 and filename[index + 4 : index + 5].isdecimal()
