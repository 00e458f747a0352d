"""tf.summary"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.summary_extras import (
    SummaryDescription,
    TaggedRunMetadata,
    all_v2_summary_ops,
    get_summary_description,
    initialize,
)
from tfcluster.ops.summary_ops import (
    audio,
    histogram,
    image,
    merge,
    merge_all,
    scalar,
    tensor_summary,
    text,
)
from tfcluster.training.summary_io import (
    Event,
    FileWriter,
    FileWriterCache,
    SessionLog,
    Summary,
)

__getattr__ = _unimplemented.module_getattr("summary")
