"""tf.flags (also tf.app.flags): absl.flags with TF1's FLAGS."""

from tfcluster.api import _unimplemented
from tfcluster.lib.platform.flags import *  # noqa: F403

__getattr__ = _unimplemented.module_getattr("flags")
