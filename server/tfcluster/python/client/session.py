"""tensorflow.python.client.session (`from tensorflow.python.client import session`, then
`session.Session(...)`): tf.Session and tf.InteractiveSession, the very classes, and their
base; TF's other names raise UnimplementedError on use."""

from __future__ import annotations

from tfcluster.client.session import BaseSession, InteractiveSession, Session
from tfcluster.python._private_module import module_getattr

__all__ = ["BaseSession", "InteractiveSession", "Session"]

__getattr__ = module_getattr("python.client.session")
