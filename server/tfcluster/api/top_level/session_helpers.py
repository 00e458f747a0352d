"""The protos of event files (tf.Event, tf.Summary, ...)."""

from tfcluster.protos.event_pb2 import Event, LogMessage, SessionLog
from tfcluster.protos.summary_pb2 import Summary, SummaryMetadata

__all__ = ["Event", "LogMessage", "SessionLog", "Summary", "SummaryMetadata"]
