"""tensorflow.python.summary.summary (`from tensorflow.python.summary import summary` then
`summary.scalar(...)`, `summary.FileWriter(...)`): tf.summary's own functions and classes."""

from __future__ import annotations

from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

_NAMES = [
    "Event",
    "FileWriter",
    "FileWriterCache",
    "SessionLog",
    "Summary",
    "SummaryDescription",
    "TaggedRunMetadata",
    "audio",
    "get_summary_description",
    "histogram",
    "image",
    "merge",
    "merge_all",
    "scalar",
    "tensor_summary",
    "text",
]
Event = face_function("summary", "Event")
FileWriter = face_function("summary", "FileWriter")
FileWriterCache = face_function("summary", "FileWriterCache")
SessionLog = face_function("summary", "SessionLog")
Summary = face_function("summary", "Summary")
SummaryDescription = face_function("summary", "SummaryDescription")
TaggedRunMetadata = face_function("summary", "TaggedRunMetadata")
audio = face_function("summary", "audio")
get_summary_description = face_function("summary", "get_summary_description")
histogram = face_function("summary", "histogram")
image = face_function("summary", "image")
merge = face_function("summary", "merge")
merge_all = face_function("summary", "merge_all")
scalar = face_function("summary", "scalar")
tensor_summary = face_function("summary", "tensor_summary")
text = face_function("summary", "text")

__getattr__ = module_getattr("python.summary.summary")

__all__ = _NAMES
