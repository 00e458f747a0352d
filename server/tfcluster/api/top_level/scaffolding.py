"""Top-level names of a program's scaffolding: the TF version tfcluster follows, the legacy
Dimension bridge and the "tensorflow" logger."""

from tfcluster.framework.versions import (
    COMPILER_VERSION,
    GIT_VERSION,
    GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_CONSUMER,
    GRAPH_DEF_VERSION_MIN_PRODUCER,
    VERSION,
)
from tfcluster.lib.compat import dimension_at_index, dimension_value
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
    "get_logger",
]
