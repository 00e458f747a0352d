"""tf.python_io"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.io.tfrecord import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
)

__getattr__ = _unimplemented.module_getattr("python_io")
