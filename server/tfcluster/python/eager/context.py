"""tensorflow.python.eager.context (`context.executing_eagerly()`, `with context.graph_mode():`,
in library code written for both modes): tfcluster always runs TF1's graph mode, so eager
execution is never on; entering eager mode (eager_mode, the Context object) is unimplemented."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tfcluster.lib.platform.behavior import executing_eagerly
from tfcluster.python._private_module import module_getattr

GRAPH_MODE = 0
EAGER_MODE = 1
default_execution_mode = GRAPH_MODE

DEVICE_PLACEMENT_EXPLICIT = 0
DEVICE_PLACEMENT_WARN = 1
DEVICE_PLACEMENT_SILENT = 2
DEVICE_PLACEMENT_SILENT_FOR_INT32 = 3

SYNC = 0
ASYNC = 1

MIRRORING_NONE = 0
MIRRORING_ALL = 1


def in_eager_mode() -> bool:
    """Use executing_eagerly() instead (TF's own words)."""
    return executing_eagerly()


@contextlib.contextmanager
def graph_mode() -> Iterator[None]:
    """Graph mode for the block: tfcluster's only mode."""
    yield


def shared_name(name: str | None = None) -> str | None:
    """The shared name given: only eager execution replaces a missing one."""
    return name


__getattr__ = module_getattr("python.eager.context")

__all__ = [
    "ASYNC",
    "DEVICE_PLACEMENT_EXPLICIT",
    "DEVICE_PLACEMENT_SILENT",
    "DEVICE_PLACEMENT_SILENT_FOR_INT32",
    "DEVICE_PLACEMENT_WARN",
    "EAGER_MODE",
    "GRAPH_MODE",
    "MIRRORING_ALL",
    "MIRRORING_NONE",
    "SYNC",
    "default_execution_mode",
    "executing_eagerly",
    "graph_mode",
    "in_eager_mode",
    "shared_name",
]
