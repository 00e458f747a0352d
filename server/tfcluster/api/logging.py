"""tf.logging"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.platform.tf_logging import (
    DEBUG,
    ERROR,
    FATAL,
    INFO,
    WARN,
    TaskLevelStatusMessage,
    debug,
    error,
    fatal,
    flush,
    get_verbosity,
    info,
    log,
    log_every_n,
    log_first_n,
    log_if,
    set_verbosity,
    vlog,
    warn,
    warning,
)

__getattr__ = _unimplemented.module_getattr("logging")
