"""tf.io.gfile"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.io.gfile import (
    GFile,
    copy,
    exists,
    glob,
    isdir,
    listdir,
    makedirs,
    mkdir,
    remove,
    rename,
    rmtree,
    stat,
    walk,
)

__getattr__ = _unimplemented.module_getattr("io.gfile")
