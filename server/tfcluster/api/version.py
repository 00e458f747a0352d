"""tf.version: the TensorFlow release tfcluster follows (and, beside TF's names,
tfcluster's own version as `tfcluster_version`)."""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.framework.versions import (
    COMPILER_VERSION,
    GIT_VERSION,
    GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_CONSUMER,
    GRAPH_DEF_VERSION_MIN_PRODUCER,
    VERSION,
)
from tfcluster.framework.versions import TFCLUSTER_VERSION as tfcluster_version

__getattr__ = _unimplemented.module_getattr("version")
