"""`tf.OptionalSpec`."""

from tfcluster.lib.data.type_specs import OptionalSpec

__all__ = ["OptionalSpec"]
