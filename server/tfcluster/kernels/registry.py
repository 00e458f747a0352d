"""Registering kernels into the runtime's kernel table (runtime/kernel_table.py).

Kernels are written once over the array module: `@kernel("Op")` registers a body
`factory(node, xp)` for the CPU (xp is numpy) and the GPU (xp is cupy, inputs moved to the
device). The modules holding them sit directly in this package, one op family each, and are
imported on the table's first lookup; cupy itself is imported only when a GPU kernel is bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.kernels import gpu_backend
from tfcluster.runtime.kernel_table import (  # noqa: F401 - the table, read through here too
    Accepts,
    Factory,
    KernelDef,
    add,
    has_kernel,
    lookup,
    registered_kernels,
    supports,
)

XpFactory = Callable[[Any, Any], Any]
ALL_DEVICES = ("CPU", "GPU")
# Kernels of strings, queues, summaries, functional control flow: the CPU only, as in TF.
CPU_ONLY = ("CPU",)


def register(
    op: str, device_type: str = "CPU", is_async: bool = False, accepts: Accepts | None = None
) -> Callable[[Factory], Factory]:
    """A factory(node) for one device type: kernels whose body is that device's own (the GPU's
    _Recv); everything else is a body over xp registered with `kernel`."""

    def deco(factory: Factory) -> Factory:
        add(KernelDef(op, device_type, factory, is_async, accepts))
        return factory

    return deco


def register_for_all_devices(op: str, is_async: bool = False) -> Callable[[Factory], Factory]:
    """Kernels that only move host values around (Send/Recv, NoOp, control ops)."""

    def deco(factory: Factory) -> Factory:
        for device_type in ALL_DEVICES:
            add(KernelDef(op, device_type, factory, is_async))
        return factory

    return deco


def kernel(
    op: str,
    devices: Sequence[str] = ALL_DEVICES,
    is_async: bool = False,
    accepts: Accepts | None = None,
    host: Sequence[int] = (),
    all_host: bool = False,
    keep_inputs: bool = False,
) -> Callable[[XpFactory], XpFactory]:
    """Registers one kernel body, `factory(node, xp) -> compute`, for each of `devices`.

    On the CPU xp is numpy; on a GPU it is cupy and the inputs arrive on the node's device,
    except the positions in `host` (negative counts from the end), or all with `all_host`,
    which TF keeps in host memory (shapes, axes, sizes); with `keep_inputs` they arrive as
    they are, host or device (kernels that only pass values on or read their shapes). GPU
    kernels take only numeric dtypes unless `accepts` says otherwise. The body uses only
    functions both modules have (tests/unit/test_kernels_on_strict_cupy.py checks).
    """

    def deco(factory: XpFactory) -> XpFactory:
        for device_type in devices:
            if device_type == "CPU":
                bound: Factory = _bind_cpu(factory)
                kdef = KernelDef(op, "CPU", bound, is_async, accepts)
            elif device_type == "GPU":
                bound = _bind_gpu(factory, tuple(host), keep_inputs, all_host)
                kdef = KernelDef(op, "GPU", bound, is_async, accepts or gpu_backend.numeric_only)
            else:
                raise ValueError(f"unknown device type {device_type!r} for kernel {op}")
            add(kdef)
        return factory

    return deco


def _bind_cpu(factory: XpFactory) -> Factory:
    def bound(node: Any) -> Any:
        return factory(node, np)

    return bound


def _bind_gpu(factory: XpFactory, host: tuple[int, ...], keep: bool, all_host: bool) -> Factory:
    def bound(node: Any) -> Any:
        def with_cupy(n: Any) -> Any:
            # Kernels that only pass values on get cupy imported on first use, so binding
            # them needs no cupy; the others get the module itself (no lookup per call).
            return factory(n, gpu_backend.cp if keep else gpu_backend.cupy_module())

        return gpu_backend.wrap_factory(with_cupy, host, keep, all_host)(node)

    return bound
