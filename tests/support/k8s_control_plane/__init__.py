"""The test suite's own Kubernetes control plane (see build.sh and controlplane.py)."""

from .binaries import (
    BUILD_SCRIPT,
    Binaries,
    BinariesUnavailable,
    cache_dir,
    find_binaries,
    pinned_versions,
)
from .controlplane import DEFAULT_CONTROLLERS, ControlPlane, ControlPlaneError

__all__ = [
    "BUILD_SCRIPT",
    "DEFAULT_CONTROLLERS",
    "Binaries",
    "BinariesUnavailable",
    "ControlPlane",
    "ControlPlaneError",
    "cache_dir",
    "find_binaries",
    "pinned_versions",
]
