"""`tf.ConditionalAccumulatorBase`."""

from tfcluster.ops.data_flow_ops import ConditionalAccumulatorBase

__all__ = ["ConditionalAccumulatorBase"]
