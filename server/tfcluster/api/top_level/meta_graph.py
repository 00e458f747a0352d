"""The MetaGraphDef protos of `tf.*` (tf.MetaGraphDef, tf.TensorInfo)."""

from tfcluster.protos.meta_graph_pb2 import MetaGraphDef, TensorInfo

__all__ = ["MetaGraphDef", "TensorInfo"]
