"""tf.gfile"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.io.gfile import (
    Copy,
    DeleteRecursively,
    Exists,
    FastGFile,
    GFile,
    Glob,
    IsDirectory,
    ListDirectory,
    MakeDirs,
    MkDir,
    Open,
    Remove,
    Rename,
    Stat,
    Walk,
)

__getattr__ = _unimplemented.module_getattr("gfile")
