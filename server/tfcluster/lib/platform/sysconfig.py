"""tf.sysconfig for tfcluster, which is pure Python (numpy/cupy) and ships no C++ headers and
no shared library: custom-op builds against it cannot work (tf.load_op_library says why), so
the values say where tfcluster itself lives and nothing more.

- get_include(), get_lib(): the tfcluster package folder (TF: its include/ folder and the
  folder of libtensorflow_framework.so). It holds no headers and no .so.
- get_compile_flags(): ["-I" + get_include(), "-D_GLIBCXX_USE_CXX11_ABI=0"], the form of TF
  1.15's pip build (its ABI flag is 0).
- get_link_flags(): ["-L" + get_lib()] only: there is no libtensorflow_framework to name.
- CXX11_ABI_FLAG = 0 and MONOLITHIC_BUILD = 0, TF 1.15's pip values (no library is built).
"""

from __future__ import annotations

import os

CXX11_ABI_FLAG = 0
MONOLITHIC_BUILD = 0


def _package_dir() -> str:
    # this file is tfcluster/lib/platform/sysconfig.py
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def get_include() -> str:
    """The tfcluster package folder (it has no C++ headers: tfcluster has no C++ core)."""
    return _package_dir()


def get_lib() -> str:
    """The tfcluster package folder (it has no shared library to link against)."""
    return _package_dir()


def get_compile_flags() -> list[str]:
    return ["-I" + get_include(), f"-D_GLIBCXX_USE_CXX11_ABI={CXX11_ABI_FLAG}"]


def get_link_flags() -> list[str]:
    return ["-L" + get_lib()]
