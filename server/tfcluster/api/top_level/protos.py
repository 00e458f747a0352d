"""`tf.HistogramProto` (TF's summary.proto in tfcluster.protos, like tf.Summary) and
`tf.NameAttrList` (tfcluster's attr_value.proto, TF's field numbers)."""

from tfcluster.protos.attr_value_pb2 import NameAttrList
from tfcluster.protos.summary_pb2 import HistogramProto

__all__ = ["HistogramProto", "NameAttrList"]
