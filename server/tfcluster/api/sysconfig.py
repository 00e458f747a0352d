"""tf.sysconfig"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.platform.sysconfig import (
    CXX11_ABI_FLAG,
    MONOLITHIC_BUILD,
    get_compile_flags,
    get_include,
    get_lib,
    get_link_flags,
)

__getattr__ = _unimplemented.module_getattr("sysconfig")
