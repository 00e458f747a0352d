"""`tf.*` names about native (C++) libraries: the loaders and the build flags."""

from tfcluster.lib.platform.native_libraries import (
    load_file_system_library,
    load_library,
    load_op_library,
)
from tfcluster.lib.platform.sysconfig import CXX11_ABI_FLAG, MONOLITHIC_BUILD

__all__ = [
    "CXX11_ABI_FLAG",
    "MONOLITHIC_BUILD",
    "load_file_system_library",
    "load_library",
    "load_op_library",
]
