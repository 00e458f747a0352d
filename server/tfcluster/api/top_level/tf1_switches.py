"""`tf.*` names of TF1's behaviour switches, the deprecated scopes and error aliases."""

# ruff: noqa: F401
from tfcluster.framework.errors import OpError
from tfcluster.framework.graph import op_scope
from tfcluster.lib.platform import behavior_switches as _behavior_switches
from tfcluster.lib.platform.behavior_switches import *  # noqa: F403

__all__ = sorted([*_behavior_switches.__all__, "OpError", "op_scope"])
