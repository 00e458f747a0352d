"""`tf.*` names of type specifications."""

from tfcluster.framework import type_spec as _type_spec
from tfcluster.framework.type_spec import *  # noqa: F403

__all__ = sorted(_type_spec.__all__)
