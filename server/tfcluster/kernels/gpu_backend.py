"""What every GPU kernel shares: cupy on first use, and inputs moved to the device once.

Registering GPU kernels never imports cupy (the placer asks which ops have GPU kernels even
where no GPU exists); `cp` imports it the first time a GPU kernel is bound. Every GPU kernel
is wrapped once (registry.kernel does it): its inputs arrive as numpy arrays (from CPU ops,
feeds, Recv) or as cupy arrays, and the wrapper moves them to the kernel's device, except the
positions TF keeps in host memory (shapes, axes, sizes: TF's HostMemory), which it moves to
the host instead.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import device_spec, dtypes, errors
from tfcluster.runtime import device_copy
from tfcluster.runtime import gpu as gpu_devices

Factory = Callable[[Any], Any]
# dtype kinds cupy holds: bool, signed, unsigned, float, complex (no strings, no objects).
_NUMERIC_KINDS = frozenset("biufc")


class _LazyCupy:
    """`cp.name` imports cupy on first use (a clear error when it is not installed)."""

    def __init__(self) -> None:
        self._module: Any = None
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        module = self._module
        if module is None:
            module = self._load()
        return getattr(module, name)

    def module(self) -> Any:
        """cupy itself (imported on first use)."""
        return self._module if self._module is not None else self._load()

    def _load(self) -> Any:
        with self._lock:
            if self._module is None:
                try:
                    self._module = importlib.import_module("cupy")
                except ImportError as e:
                    raise errors.UnavailableError(
                        None,
                        None,
                        f"GPU kernels need cupy, which is not installed ({e}); install "
                        "tfcluster[gpu] (cupy-cuda12x)",
                    ) from e
            return self._module


cp: Any = _LazyCupy()


def cupy_module() -> Any:
    """The cupy module, for kernel bodies written over xp."""
    return cp.module()


# ---- moving values ---------------------------------------------------------------------------
def to_device(value: Any) -> Any:
    """numpy arrays and scalars of numeric dtypes onto the current GPU; the rest unchanged
    (cupy arrays, variable references, string arrays that only pass through)."""
    if isinstance(value, np.ndarray | np.generic) and value.dtype.kind in _NUMERIC_KINDS:
        return cp.asarray(value)
    return value


def _to_device_checked(value: Any, device_id: int) -> Any:
    """As to_device, also copying a cupy array that lives on another GPU of this process."""
    if isinstance(value, cp.ndarray):
        return value if value.device.id == device_id else value.copy()
    return to_device(value)


def device_index(device: str) -> int:
    """'/job:w/replica:0/task:0/device:GPU:1' -> 1 (0 when the name has no index)."""
    if not device:
        return 0
    spec = device_spec.parse(device)
    return spec.device_index or 0


@contextlib.contextmanager
def on_device(device_id: int) -> Iterator[None]:
    """Makes device_id current (threads start on GPU 0, so 0 needs no switch)."""
    if device_id == 0:
        yield
        return
    with cp.cuda.Device(device_id):
        yield


# ---- which nodes a GPU kernel takes, and where their inputs go -----------------------------
def numeric_only(attrs: Mapping[str, Any]) -> bool:
    """No string dtype among the node's type attrs: cupy holds no strings, so such nodes go
    to the CPU (TF's GPU kernels are type-constrained likewise)."""
    for value in attrs.values():
        items = value if isinstance(value, list | tuple) else (value,)
        for v in items:
            if isinstance(v, dtypes.DType) and v.as_numpy_dtype is object:
                return False
    return True


def wrap_factory(factory: Factory, host: Sequence[int], keep: bool, all_host: bool) -> Factory:
    """factory bound so that its compute gets inputs where it needs them.

    host: input positions (negative counts from the end) moved to host memory instead;
    all_host: every input on the host (kernels that compute on the host, e.g. shape helpers);
    keep: inputs passed unchanged (kernels that only pass values on or read shapes).
    """

    def bound(node: Any) -> Any:
        # From the first GPU kernel on, values may live on a device: copy points turn on.
        device_copy.activate()
        device_id = device_index(node.device)
        with on_device(device_id):
            fn = factory(node)
        if keep:
            return fn
        n = len(node.inputs)
        host_set = frozenset(range(n)) if all_host else frozenset(i % n for i in host if n)
        if len(gpu_devices.local_gpus()) > 1:
            return _multi_gpu_compute(fn, host_set, device_id)

        def compute(ctx: Any, ins: list[Any]) -> Any:
            moved = [
                device_copy.to_host(v) if i in host_set else to_device(v) for i, v in enumerate(ins)
            ]
            return fn(ctx, moved)

        return compute

    return bound


def _multi_gpu_compute(fn: Any, host_set: frozenset[int], device_id: int) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> Any:
        with on_device(device_id):
            moved = [
                device_copy.to_host(v) if i in host_set else _to_device_checked(v, device_id)
                for i, v in enumerate(ins)
            ]
            return fn(ctx, moved)

    return compute
