"""The kernel table the runtime reads: (op type, device type) -> a factory that binds a node
to a compute function.

A factory runs once per node when a graph is registered, so attr parsing and validation stay
out of the step loop; the function it returns is what runs every step:
    sync:  fn(ctx, inputs) -> sequence of outputs
    async: fn(ctx, inputs, done) where done(outputs, error) is called exactly once
The table sits below the kernels (as TF keeps its kernel registry in core/framework): the
kernels in tfcluster.kernels register themselves into it (kernels/registry.py has the
decorators) and are imported, by package name, on the first lookup.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tfcluster.framework import errors
from tfcluster.runtime import xla_cpu_kernels

ComputeFn = Callable[[Any, list[Any]], Sequence[Any]]
DoneFn = Callable[[Sequence[Any] | None, BaseException | None], None]
AsyncComputeFn = Callable[[Any, list[Any], DoneFn], None]
Factory = Callable[[Any], Any]
# node attrs -> whether the kernel handles this node (TF's kernel type constraints).
Accepts = Callable[[Mapping[str, Any]], bool]

KERNELS_PACKAGE = "tfcluster.kernels"


@dataclass(frozen=True)
class KernelDef:
    op: str
    device_type: str
    factory: Factory
    is_async: bool = False
    accepts: Accepts | None = None


_KERNELS: dict[tuple[str, str], KernelDef] = {}
_loaded = False
# XLA_CPU's kernels, made from the CPU kernels on first lookup (kept apart from the table of
# registered kernels).
_XLA_CPU_KERNELS: dict[str, KernelDef] = {}
# Sessions in several threads may look up kernels first at once: loading completes before any
# thread sees the table as loaded.
_load_lock = threading.RLock()


def add(kdef: KernelDef, replace: bool = False) -> None:
    """Registers a kernel; a second kernel for the same op and device type is an error (two
    modules defining one op would otherwise leave it to import order) unless it is meant to
    replace the first (`replace`: a device's own body for an op registered for all devices)."""
    key = (kdef.op, kdef.device_type)
    if key in _KERNELS and not replace:
        raise ValueError(f"a {kdef.device_type} kernel for {kdef.op} is registered twice")
    _KERNELS[key] = kdef


def alias(new_op: str, op: str, device_types: Sequence[str] | None = None) -> None:
    """Registers op's kernels (the same bodies) under new_op too: TF's older op names whose
    semantics are exactly a newer op's (Inv is Reciprocal). op's module must be imported."""
    found = [k for (name, _), k in _KERNELS.items() if name == op]
    if not found:
        raise ValueError(f"no kernel for {op} to register {new_op} as")
    for kdef in found:
        if device_types is None or kdef.device_type in device_types:
            add(dataclasses.replace(kdef, op=new_op))


def _import_kernel_modules() -> None:
    """Every public module directly in the kernels package (the op families)."""
    package = importlib.import_module(KERNELS_PACKAGE)
    for info in pkgutil.iter_modules(package.__path__):
        if not info.ispkg and not info.name.startswith("_"):
            importlib.import_module(f"{KERNELS_PACKAGE}.{info.name}")


def _ensure_loaded() -> None:
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        try:
            _import_kernel_modules()
        finally:
            _loaded = True


def lookup(op: str, device_type: str = "CPU") -> KernelDef:
    _ensure_loaded()
    kdef = _KERNELS.get((op, device_type))
    if kdef is None and device_type == xla_cpu_kernels.DEVICE_TYPE:
        kdef = _xla_cpu_kernel(op)
    if kdef is None:
        raise errors.NotFoundError(
            None, None, f"No registered '{op}' OpKernel for {device_type} devices"
        )
    return kdef


def _xla_cpu_kernel(op: str) -> KernelDef | None:
    """XLA_CPU's kernel for op: the CPU kernel's body, taking what both TF's XLA kernel and
    the CPU kernel take (None where TF's XLA_CPU device has no kernel for op)."""
    if op in _XLA_CPU_KERNELS:
        return _XLA_CPU_KERNELS[op]
    cpu = _KERNELS.get((op, "CPU"))
    if cpu is None or not xla_cpu_kernels.has_op(op):
        return None
    cpu_accepts = cpu.accepts

    def accepts(attrs: Mapping[str, Any]) -> bool:
        return xla_cpu_kernels.takes(op, attrs) and (cpu_accepts is None or cpu_accepts(attrs))

    kdef = dataclasses.replace(cpu, device_type=xla_cpu_kernels.DEVICE_TYPE, accepts=accepts)
    _XLA_CPU_KERNELS[op] = kdef
    return kdef


def has_kernel(op: str, device_type: str) -> bool:
    try:
        lookup(op, device_type)
    except errors.NotFoundError:
        return False
    return True


def supports(op: str, device_type: str, attrs: Mapping[str, Any]) -> bool:
    """Whether a kernel for device_type exists and takes a node with these attrs (dtypes)."""
    try:
        kdef = lookup(op, device_type)
    except errors.NotFoundError:
        return False
    return kdef.accepts is None or kdef.accepts(attrs)


def registered_kernels() -> list[tuple[str, str]]:
    _ensure_loaded()
    return sorted(_KERNELS)
