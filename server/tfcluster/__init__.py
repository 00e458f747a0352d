"""tfcluster: the distributed TensorFlow 1.x runtime in Python. Use as `import tfcluster as tf`.

This module is the face of `tf.*`: it re-exports the names of api/top_level and gives the
modules of TF 1.15's tree (`tf.nn`, `tf.train`, `tf.layers`, ...) from their faces in api/.
Every public name of TF 1.15 exists; those tfcluster lacks raise UnimplementedError on use.
The implementation packages (framework, ops, kernels, runtime, ...) are not attributes of
`tf`: import them by their full module path.
"""

import sys as _sys
from typing import Any as _Any

from tfcluster.settings import environment as _environment

# Before grpc is imported (by the runtime, below): it reads its log level once.
_environment.quiet_grpc_by_default()

from tfcluster.api import _public_modules, _unimplemented  # noqa: E402
from tfcluster.api import top_level as _top_level  # noqa: E402

globals().update(_top_level.exported())

from tfcluster.ops import math_ops as _math_ops  # noqa: E402
from tfcluster.ops import variables as _variables  # noqa: E402

_math_ops.install_operator_overloads(_variables.Variable)

from tfcluster.framework import numpy1_conversions as _numpy1_conversions  # noqa: E402
from tfcluster.framework import numpy1_names as _numpy1_names  # noqa: E402
from tfcluster.framework import numpy_printing as _numpy_printing  # noqa: E402
from tfcluster.framework import proto_int_values as _proto_int_values  # noqa: E402
from tfcluster.framework import proto_text as _proto_text  # noqa: E402
from tfcluster.framework import python37_names as _python37_names  # noqa: E402
from tfcluster.framework import versions as _versions  # noqa: E402
from tfcluster.lib.platform import sysconfig as _sysconfig  # noqa: E402
from tfcluster.runtime import constant_evaluation as _constant_evaluation  # noqa: E402, F401

_proto_text.install()
_proto_int_values.install()
_numpy_printing.install()
_numpy1_names.install()
_numpy1_conversions.install()
_python37_names.install()

from tfcluster.lib.platform import tf_logging as _tf_logging  # noqa: E402

# As importing TF 1.15 does: the "tensorflow" logger gets its stderr handler now (unless the
# root logger has handlers), so the library's records ("WARNING:tensorflow:...") show in
# programs that never call tf.logging themselves.
_tf_logging.get_logger()

# The TensorFlow release whose API tfcluster follows (tfcluster's own version is
# tf.version.tfcluster_version).
__version__ = _versions.VERSION
# TF 1.15's other build dunders beside __version__ (programs log them at start, e.g. kubeflow's
# tf_smoke.py); the same values as tf.version / tf.sysconfig.
__git_version__ = _versions.GIT_VERSION
__compiler_version__ = _versions.COMPILER_VERSION
__cxx11_abi_flag__ = _sysconfig.CXX11_ABI_FLAG
__monolithic_build__ = _sysconfig.MONOLITHIC_BUILD


def __getattr__(name: str) -> _Any:
    # The modules of TF's tree load on first use, as their faces (or unimplemented modules).
    value = _unimplemented.lookup("", name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return _public_modules.public_dir(globals(), "")


_public_modules.install(_sys.modules[__name__])
