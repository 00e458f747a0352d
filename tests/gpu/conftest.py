"""GPU tests: marked `gpu`, skipped with a reason where there is no NVIDIA GPU or no cupy."""

from __future__ import annotations

import importlib.util
import os

import pytest
from tfcluster.runtime import gpu

HERE = os.path.dirname(__file__)


def unavailable_reason() -> str | None:
    if importlib.util.find_spec("cupy") is None:
        return "no NVIDIA GPU/cupy: cupy is not installed (pip install tfcluster[gpu])"
    if not gpu.local_gpus():
        return "no NVIDIA GPU/cupy: cupy finds no usable CUDA device"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = unavailable_reason()
    for item in items:
        if str(item.fspath).startswith(HERE + os.sep):
            item.add_marker(pytest.mark.gpu)
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
