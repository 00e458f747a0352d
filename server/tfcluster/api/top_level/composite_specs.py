"""`tf.IndexedSlicesSpec` and `tf.TensorArraySpec`."""

from tfcluster.ops.composite_specs import IndexedSlicesSpec, TensorArraySpec

__all__ = ["IndexedSlicesSpec", "TensorArraySpec"]
