"""Makes a module of tensorflow.python's tree be the tfcluster module that does its job."""

from __future__ import annotations

import importlib
import sys


def alias(name: str, target: str) -> None:
    """`import tfcluster.python.<...>` (module `name`) gives module `target` itself."""
    module = importlib.import_module(target)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    # `from tfcluster.python.ops import math_ops` reads the parent's attribute.
    setattr(sys.modules[parent], child, module)
