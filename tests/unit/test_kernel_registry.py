"""The kernel table: one body over the array module registered for the CPU and the GPU."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tfcluster.framework import dtypes, errors
from tfcluster.kernels import registry


class _Node:
    def __init__(self, **attrs: Any) -> None:
        self.attrs = attrs
        self.device = ""
        self.inputs: list[str] = []


def test_one_body_is_registered_for_cpu_and_gpu_and_gets_numpy_on_the_cpu() -> None:
    seen: list[Any] = []

    @registry.kernel("TestOnlyXpDouble")
    def double(node: Any, xp: Any) -> Any:
        seen.append(xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (xp.multiply(ins[0], 2),)

        return compute

    cpu = registry.lookup("TestOnlyXpDouble", "CPU")
    gpu = registry.lookup("TestOnlyXpDouble", "GPU")
    assert cpu.device_type == "CPU" and gpu.device_type == "GPU"
    (out,) = cpu.factory(_Node())(None, [np.arange(3)])
    np.testing.assert_array_equal(out, [0, 2, 4])
    assert seen == [np]
    # GPU kernels take numeric dtypes only (cupy holds no strings) unless the op says otherwise.
    assert registry.supports("TestOnlyXpDouble", "GPU", {"T": dtypes.float32})
    assert not registry.supports("TestOnlyXpDouble", "GPU", {"T": dtypes.string})


def test_a_cpu_only_body_has_no_gpu_kernel() -> None:
    @registry.kernel("TestOnlyXpCpuOnly", devices=("CPU",))
    def cpu_only(node: Any, xp: Any) -> Any:
        return lambda ctx, ins: (ins[0],)

    assert registry.has_kernel("TestOnlyXpCpuOnly", "CPU")
    assert not registry.has_kernel("TestOnlyXpCpuOnly", "GPU")
    with pytest.raises(errors.NotFoundError, match="TestOnlyXpCpuOnly"):
        registry.lookup("TestOnlyXpCpuOnly", "GPU")


def test_an_unknown_device_type_is_refused_at_registration() -> None:
    with pytest.raises(ValueError, match="TPU"):
        registry.kernel("TestOnlyXpTpu", devices=("TPU",))(lambda node, xp: None)
