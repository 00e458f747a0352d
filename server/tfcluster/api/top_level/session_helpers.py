"""tf.tables_initializer and the protos of event files (tf.Event, tf.Summary, ...)."""

from tensorboardX.proto.event_pb2 import Event, LogMessage, SessionLog
from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata

from tfcluster.ops.lookup_ops import tables_initializer

__all__ = ["Event", "LogMessage", "SessionLog", "Summary", "SummaryMetadata", "tables_initializer"]
