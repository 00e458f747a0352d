"""`tf.HistogramProto` (tensorboardX's, TF's wire format, like tf.Summary) and
`tf.NameAttrList` (tfcluster's attr_value.proto, TF's field numbers)."""

from tensorboardX.proto.summary_pb2 import HistogramProto

from tfcluster.protos.attr_value_pb2 import NameAttrList

__all__ = ["HistogramProto", "NameAttrList"]
