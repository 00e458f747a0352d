"""The protos of event files (tf.Event, tf.Summary, ...)."""

from tensorboardX.proto.event_pb2 import Event, LogMessage, SessionLog
from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata

__all__ = ["Event", "LogMessage", "SessionLog", "Summary", "SummaryMetadata"]
