"""`tf.*` names for queue-based input: queues, readers, files, Assert, count_up_to."""

from tfcluster.ops.data_flow_ops import PaddingFIFOQueue, PriorityQueue, RandomShuffleQueue
from tfcluster.ops.logging_ops import Assert
from tfcluster.ops.reader_ops import (
    FixedLengthRecordReader,
    IdentityReader,
    ReaderBase,
    TextLineReader,
    TFRecordReader,
    WholeFileReader,
    matching_files,
    read_file,
    write_file,
)
from tfcluster.ops.state_ops import count_up_to

__all__ = [
    "Assert",
    "FixedLengthRecordReader",
    "IdentityReader",
    "PaddingFIFOQueue",
    "PriorityQueue",
    "RandomShuffleQueue",
    "ReaderBase",
    "TFRecordReader",
    "TextLineReader",
    "WholeFileReader",
    "count_up_to",
    "matching_files",
    "read_file",
    "write_file",
]
