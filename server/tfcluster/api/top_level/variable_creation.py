"""`tf.*` names around making variables: tf.variable_creator_scope."""

from tfcluster.ops.variable_creators import variable_creator_scope

__all__ = ["variable_creator_scope"]
