"""tensorflow.python.lib.io.tf_record (`tf_record.tf_record_iterator(events_file)` in TensorBoard
event readers): the very objects tf.python_io holds; TF's other names raise UnimplementedError
on use."""

from __future__ import annotations

from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

TFRecordCompressionType = face_function("python_io", "TFRecordCompressionType")
TFRecordOptions = face_function("python_io", "TFRecordOptions")
TFRecordWriter = face_function("python_io", "TFRecordWriter")
tf_record_iterator = face_function("python_io", "tf_record_iterator")

__all__ = [
    "TFRecordCompressionType",
    "TFRecordOptions",
    "TFRecordWriter",
    "tf_record_iterator",
]

__getattr__ = module_getattr("python.lib.io.tf_record")
