"""Top-level names of a program's scaffolding: the TF version tfcluster follows, the legacy
Dimension bridge, the "tensorflow" logger and the TF 2 switches a compat.v1 program turns off."""

from tfcluster.framework.versions import (
    COMPILER_VERSION,
    GIT_VERSION,
    GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_CONSUMER,
    GRAPH_DEF_VERSION_MIN_PRODUCER,
    VERSION,
)
from tfcluster.lib.compat import dimension_at_index, dimension_value
from tfcluster.lib.platform.behavior import (
    disable_eager_execution,
    disable_v2_behavior,
    executing_eagerly,
)
from tfcluster.lib.platform.tf_logging import get_logger

__all__ = [
    "COMPILER_VERSION",
    "GIT_VERSION",
    "GRAPH_DEF_VERSION",
    "GRAPH_DEF_VERSION_MIN_CONSUMER",
    "GRAPH_DEF_VERSION_MIN_PRODUCER",
    "VERSION",
    "dimension_at_index",
    "dimension_value",
    "disable_eager_execution",
    "disable_v2_behavior",
    "executing_eagerly",
    "get_logger",
]
