"""`tf.Module`: a name-scoped container of variables and submodules."""

from tfcluster.lib.tf_module import Module

__all__ = ["Module"]
