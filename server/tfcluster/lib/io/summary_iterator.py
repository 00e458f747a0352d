"""tf.train.summary_iterator: the Event protos of an event file, in order."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tfcluster.framework import internal_deprecations
from tfcluster.lib.io.tfrecord import tf_record_iterator
from tfcluster.protos.event_pb2 import Event


def summary_iterator(path: Any) -> Iterator[Event]:
    """Yields each Event of the event file at `path` (a TFRecord file); a truncated or
    corrupted record is DataLossError. Its first read announces tf_record_iterator's
    deprecation, as TF's, which reads the file with it, does."""
    internal_deprecations.called_internally(internal_deprecations.TF_RECORD_ITERATOR)
    for record in tf_record_iterator(path):
        yield Event.FromString(record)


__all__ = ["summary_iterator"]
