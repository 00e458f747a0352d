"""`tf.CriticalSection`: a part of the graph that one step at a time runs."""

from tfcluster.lib.critical_section.critical_section import CriticalSection

__all__ = ["CriticalSection"]
